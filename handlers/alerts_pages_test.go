package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
	"sked/scheduler/catalog"
)

// Tests of the alert rules on the Channels, collection and job pages and
// of the job page's bell (alerts_pages.go).

// alertForm is the add form of the page of scope rg/coll/job.
func alertForm(coll, job, channel string, events ...string) url.Values {
	v := url.Values{"resourceGroup": {"rg"}, "collection": {coll}, "job": {job}, "channel": {channel}}
	if coll == "" {
		v.Set("resourceGroup", "")
	}
	for _, e := range events {
		v.Add("events", e)
	}
	return v
}

func TestAlertRulesOnThePages(t *testing.T) {
	f := newNotifyFixture(t)
	f.putJob(f.coll, "nightly", pgJobJSON)
	f.putJob(f.coll, "weekly", pgJobJSON)
	job := f.base + "/jobs/nightly"
	// No channel: the panels say where to add one.
	r := f.get(f.base)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#alerts-empty").Length() != 1 || r.doc.Find("#alerts-no-channel a").AttrOr("href", "") != channelsPage {
		t.Errorf("collection page without channels: %s", r.doc.Find("#alerts").Text())
	}
	f.putChannel("ops-slack", `{"type":"slack","properties":{"url":"https://hooks.slack.com/services/T/B/x"}}`)
	r = f.get(f.base)
	if r.doc.Find("#alert-form").Length() != 1 || r.doc.Find(`#alert-channel option[value="ops-slack"]`).Length() != 1 {
		t.Fatal("the collection page has no add form with the channel")
	}
	if got := r.doc.Find(`#alert-form input[name=events]:checked`).Length(); got != 2 {
		t.Errorf("%d events checked by default, want 2 (faulted, recovered)", got)
	}
	// Add for the collection: listed on the collection page and on its jobs'.
	r = f.hxPost("/w/default/alerts", alertForm("jc", "", "ops-slack", "occurrenceFaulted", "recovered"))
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "alerts")
	if got := pgTexts(r.doc.Find("#alert-list .alert-summary")); len(got) != 1 || got[0] != "Alerts: faulted, recovered → #ops-slack" {
		t.Errorf("collection rules %q", got)
	}
	if !strings.Contains(r.doc.Find("#alerts-message").Text(), "jc-ops-slack added") {
		t.Errorf("message %q", r.doc.Find("#alerts-message").Text())
	}
	// Add for one job, with a threshold and a minInterval.
	form := alertForm("jc", "nightly", "ops-slack", "consecutiveFailures")
	form.Set("threshold", "3")
	form.Set("minInterval", "PT15M")
	r = f.hxPost("/w/default/alerts", form)
	wantStatus(t, r, http.StatusOK)
	if got := pgTexts(r.doc.Find("#alert-list .alert-summary")); len(got) != 2 || got[1] != "Alerts: 3 failures in a row → #ops-slack" {
		t.Errorf("job rules %q", got)
	}
	r = f.get(job)
	if got := pgTexts(r.doc.Find("#alert-list > li")); len(got) != 2 || !strings.Contains(got[0], "collection rg / jc") ||
		!strings.Contains(got[1], "job jc / nightly") || !strings.Contains(got[1], "at most one message per 15 min") {
		t.Errorf("job page rules %q", got)
	}
	if n := f.get(f.base + "/jobs/weekly").doc.Find("#alert-list > li").Length(); n != 1 {
		t.Errorf("the other job shows %d rules, want the collection's 1", n)
	}
	if n := f.get(channelsPage).doc.Find("#alert-list > li").Length(); n != 2 {
		t.Errorf("the Channels page shows %d rules, want all 2", n)
	}
	// Remove from the job page.
	r = f.hxPost("/w/default/alerts/nightly-ops-slack/delete", alertForm("jc", "nightly", ""))
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "alerts")
	if n := r.doc.Find("#alert-list > li").Length(); n != 1 || !strings.Contains(r.doc.Find("#alerts-message").Text(), "removed") {
		t.Errorf("after remove: %d rules, %q", n, r.doc.Find("#alerts-message").Text())
	}
	wantStatus(t, f.hxPost("/w/default/alerts/nightly-ops-slack/delete", alertForm("jc", "nightly", "")), http.StatusNotFound)
	// Without htmx: back to the page, with the message.
	r = f.formPost("/w/default/alerts", alertForm("jc", "", "ops-slack", "missed"))
	wantRedirect(t, r, f.base)
	if r = f.get(f.base); !strings.Contains(r.doc.Find("#flash").Text(), "jc-ops-slack-2 added") {
		t.Errorf("flash %q", r.doc.Find("#flash").Text())
	}
}

func TestAlertFormRefusesBadInput(t *testing.T) {
	f := newNotifyFixture(t)
	f.putChannel("ops", `{"type":"webhook","properties":{"url":"https://example.com/a"}}`)
	before := f.notifyRows()
	for _, tc := range []struct {
		form  url.Values
		field string
		want  string
	}{
		{alertForm("jc", "", "ops"), "alert-events", "The events must name at least one event"},
		{alertForm("jc", "", "ops", "consecutiveFailures"), "alert-threshold", "is required with consecutiveFailures"},
		{alertForm("jc", "", "nowhere", "recovered"), "alert-channel", `"nowhere" is not a channel of this workspace`},
		{alertForm("jc", "", "ops", "exploded"), "alert-events", "is not an event"},
		{func() url.Values {
			v := alertForm("jc", "", "ops", "recovered")
			v.Set("minInterval", "soon")
			return v
		}(),
			"alert-min-interval", `"soon" is not an ISO 8601 duration`},
	} {
		r := f.hxPost("/w/default/alerts", tc.form)
		wantStatus(t, r, http.StatusUnprocessableEntity)
		pgWantFragment(t, r, "alerts")
		if msg := r.doc.Find("#" + tc.field + "-error").Text(); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: error %q at %s, want %q", tc.form, msg, tc.field, tc.want)
		}
		if _, open := r.doc.Find("#alert-form-box").Attr("open"); !open {
			t.Errorf("%v: the refused form is closed", tc.form)
		}
	}
	// Without htmx: the panel alone, 422, with a way back.
	r := f.formPost("/w/default/alerts", alertForm("jc", "", "ops"))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.doc.Find("#alert-events-error").Length() != 1 || r.doc.Find(`a[href="`+f.base+`"]`).Length() == 0 {
		t.Error("the refused page lacks the error or the way back")
	}
	if f.notifyRows() != before {
		t.Error("a refused form stored a rule")
	}
}

func TestJobBell(t *testing.T) {
	f := newNotifyFixture(t)
	f.putJob(f.coll, "nightly", pgJobJSON)
	job := f.base + "/jobs/nightly"
	// No channel: the bell links to the Channels page.
	r := f.get(job)
	if href := r.doc.Find("a#job-bell").AttrOr("href", ""); href != channelsPage {
		t.Errorf("bell without channels: %q", href)
	}
	r = f.hxPost(job+"/bell", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(r.doc.Find("#alerts-error").Text(), "no channel yet") {
		t.Errorf("bell without channels: %s", r.body)
	}
	f.putChannel("b-mail", `{"type":"email","properties":{"host":"smtp.example.com","from":"s@example.com","to":["o@example.com"]}}`)
	f.putChannel("a-slack", `{"type":"slack","properties":{"url":"https://hooks.slack.com/services/T/B/x"}}`)
	r = f.get(job)
	if b := r.doc.Find("button#job-bell"); b.Length() != 1 || !strings.Contains(b.Text(), "#a-slack") {
		t.Fatalf("bell %q", b.Text())
	}
	r = f.hxPost(job+"/bell", nil)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "alerts")
	if got := pgTexts(r.doc.Find("#alert-list .alert-summary")); len(got) != 1 || got[0] != "Alerts: faulted, recovered → #a-slack" {
		t.Errorf("rules after the bell %q", got)
	}
	if r.doc.Find("span#job-bell").Length() != 1 || r.doc.Find("button#job-bell").Length() != 0 {
		t.Error("the bell is not on after the click")
	}
	// A second click changes nothing.
	wantStatus(t, f.hxPost(job+"/bell", nil), http.StatusOK)
	rules, err := f.store.AlertRulesOf(context.Background(), "default")
	if err != nil || len(rules) != 1 || rules[0].ScopeJob != "nightly" || rules[0].ChannelName != "a-slack" {
		t.Errorf("rules %+v, %v", rules, err)
	}
	// A reader sees the state but no button, and may not ring.
	if err := f.cat.DeleteAlertRule(context.Background(), catalog.System("test"), "default", rules[0].Name); err != nil {
		t.Fatal(err)
	}
	f.asMember("rita", models.RoleReader)
	r = f.get(job)
	if r.doc.Find("#job-bell").Length() != 0 || r.doc.Find("#alert-form").Length() != 0 {
		t.Error("a reader sees the bell or the add form")
	}
	wantStatus(t, f.formPost(job+"/bell", nil), http.StatusForbidden)
}
