package web

import (
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// NewStateNote is who paused a job in state, when and why (SPEC §13.2):
// "Paused by alice 2 h ago: waiting for the vendor's maintenance". A job
// that is not disabled shows none (enabling clears the note); by "" (the
// engine, an older row) and a missing time leave their part out. When is
// in loc (the job's zone), measured from now.
func NewStateNote(state jobdef.State, note, by string, at *time.Time, loc *time.Location, now time.Time) StateNoteView {
	if state != jobdef.Disabled || (note == "" && at == nil) {
		return StateNoteView{}
	}
	v := StateNoteView{By: by, Note: note, When: InstantPtr(at, loc, now)}
	v.Text = "Paused"
	if by != "" {
		v.Text += " by " + by
	}
	if at != nil {
		if v.When.Relative == "now" {
			v.When.Relative = "just now"
		}
		v.Text += " " + v.When.Relative
	}
	v.Tail = "."
	if note != "" {
		v.Tail = ": " + note
	}
	v.Text += v.Tail
	return v
}

// NewCollectionStateNote is who paused the collection row, when and why,
// as NewStateNote says for a job (times in UTC): none for an Enabled
// collection.
func NewCollectionStateNote(row *models.CollectionRow, now time.Time) StateNoteView {
	if row.State == models.CollectionEnabled {
		return StateNoteView{}
	}
	return NewStateNote(jobdef.Disabled, row.StateNote, row.StateChangedBy, row.StateChangedAt, time.UTC, now)
}
