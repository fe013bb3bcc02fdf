package handlers_test

import (
	"net/http"
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
