package handlers_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestARMJobDeadline puts a job with properties.deadline (SPEC §17.2):
// the answers and GET carry it in canonical form, a PATCH can remove it,
// and a bad value is a 400 naming deadline.succeedWithin or
// deadline.maxDuration that changes nothing.
func TestARMJobDeadline(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	jobPath := coll + "/jobs/nightly" + apiVersion
	type deadline struct {
		SucceedWithin string `json:"succeedWithin"`
		MaxDuration   string `json:"maxDuration"`
	}
	get := func(r *response) *deadline {
		t.Helper()
		return decode[struct {
			Properties struct {
				Deadline *deadline `json:"deadline"`
			} `json:"properties"`
		}](t, r).Properties.Deadline
	}
	action := `"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"timeout":"PT5M"}`
	r := a.api(http.MethodPut, jobPath, `{"properties":{`+action+`,"recurrence":{"frequency":"day"},`+
		`"deadline":{"succeedWithin":"pt120m","MaxDuration":"PT240S"}}}`)
	wantStatus(t, r, http.StatusCreated)
	if d := get(r); d == nil || *d != (deadline{"PT2H", "PT4M"}) {
		t.Fatalf("PUT answered %s", r.body)
	}
	if d := get(a.api(http.MethodGet, jobPath, "")); d == nil || *d != (deadline{"PT2H", "PT4M"}) {
		t.Errorf("GET answered %+v", d)
	}
	before := a.fingerprint()
	for _, tc := range []struct{ body, target string }{
		{`{"succeedWithin":"PT10S"}`, "deadline.succeedWithin"},
		{`{"succeedWithin":"P1M"}`, "deadline.succeedWithin"},
		{`{"maxDuration":"PT10M"}`, "deadline.maxDuration"},
		{`{"maxDuration":"PT1.5S"}`, "deadline.maxDuration"},
	} {
		r := a.api(http.MethodPatch, jobPath, `{"properties":{"deadline":`+tc.body+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) != 1 || e.Error.Details[0].Target != tc.target {
			t.Errorf("deadline %s answered %s, want one detail naming %s", tc.body, r.body, tc.target)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused deadline changed the database")
	}
	r = a.api(http.MethodPatch, jobPath, `{"properties":{"deadline":{"maxDuration":null}}}`)
	wantStatus(t, r, http.StatusOK)
	if d := get(r); d == nil || *d != (deadline{SucceedWithin: "PT2H"}) {
		t.Errorf("PATCH without maxDuration answered %s", r.body)
	}
	r = a.api(http.MethodPatch, jobPath, `{"properties":{"deadline":null}}`)
	wantStatus(t, r, http.StatusOK)
	if d := get(r); d != nil {
		t.Errorf("PATCH removing the deadline answered %s", r.body)
	}
}
