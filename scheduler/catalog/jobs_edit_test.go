package catalog_test

import (
	"strings"
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// TestEditJobKeepsTheStateNote edits a paused job with a definition
// without a note: the note stays, and an explicit "stateNote": "" clears
// it. A definition that enables the job
// clears it (the store keeps notes only on disabled jobs), and PutJob
// (the API's PUT) stores the definition as given, without a note.
func TestEditJobKeepsTheStateNote(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	paused := func(note string) []byte {
		s := `{"action": {"type": "http", "request": {"uri": "https://example.com/hook", "method": "GET"}},
			"recurrence": {"frequency": "hour"}, "state": "disabled"`
		if note != "" {
			s += `, "stateNote": "` + note + `"`
		}
		return []byte(s + `}`)
	}
	stored := func() *models.Job {
		t.Helper()
		j, err := e.store.JobByName(e.ctx, coll.ID, "daily")
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	e.putJob(coll, "daily", string(paused("vendor maintenance")))
	if _, _, err := e.cat.EditJob(e.ctx, catalog.System("test"), coll, "daily", paused("")); err != nil {
		t.Fatal(err)
	}
	if j := stored(); j.State != "disabled" || j.StateNote != "vendor maintenance" {
		t.Errorf("after an edit without a note: %s %q, want disabled with its note", j.State, j.StateNote)
	}
	if _, _, err := e.cat.EditJob(e.ctx, catalog.System("test"), coll, "daily", paused("until Monday")); err != nil {
		t.Fatal(err)
	}
	if j := stored(); j.StateNote != "until Monday" {
		t.Errorf("after an edit with a note: %q, want the new note", j.StateNote)
	}
	cleared := strings.Replace(string(paused("")), `"disabled"`, `"disabled", "stateNote": ""`, 1)
	if _, _, err := e.cat.EditJob(e.ctx, catalog.System("test"), coll, "daily", []byte(cleared)); err != nil {
		t.Fatal(err)
	}
	if j := stored(); j.State != "disabled" || j.StateNote != "" {
		t.Errorf(`after an edit with "stateNote": "": %s %q, want disabled without a note`, j.State, j.StateNote)
	}
	e.putJob(coll, "daily", string(paused("until Monday")))
	if _, _, err := e.cat.PutJob(e.ctx, catalog.System("test"), coll, "daily", paused("")); err != nil {
		t.Fatal(err)
	}
	if j := stored(); j.StateNote != "" {
		t.Errorf("after a PUT without a note: %q, want none", j.StateNote)
	}
	e.putJob(coll, "daily", string(paused("vendor maintenance")))
	enabled := strings.Replace(string(paused("")), `"disabled"`, `"enabled"`, 1)
	if _, _, err := e.cat.EditJob(e.ctx, catalog.System("test"), coll, "daily", []byte(enabled)); err != nil {
		t.Fatal(err)
	}
	if j := stored(); j.State != "enabled" || j.StateNote != "" {
		t.Errorf("after an edit that enables the job: %s %q, want enabled without a note", j.State, j.StateNote)
	}
}
