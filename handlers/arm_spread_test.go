package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestARMJobWithWindow: a job with recurrence.window is stored with it,
// its nextExecutionTime lies within the window after its time and stays
// the same from one read to the next; a window as long as the interval is
// a 400 naming recurrence.window; a job every 10 seconds is refused by
// the default quota.
func TestARMJobWithWindow(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	start := time.Now().UTC().Truncate(time.Hour).Add(2 * time.Hour)
	job := func(rec string) string {
		return `{"properties":{"startTime":"` + start.Format(time.RFC3339) + `","action":{"type":"Http","request":{"uri":"https://example.com/hook","method":"GET"}},"recurrence":` + rec + `}}`
	}
	r := a.api(http.MethodPut, coll+"/jobs/spread"+apiVersion, job(`{"frequency":"hour","window":"PT10M"}`))
	wantStatus(t, r, http.StatusCreated)
	var out armJobOut
	if err := json.Unmarshal([]byte(r.body), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.body, `"window":"PT10M"`) || out.Properties.Status == nil {
		t.Fatalf("created: %s", r.body)
	}
	next, err := time.Parse(time.RFC3339, out.Properties.Status.NextExecutionTime)
	if err != nil || next.Before(start) || !next.Before(start.Add(10*time.Minute)) {
		t.Fatalf("nextExecutionTime %q, want within [%s, +10m)", out.Properties.Status.NextExecutionTime, start.Format(time.RFC3339))
	}
	r = a.api(http.MethodGet, coll+"/jobs/spread"+apiVersion, "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"nextExecutionTime":"`+out.Properties.Status.NextExecutionTime+`"`) {
		t.Errorf("read again: %s, want nextExecutionTime %s", r.body, out.Properties.Status.NextExecutionTime)
	}
	r = a.api(http.MethodPut, coll+"/jobs/wide"+apiVersion, job(`{"frequency":"minute","interval":30,"window":"PT30M"}`))
	if r.StatusCode != http.StatusBadRequest || !strings.Contains(r.body, `"target":"recurrence.window"`) {
		t.Errorf("a window as long as the interval: %d %s", r.StatusCode, r.body)
	}
	r = a.api(http.MethodPut, coll+"/jobs/fast"+apiVersion, job(`{"frequency":"second","interval":10}`))
	if r.StatusCode != http.StatusConflict || !strings.Contains(r.body, "maxRecurrence") {
		t.Errorf("every 10 s in a Standard collection: %d %s", r.StatusCode, r.body)
	}
	r = a.api(http.MethodPut, coll+"/jobs/minutely"+apiVersion, job(`{"frequency":"second","interval":60}`))
	wantStatus(t, r, http.StatusCreated)
	if !strings.Contains(r.body, `"frequency":"second"`) {
		t.Errorf("every 60 s: %s", r.body)
	}
}
