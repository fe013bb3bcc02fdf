package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The files of TestApplyAgainstAServer: a collection with two jobs
// (spelled as people write them: mixed case, a local start time), and a
// workspace's calendar, channel and alert rule. TARGET is the jobs' and
// the channel's URL.
const (
	applyJobs = `{"jobCollections": [{
  "id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly",
  "location": "westeurope", "properties": {"sku": {"name": "standard"}},
  "jobs": [
    {"name": "backup", "properties": {"startTime": "2030-01-01T02:00:00",
      "action": {"type": "Http", "request": {"uri": "TARGET/backup", "method": "post", "body": "{}"}},
      "recurrence": {"frequency": "Day", "interval": 1, "timeZone": "Europe/Berlin", "calendars": {"exclude": ["holidays"]}}}},
    {"name": "report", "properties": {
      "action": {"type": "http", "request": {"uri": "TARGET/report", "method": "GET"}},
      "recurrence": {"frequency": "week", "schedule": {"weekDays": ["Monday"], "hours": [7], "minutes": [0]}}}}
  ]}]}`
	applyWorkspace = `{"workspaces": [{"id": "default",
  "calendars": [{"name": "holidays", "timeZone": "Europe/Berlin", "entries": [{"date": "2030-12-25", "label": "Christmas"}]}],
  "channels": [{"name": "ops", "type": "Webhook", "properties": {"url": "TARGET/hook"}},
    {"name": "chat", "type": "slack", "description": "Team chat", "properties": {"url": "https://hooks.slack.com/services/T0/B0/secret"}},
    {"name": "mail", "type": "Email", "properties": {"host": "smtp.example.com", "from": "sked@example.com", "to": ["ops@example.com"]}},
    {"name": "mail-auth", "type": "email", "properties": {"host": "smtp.example.com", "security": "TLS", "user": "sked", "password": "hunter2",
      "from": "sked@example.com", "to": ["ops@example.com"]}}],
  "alerts": [{"name": "failures", "channel": "ops", "events": ["attemptFailed"], "minInterval": "PT15M"}]}]}`
)

// TestApplyAgainstAServer applies a directory of files to a real server
// with sked apply and sked diff: the plan, the creation, a second apply
// that changes nothing, an update shown as a difference by --dry-run
// (exit 2, nothing changed) and then made, --prune deleting only what the
// files no longer hold, and bad files that change nothing and name the
// file and the field.
func TestApplyAgainstAServer(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer target.Close()
	env := remoteSked(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.ReplaceAll(content, "TARGET", target.URL)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("jobs.json", applyJobs)
	write("workspace.json", applyWorkspace)
	jobsFile := filepath.Join(dir, "jobs.json")

	code, out, errOut := run("diff", "-f", dir)
	if code != exitChanges {
		t.Fatalf("diff before apply: exit %d, want 2\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"+ create calendar default/holidays  (" + filepath.Join(dir, "workspace.json") + ": workspaces[0].calendars[0])",
		"+ create channel default/ops", "+ create collection default/ops/nightly  (" + jobsFile + ": jobCollections[0])",
		"+ create job default/ops/nightly/backup", "+ create job default/ops/nightly/report", "+ create alert rule default/failures",
		"+ create channel default/chat", "+ create channel default/mail-auth", "Plan: 9 to create, 0 to update, 0 to delete."} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "calendar default/holidays") > strings.Index(out, "job default/ops/nightly/backup") ||
		strings.Index(out, "channel default/ops") > strings.Index(out, "alert rule default/failures") {
		t.Errorf("the plan does not create what others name first:\n%s", out)
	}
	if code, out, _ := run("collections", "list"); code != 0 || strings.Contains(out, "nightly") {
		t.Fatalf("diff changed the server: exit %d\n%s", code, out)
	}

	code, out, errOut = run("apply", "-f", dir)
	if code != 0 || !strings.Contains(out, "Apply complete: 9 created, 0 updated, 0 deleted.") ||
		!strings.Contains(out, "signing secret (shown once): whsec_") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	// The server's own export is a file apply takes, and matches.
	exported := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(exported, []byte(apiDo(t, env, http.MethodGet, "/api/v1/export?subscription=default", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("diff", "-f", exported); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("diff of the server's export: exit %d, want 0\n%s%s", code, out, errOut)
	}
	// What the server stores is compared, normalised: nothing to do.
	code, out, errOut = run("apply", "-f", dir)
	if code != 0 || !strings.Contains(out, "No changes") || strings.Contains(out, "Apply complete") {
		t.Fatalf("second apply: exit %d, want 0 and no changes\n%s%s", code, out, errOut)
	}
	if code, out, _ := run("diff", "-f", dir); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("diff after apply: exit %d, want 0\n%s", code, out)
	}

	// A changed file: --dry-run shows the difference, exits 2 and
	// changes nothing; apply then updates.
	write("jobs.json", strings.Replace(applyJobs, `"hours": [7]`, `"hours": [8]`, 1))
	code, out, errOut = run("apply", "--dry-run", "-f", dir)
	if code != exitChanges || !strings.Contains(out, "~ update job default/ops/nightly/report  ("+jobsFile+": jobCollections[0].jobs[1])") ||
		!regexp.MustCompile(`(?m)^    - +7$`).MatchString(out) || !regexp.MustCompile(`(?m)^    \+ +8$`).MatchString(out) ||
		!strings.Contains(out, "Plan: 0 to create, 1 to update, 0 to delete.") || strings.Contains(out, "backup") {
		t.Fatalf("apply --dry-run of a change: exit %d, want 2\n%s%s", code, out, errOut)
	}
	if hours := reportHours(t, run); hours != "[7]" {
		t.Fatalf("--dry-run changed the job: hours %s", hours)
	}
	code, out, errOut = run("apply", "-f", dir)
	if code != 0 || !strings.Contains(out, "updated job default/ops/nightly/report") || !strings.Contains(out, "Apply complete: 0 created, 1 updated, 0 deleted.") {
		t.Fatalf("apply of a change: exit %d\n%s%s", code, out, errOut)
	}
	if hours := reportHours(t, run); hours != "[8]" {
		t.Fatalf("apply did not update the job: hours %s", hours)
	}

	// A job removed from the file stays without --prune, and goes with it.
	write("jobs.json", strings.Replace(strings.Replace(applyJobs, `"hours": [7]`, `"hours": [8]`, 1),
		`{"name": "backup", "properties": {"startTime": "2030-01-01T02:00:00",
      "action": {"type": "Http", "request": {"uri": "TARGET/backup", "method": "post", "body": "{}"}},
      "recurrence": {"frequency": "Day", "interval": 1, "timeZone": "Europe/Berlin", "calendars": {"exclude": ["holidays"]}}}},`, "", 1))
	if code, out, _ := run("apply", "-f", dir); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("apply without --prune of a removed job: exit %d\n%s", code, out)
	}
	if code, out, _ := run("diff", "--prune", "-f", dir); code != exitChanges || !strings.Contains(out, "- delete job default/ops/nightly/backup") ||
		!strings.Contains(out, "Plan: 0 to create, 0 to update, 1 to delete.") {
		t.Fatalf("diff --prune: exit %d\n%s", code, out)
	}
	if code, out, errOut := run("apply", "--prune", "-f", dir); code != 0 || !strings.Contains(out, "deleted job default/ops/nightly/backup") {
		t.Fatalf("apply --prune: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run("jobs", "list", "--resource-group", "ops", "--collection", "nightly")
	if code != 0 || strings.Contains(out, "backup") || !strings.Contains(out, "report") {
		t.Fatalf("jobs after --prune: exit %d\n%s", code, out)
	}
	if code, out, _ := run("apply", "--prune", "-f", dir); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("apply --prune again: exit %d\n%s", code, out)
	}
	// Objects of a workspace are pruned only for the kinds its files
	// list: the rules (an empty list) but not the channels (not listed).
	write("workspace.json", `{"workspaces": [{"id": "default", "alerts": [],
  "calendars": [{"name": "holidays", "timeZone": "Europe/Berlin", "entries": [{"date": "2030-12-25", "label": "Christmas"}]}]}]}`)
	code, out, errOut = run("apply", "--prune", "-f", dir)
	if code != 0 || !strings.Contains(out, "- delete alert rule default/failures") || strings.Contains(out, "channel") ||
		!strings.Contains(out, "Apply complete: 0 created, 0 updated, 1 deleted.") {
		t.Fatalf("apply --prune of a workspace's rules: exit %d\n%s%s", code, out, errOut)
	}
	write("workspace.json", applyWorkspace)
	if code, out, errOut := run("apply", "-f", dir); code != 0 || !strings.Contains(out, "created alert rule default/failures") {
		t.Fatalf("apply of the rule again: exit %d\n%s%s", code, out, errOut)
	}

	// A bad file changes nothing, and names the file and the field: a
	// problem found in the files (before any write) …
	good, _ := os.ReadFile(jobsFile)
	bad := strings.Replace(strings.Replace(string(good), `"frequency": "week"`, `"frequency": "fortnight"`, 1), "westeurope", "northeurope", 1)
	if err := os.WriteFile(jobsFile, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("apply", "-f", dir)
	if code != exitError || !strings.Contains(errOut, jobsFile+": jobCollections[0].jobs[0]: job report: recurrence.frequency:") ||
		!strings.Contains(errOut, "nothing was changed") || out != "" {
		t.Fatalf("apply of a bad file: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if code, out, _ := run("collections", "list", "--output", "json"); code != 0 || !strings.Contains(out, `"location": "westeurope"`) {
		t.Fatalf("a bad file changed the collection: exit %d\n%s", code, out)
	}
	// … and one only the server finds (a calendar the workspace lacks):
	// the server's message, with the file and the field.
	if err := os.WriteFile(jobsFile, []byte(strings.Replace(string(good), `"recurrence": {"frequency": "week"`,
		`"recurrence": {"calendars": {"exclude": ["no-such-calendar"]}, "frequency": "week"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("apply", "-f", dir)
	if code != exitError || !strings.Contains(errOut, jobsFile+": jobCollections[0].jobs[0]: job default/ops/nightly/report: the server refused it (400") ||
		!strings.Contains(errOut, "recurrence.calendars.exclude[0]") {
		t.Fatalf("apply refused by the server: exit %d, want 1\n%s%s", code, out, errOut)
	}

	// A job the operators paused stays paused through an update of a
	// file that does not give its state.
	reportPath := "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly/jobs/report?api-version=2016-03-01"
	apiDo(t, env, http.MethodPatch, reportPath, `{"properties": {"state": "Disabled", "stateNote": "target under maintenance"}}`)
	if err := os.WriteFile(jobsFile, []byte(strings.Replace(string(good), `"hours": [8]`, `"hours": [9]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("apply", "-f", dir); code != 0 || !strings.Contains(out, "updated job default/ops/nightly/report") {
		t.Fatalf("apply to a paused job: exit %d\n%s%s", code, out, errOut)
	}
	if got := apiDo(t, env, http.MethodGet, reportPath, ""); !strings.Contains(got, `"state":"disabled"`) ||
		!strings.Contains(got, `"stateNote":"target under maintenance"`) || !strings.Contains(got, `"hours":[9]`) {
		t.Errorf("the update did not keep the pause:\n%s", got)
	}

	// Exit status 1, never 2, for every error of diff and apply.
	if code, _, errOut := runForTest([]string{"diff", "-f", dir}, map[string]string{}, ""); code != exitError ||
		!strings.Contains(errOut, "--server URL or set SKED_SERVER") || !strings.Contains(errOut, "--token TOKEN or set SKED_TOKEN") {
		t.Errorf("diff without a server: exit %d, want 1: %s", code, errOut)
	}
	if code, _, errOut := run("diff", "-f", filepath.Join(dir, "missing")); code != exitError || !strings.Contains(errOut, "missing") {
		t.Errorf("diff of a missing path: exit %d, want 1: %s", code, errOut)
	}
}

// reportHours is the hours of the job "report" as the server shows it.
func reportHours(t *testing.T, run func(...string) (int, string, string)) string {
	t.Helper()
	code, out, errOut := run("jobs", "show", "report", "--resource-group", "ops", "--collection", "nightly", "--output", "json")
	if code != 0 {
		t.Fatalf("jobs show: exit %d\n%s%s", code, out, errOut)
	}
	var j struct {
		Properties struct {
			Recurrence struct {
				Schedule struct {
					Hours json.RawMessage `json:"hours"`
				} `json:"schedule"`
			} `json:"recurrence"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("jobs show --output json: %v\n%s", err, out)
	}
	return strings.Join(strings.Fields(string(j.Properties.Recurrence.Schedule.Hours)), "")
}
