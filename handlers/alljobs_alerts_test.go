package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
)

// Tests of the "has alerts" filter of the "All jobs" page and of POST
// /api/v1/jobs/bulk.

// alertRules adds, to f, a job rule on default/rg/jc/INVOICES, a
// collection rule on default/OPS/Nightly (backup) and a workspace rule in
// "other" (a workspace the user is not a member of): "reports" and "done"
// have no rule.
func alertRules(t *testing.T, f *pgFixture) {
	t.Helper()
	ctx := context.Background()
	for _, r := range []models.AlertRuleWrite{
		{WorkspaceID: "default", Name: "invoices", ScopeResourceGroup: "rg", ScopeCollection: "jc", ScopeJob: "INVOICES"},
		{WorkspaceID: "default", Name: "nightly", ScopeResourceGroup: "OPS", ScopeCollection: "Nightly"},
		{WorkspaceID: "other", Name: "everything"},
	} {
		if _, err := f.store.PutChannel(ctx, models.ChannelWrite{WorkspaceID: r.WorkspaceID, Name: "ops", Type: "slack",
			Config: []byte(`{"urlHost":"hooks.slack.com"}`)}); err != nil {
			t.Fatal(err)
		}
		ch, err := f.store.ChannelByName(ctx, r.WorkspaceID, "ops")
		if err != nil {
			t.Fatal(err)
		}
		r.ChannelID, r.Events = ch.ID, []byte(`["occurrenceFaulted"]`)
		if _, err := f.store.PutAlertRule(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAllJobsHasAlertsFilter(t *testing.T) {
	f := allJobsFixture(t)
	alertRules(t, f)
	r := f.get("/jobs?alerts=1")
	wantStatus(t, r, http.StatusOK)
	if got := strings.Join(pgTexts(r.doc.Find("#all-jobs-results tbody tr td:first-child")), ","); got != "invoices,backup" {
		t.Errorf("jobs %q, want invoices,backup (not reports, nor x of another workspace)", got)
	}
	if r.doc.Find(`label[for="all-jobs-alerts"]`).Length() != 1 ||
		r.doc.Find(`input#all-jobs-alerts[type="checkbox"][name="alerts"][value="1"][checked]`).Length() != 1 {
		t.Error("the form does not show the checked Has alerts box")
	}
	if href, _ := r.doc.Find("#all-jobs-clear").Attr("href"); href != "/jobs" {
		t.Errorf("clear link %q", href)
	}
	if got := strings.Join(strings.Fields(r.doc.Find(`label[for="all-jobs-select-all"]`).Text()), " "); got != "All 2 jobs that match the filter" {
		t.Errorf("all-matching label %q", got)
	}
	if v := r.doc.Find(`form#all-jobs-bulk input[type="hidden"][name="alerts"]`).AttrOr("value", ""); v != "1" {
		t.Errorf("the bulk form does not carry alerts: %q", v)
	}
	// Unchecked, every job.
	r = f.get("/jobs")
	if got := strings.Join(pgTexts(r.doc.Find("#all-jobs-results tbody tr td:first-child")), ","); got != "reports,invoices,backup" {
		t.Errorf("without the filter: %q", got)
	}
	if r.doc.Find(`input#all-jobs-alerts[checked]`).Length() != 0 {
		t.Error("the Has alerts box is checked without alerts=1")
	}
	for _, q := range []string{"alerts=yes", "alerts=0", "alerts=true"} {
		r := f.get("/jobs?" + q)
		pgWantErrorPage(t, r, http.StatusBadRequest)
		if !strings.Contains(r.doc.Find("#error").Text(), "alerts") {
			t.Errorf("%s: the error does not name alerts", q)
		}
	}
}

func TestBulkAllMatchingHasAlerts(t *testing.T) {
	f := newBulkFixture(t)
	alertRules(t, f.pgFixture)
	// The page's form: disable every job with alerts.
	f.formPost("/jobs/bulk", url.Values{"action": {"disable"}, "all": {"matching"}, "alerts": {"1"}})
	for name, want := range map[string]string{"invoices": "disabled", "backup": "disabled", "reports": "enabled", "done": "completed"} {
		if got := strings.Fields(f.state(name))[0]; got != want {
			t.Errorf("%s = %q after disabling all with alerts, want %s", name, got, want)
		}
	}
	// The API's filter.
	admin, err := f.store.UserByName(context.Background(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	if _, f.token, err = f.store.CreateToken(context.Background(), admin.ID, "bulk"); err != nil {
		t.Fatal(err)
	}
	r := f.api(http.MethodPost, "/api/v1/jobs/bulk", `{"action":"enable","filter":{"alerts":"1"}}`)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"summary":"2 enabled."`) {
		t.Errorf("filter answer %s", r.body)
	}
	if got := strings.Fields(f.state("reports"))[0]; got != "enabled" {
		t.Errorf("reports = %q", got)
	}
	r = f.api(http.MethodPost, "/api/v1/jobs/bulk", `{"action":"disable","filter":{"alerts":"yes"}}`)
	wantStatus(t, r, http.StatusBadRequest)
	var e struct {
		Error struct {
			Details []struct{ Target string } `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) == 0 || e.Error.Details[0].Target != "filter.alerts" {
		t.Errorf("answered %s, want a detail naming filter.alerts", r.body)
	}
}
