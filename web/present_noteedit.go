package web

import (
	"sked/models"
	"sked/models/jobdef"
)

// NewJobNoteEdit is the "Why is it paused?" form of job j in row, holding
// its current note: nil unless the job is disabled.
func NewJobNoteEdit(row *models.CollectionRow, j *models.JobDetail) *NoteEdit {
	if j.State != jobdef.Disabled {
		return nil
	}
	return &NoteEdit{ID: "job-note", URL: JobNotePath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name),
		Target: "#job-status", Value: j.StateNote, Max: jobdef.MaxStateNote}
}

// NewCollectionNoteEdit is the "Why is it paused?" form of the collection
// row, holding its current note: nil while it is Enabled.
func NewCollectionNoteEdit(row *models.CollectionRow) *NoteEdit {
	if row.State == models.CollectionEnabled {
		return nil
	}
	return &NoteEdit{ID: "collection-note", URL: CollectionNotePath(row.WorkspaceID, row.ResourceGroup, row.Name),
		Target: "#collection-status", Value: row.StateNote, Max: jobdef.MaxStateNote}
}

// Refused is e with note kept in the field and why it was refused; a nil
// e stays nil.
func (e *NoteEdit) Refused(note, why string) *NoteEdit {
	if e == nil {
		return nil
	}
	r := *e
	r.Value, r.Error = note, why
	return &r
}
