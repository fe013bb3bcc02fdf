package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestARMStateNote puts a job disabled with properties.stateNote (SPEC
// §13.2): the answers carry the note with who set it and when; a patch
// that only changes the note keeps the state; enabling clears the note;
// a bad note is a 400 naming stateNote and changes nothing.
func TestARMStateNote(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	jobPath := coll + "/jobs/paused" + apiVersion
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
	body := `{"properties":{"state":"Disabled","stateNote":" waiting for the vendor's maintenance ","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour"}}}`
	r := a.api(http.MethodPut, jobPath, body)
	wantStatus(t, r, http.StatusCreated)
	p := get(r)
	if p.State != "disabled" || p.StateNote == nil || *p.StateNote != "waiting for the vendor's maintenance" ||
		p.StateChangedBy == nil || *p.StateChangedBy != "api" || p.StateChangedAt == nil {
		t.Fatalf("PUT answered %s", r.body)
	}
	if p := get(a.api(http.MethodGet, jobPath, "")); p.StateNote == nil || *p.StateNote != "waiting for the vendor's maintenance" {
		t.Errorf("GET lost the note: %+v", p)
	}
	if strings.Contains(a.rawJobColumns("paused"), "stateNote") {
		t.Errorf("the stored definition holds the note: %s", a.rawJobColumns("paused"))
	}

	r = a.api(http.MethodPatch, jobPath, `{"properties":{"stateNote":"until Monday"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != "disabled" || *p.StateNote != "until Monday" {
		t.Errorf("PATCH of the note answered %s", r.body)
	}
	// A change of something else keeps the note.
	r = a.api(http.MethodPatch, jobPath, `{"properties":{"recurrence":{"frequency":"hour","interval":2}}}`)
	if p := get(r); *p.StateNote != "until Monday" {
		t.Errorf("PATCH of the recurrence answered %s, want the note kept", r.body)
	}

	before := a.fingerprint()
	for _, bad := range []string{`"` + strings.Repeat("x", 501) + `"`, `"two\nlines"`, `17`} {
		r := a.api(http.MethodPatch, jobPath, `{"properties":{"stateNote":`+bad+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) != 1 || e.Error.Details[0].Target != "stateNote" {
			t.Errorf("bad note %.20s answered %s, want one detail naming stateNote", bad, r.body)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused note changed the database")
	}

	r = a.api(http.MethodPatch, jobPath, `{"properties":{"state":"enabled"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != "enabled" || p.StateNote != nil || p.StateChangedBy == nil {
		t.Errorf("enabling answered %s, want no note and who enabled it", r.body)
	}
}
