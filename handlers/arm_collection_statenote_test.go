package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestARMCollectionStateNote puts a job collection disabled with
// properties.stateNote (SPEC §13.2): the answers carry the note with who
// set it and when; a patch of something else keeps it; a bad note is a
// 400 naming properties.stateNote and changes nothing; enabling clears
// the note; stateChangedBy on input is ignored.
func TestARMCollectionStateNote(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc" + apiVersion
	type props struct {
		State          string  `json:"state"`
		StateNote      *string `json:"stateNote"`
		StateChangedBy *string `json:"stateChangedBy"`
		StateChangedAt *string `json:"stateChangedAt"`
	}
	get := func(r *response) props {
		t.Helper()
		return decode[struct {
			Properties props `json:"properties"`
		}](t, r).Properties
	}
	r := a.api(http.MethodPut, coll, `{"properties":{"sku":{"name":"Standard"},"state":"Disabled","stateNote":" vendor maintenance ","stateChangedBy":"mallory"}}`)
	wantStatus(t, r, http.StatusCreated)
	p := get(r)
	if p.State != "Disabled" || p.StateNote == nil || *p.StateNote != "vendor maintenance" ||
		p.StateChangedBy == nil || *p.StateChangedBy != "api" || p.StateChangedAt == nil {
		t.Fatalf("PUT answered %s", r.body)
	}
	if p := get(a.api(http.MethodGet, coll, "")); p.StateNote == nil || *p.StateNote != "vendor maintenance" || p.StateChangedAt == nil {
		t.Errorf("GET lost the note: %+v", p)
	}
	r = a.api(http.MethodPatch, coll, `{"tags":{"team":"ops"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != "Disabled" || p.StateNote == nil || *p.StateNote != "vendor maintenance" {
		t.Errorf("PATCH of the tags answered %s, want the note kept", r.body)
	}
	r = a.api(http.MethodPatch, coll, `{"properties":{"stateNote":"until Monday"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != "Disabled" || p.StateNote == nil || *p.StateNote != "until Monday" {
		t.Errorf("PATCH of the note answered %s", r.body)
	}

	before := a.fingerprint()
	for _, bad := range []string{`"` + strings.Repeat("x", 501) + `"`, `"two\nlines"`, `17`} {
		r := a.api(http.MethodPatch, coll, `{"properties":{"stateNote":`+bad+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) != 1 || e.Error.Details[0].Target != "properties.stateNote" {
			t.Errorf("bad note %.20s answered %s, want one detail naming properties.stateNote", bad, r.body)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused note changed the database")
	}

	r = a.api(http.MethodPatch, coll, `{"properties":{"state":"Enabled"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != "Enabled" || p.StateNote != nil || p.StateChangedBy == nil {
		t.Errorf("enabling answered %s, want no note and who enabled it", r.body)
	}
	r = a.api(http.MethodPut, coll, `{"properties":{"sku":{"name":"Standard"},"state":"Enabled","stateNote":"ignored"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.StateNote != nil {
		t.Errorf("an enabled collection kept a note: %s", r.body)
	}
}
