package web

import (
	"testing"

	"sked/models"
	"sked/models/jobdef"
)

func TestNewNoteEdit(t *testing.T) {
	row := &models.CollectionRow{WorkspaceID: "default", ResourceGroup: "rg", JobCollection: models.JobCollection{Name: "jc"}}
	for _, tc := range []struct {
		name  string
		state jobdef.State
		note  string
		want  *NoteEdit
	}{
		{"disabled with a note", jobdef.Disabled, "vendor maintenance",
			&NoteEdit{ID: "job-note", URL: "/c/default/rg/jc/jobs/daily/note", Target: "#job-status", Value: "vendor maintenance", Max: 500}},
		{"disabled without a note", jobdef.Disabled, "",
			&NoteEdit{ID: "job-note", URL: "/c/default/rg/jc/jobs/daily/note", Target: "#job-status", Max: 500}},
		{"enabled has no form", jobdef.Enabled, "", nil},
		{"completed has no form", jobdef.Completed, "", nil},
		{"faulted has no form", jobdef.Faulted, "", nil},
	} {
		j := &models.JobDetail{Job: models.Job{Name: "daily", State: tc.state, StateNote: tc.note}}
		got := NewJobNoteEdit(row, j)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		state models.CollectionState
		want  bool
	}{
		{"disabled", models.CollectionDisabled, true},
		{"suspended", models.CollectionSuspended, true},
		{"enabled", models.CollectionEnabled, false},
	} {
		r := *row
		r.State, r.StateNote = tc.state, "why"
		got := NewCollectionNoteEdit(&r)
		if (got != nil) != tc.want || got != nil && (got.URL != "/c/default/rg/jc/note" || got.Value != "why" || got.Target != "#collection-status") {
			t.Errorf("%s: %+v", tc.name, got)
		}
	}
	e := &NoteEdit{ID: "job-note", Value: "old", Max: 500}
	if r := e.Refused("new\nline", "Note: bad"); r.Value != "new\nline" || r.Error != "Note: bad" || e.Value != "old" || e.Error != "" {
		t.Errorf("Refused: %+v (the original became %+v)", r, e)
	}
	if (*NoteEdit)(nil).Refused("x", "y") != nil {
		t.Error("a nil form refused is a form")
	}
}
