package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCronAPIPutJob puts a job with recurrence.cron (both JSON shapes) and
// gets back the recurrence it converts to, without cron; a line the
// recurrence cannot express is a 400 naming recurrence.cron, with the
// database unchanged.
func TestCronAPIPutJob(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"standard"}}}`), http.StatusCreated)

	const action = `"action":{"type":"http","request":{"uri":"https://example.com/hook","method":"POST"}}`
	want := `"recurrence":{"frequency":"week","interval":1,"schedule":{"minutes":[15],"hours":[5],"weekDays":["monday","tuesday","wednesday","thursday","friday"]},"timeZone":"Europe/Berlin"}`
	for name, body := range map[string]string{
		"arm":  `{"properties":{` + action + `,"recurrence":{"cron":"15 5 * * 1-5","timeZone":"Europe/Berlin"}}}`,
		"flat": `{` + action + `,"recurrence":{"cron":"15 5 * * MON-FRI","timeZone":"Europe/Berlin"}}`,
	} {
		r := a.api(http.MethodPut, coll+"/jobs/"+name+apiVersion, body)
		wantStatus(t, r, http.StatusCreated)
		if !strings.Contains(r.body, want) || strings.Contains(r.body, "cron") {
			t.Errorf("%s: answer %s\nwant %s", name, r.body, want)
		}
		r = a.api(http.MethodGet, coll+"/jobs/"+name+apiVersion, "")
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(r.body, want) {
			t.Errorf("%s: stored %s", name, r.body)
		}
	}

	before := a.fingerprint()
	for _, rec := range []string{
		`{"cron":"0 0 1 * 1"}`,
		`{"cron":"0 0 0 * * *"}`,
		`{"cron":"15 5 * * 1-5","frequency":"day"}`,
	} {
		r := a.api(http.MethodPut, coll+"/jobs/arm"+apiVersion, `{"properties":{`+action+`,"recurrence":`+rec+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		if e := decode[apiErr](t, r); e.Error.Code != "BadRequest" || !strings.Contains(r.body, "recurrence.cron: ") {
			t.Errorf("%s: %s", rec, r.body)
		}
		if !strings.Contains(rec, "frequency") && !strings.Contains(r.body, "OR") && !strings.Contains(r.body, "seconds") {
			t.Errorf("%s: no reason in %s", rec, r.body)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused cron line changed the database")
	}
}
