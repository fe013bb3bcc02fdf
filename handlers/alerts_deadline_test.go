package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestAlertFormOffersDeadlineEvents adds, from a job page's alert form, a
// rule for the job's deadline events (SPEC §17.2).
func TestAlertFormOffersDeadlineEvents(t *testing.T) {
	f := newNotifyFixture(t)
	f.putJob(f.coll, "nightly", pgJobJSON)
	f.putChannel("ops-slack", `{"type":"slack","properties":{"url":"https://hooks.slack.com/services/T/B/x"}}`)
	r := f.get(f.base + "/jobs/nightly")
	for _, e := range []string{"deadlineMissed", "slowRun"} {
		if r.doc.Find(`#alert-form input[name=events][value=`+e+`]`).Length() != 1 {
			t.Errorf("the job page's alert form does not offer %s", e)
		}
	}
	r = f.hxPost("/w/default/alerts", alertForm("jc", "nightly", "ops-slack", "deadlineMissed", "slowRun"))
	wantStatus(t, r, http.StatusOK)
	if got := pgTexts(r.doc.Find("#alert-list .alert-summary")); len(got) != 1 || got[0] != "Alerts: deadline missed, slow run → #ops-slack" {
		t.Errorf("job rules %q", got)
	}
}

// TestAlertAPIDeadlineEvents puts, through the API, a rule for one job's
// deadline events, and refuses deadlineMissed for a monitor's scope.
func TestAlertAPIDeadlineEvents(t *testing.T) {
	a := newApp(t, false).withToken()
	wantStatus(t, a.api(http.MethodPut, chanBase+"/ops-hook", `{"type":"webhook","properties":{"url":"https://hooks.example.com/sked"}}`), http.StatusCreated)
	r := a.api(http.MethodPut, alertBase+"/late", `{"channel":"ops-hook","scope":{"resourceGroup":"rg","collection":"jc","job":"nightly"},
		"events":["deadlineMissed","slowRun"],"minInterval":"PT1H"}`)
	wantStatus(t, r, http.StatusCreated)
	if !strings.Contains(r.body, `"deadlineMissed"`) || !strings.Contains(r.body, `"slowRun"`) {
		t.Errorf("PUT answered %s", r.body)
	}
	r = a.api(http.MethodPut, alertBase+"/bad", `{"channel":"ops-hook","scope":{"monitor":"backup"},"events":["deadlineMissed"]}`)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "events[0]") {
		t.Errorf("deadlineMissed for a monitor answered %s", r.body)
	}
}
