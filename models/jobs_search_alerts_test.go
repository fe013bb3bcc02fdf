package models_test

import (
	"slices"
	"testing"

	"sked/models"
)

// TestSearchJobsHasAlertsKeepsTheJobsARuleApplies checks the "has alerts"
// filter against rules of workspace, collection and job scope (names in
// another case, as the engine matches them): the search, the bulk
// selection and its count keep exactly the jobs a rule applies to.
func TestSearchJobsHasAlertsKeepsTheJobsARuleApplies(t *testing.T) {
	f := newSearchFixture(t)
	f.joinOther()
	rule := func(ws, name, rg, coll, job string) {
		t.Helper()
		if _, err := f.store.PutChannel(f.ctx, models.ChannelWrite{WorkspaceID: ws, Name: "ops", Type: "slack",
			Config: []byte(`{"urlHost":"hooks.slack.com"}`)}); err != nil {
			t.Fatal(err)
		}
		ch, err := f.store.ChannelByName(f.ctx, ws, "ops")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.PutAlertRule(f.ctx, models.AlertRuleWrite{WorkspaceID: ws, Name: name, ChannelID: ch.ID,
			ScopeResourceGroup: rg, ScopeCollection: coll, ScopeJob: job, Events: []byte(`["attemptFailed"]`)}); err != nil {
			t.Fatal(err)
		}
	}
	// Before any rule, no job has alerts.
	if got := f.search(models.JobSearchParams{HasAlerts: true}); got != nil {
		t.Errorf("without rules: %v", got)
	}
	rule("other", "everything", "", "", "")                     // workspace: invoice-secret
	rule("default", "billing", "RG", "BILLING", "")             // collection: invoice-run, Dunning
	rule("default", "weekly", "rg", "reports", "Weekly-Report") // job: weekly-report
	rule("default", "gone", "rg", "reports", "cleanup-old")     // a job that does not exist
	rule("default", "elsewhere", "rg2", "", "")                 // another resource group
	want := []string{"Dunning", "invoice-run", "invoice-secret", "weekly-report"}
	if got := f.search(models.JobSearchParams{HasAlerts: true}); !slices.Equal(got, want) {
		t.Errorf("has alerts = %v, want %v (not cleanup)", got, want)
	}
	if got := f.search(models.JobSearchParams{HasAlerts: true, Query: "pay", States: []string{"enabled"}}); !slices.Equal(got, []string{"invoice-run", "invoice-secret"}) {
		t.Errorf("has alerts with a search and a state = %v", got)
	}
	cs, all, err := f.store.SearchScope(f.ctx, f.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := models.JobSearchParams{Collections: cs, AllCollections: all, HasAlerts: true}
	refs, err := f.store.SearchBulkJobs(f.ctx, p, 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range refs {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("SearchBulkJobs = %v, want %v", names, want)
	}
	if n, err := f.store.CountSearchJobs(f.ctx, p, 100, false); err != nil || n != 4 {
		t.Errorf("CountSearchJobs = %d, %v; want 4", n, err)
	}
}
