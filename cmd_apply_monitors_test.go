package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// applyMonitors is a workspace file with a heartbeat monitor (as people
// write it: mixed case, a grace in minutes) and an alert rule scoped to
// it.
const applyMonitors = `{"workspaces": [{"id": "default",
  "monitors": [{"name": "legacy-backup", "description": "crontab on db1",
    "schedule": {"frequency": "Day", "interval": 1, "schedule": {"hours": [3], "minutes": [0]}, "timeZone": "Europe/Berlin"},
    "grace": "PT600S", "deadline": {"maxDuration": "PT1H"}}],
  "channels": [{"name": "ops", "type": "Webhook", "properties": {"url": "https://example.com/hook"}}],
  "alerts": [{"name": "backup-down", "channel": "ops", "scope": {"monitor": "legacy-backup"}, "events": ["monitorMissed"]}]}]}`

// TestApplyMonitorsAgainstAServer applies heartbeat monitors with sked
// apply against a real server: created (never with a ping token from the
// file), a second apply changes nothing and keeps the ping URL, the
// server's export carries the monitor without its token, a change
// is an update, --prune deletes a monitor the files no longer hold, and a
// bad monitor names its file and field with nothing changed.
func TestApplyMonitorsAgainstAServer(t *testing.T) {
	env := remoteSked(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	dir := t.TempDir()
	file := filepath.Join(dir, "workspace.json")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pingURL := func() string {
		t.Helper()
		var m struct {
			PingURL string `json:"pingUrl"`
			Grace   string `json:"grace"`
		}
		if err := json.Unmarshal([]byte(apiDo(t, env, http.MethodGet, "/api/v1/workspaces/default/monitors/legacy-backup", "")), &m); err != nil {
			t.Fatal(err)
		}
		return m.PingURL + " " + m.Grace
	}
	write(applyMonitors)
	code, out, errOut := run("apply", "-f", dir)
	if code != 0 || !strings.Contains(out, "created monitor default/legacy-backup") || !strings.Contains(out, "Apply complete: 3 created, 0 updated, 0 deleted.") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Index(out, "monitor default/legacy-backup") > strings.Index(out, "alert rule default/backup-down") {
		t.Errorf("the monitor is not created before the rule that names it:\n%s", out)
	}
	first := pingURL()
	if !strings.Contains(first, "/ping/") || !strings.HasSuffix(first, " PT10M") {
		t.Fatalf("stored monitor: %s", first)
	}
	code, out, errOut = run("apply", "-f", dir)
	if code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("second apply: exit %d, want no changes\n%s%s", code, out, errOut)
	}
	if pingURL() != first {
		t.Error("a second apply changed the ping URL")
	}
	// The server's export carries the monitor (without its ping token),
	// and is a file apply takes with nothing to change.
	export := apiDo(t, env, http.MethodGet, "/api/v1/export?subscription=default", "")
	if !strings.Contains(export, `"monitors"`) || !strings.Contains(export, `"legacy-backup"`) || !strings.Contains(export, `"grace": "PT10M"`) ||
		strings.Contains(export, "hb_") || strings.Contains(export, "/ping/") {
		t.Errorf("export:\n%s", export)
	}
	exported := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(exported, []byte(export), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("diff", "-f", exported); code != 0 || !strings.Contains(out, "No changes") {
		t.Errorf("diff of the server's export: exit %d, want 0\n%s%s", code, out, errOut)
	}
	write(strings.Replace(applyMonitors, `"PT600S"`, `"PT15M"`, 1))
	code, out, errOut = run("diff", "-f", dir)
	if code != exitChanges || !strings.Contains(out, "~ update monitor default/legacy-backup") || !strings.Contains(out, "PT15M") {
		t.Fatalf("diff of a change: exit %d, want 2\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("apply", "-f", dir); code != 0 || !strings.Contains(out, "updated monitor default/legacy-backup") {
		t.Fatalf("apply of a change: exit %d\n%s%s", code, out, errOut)
	}
	// A bad monitor: the file and the field, nothing changed.
	write(strings.Replace(applyMonitors, `"PT600S"`, `"P9D"`, 1))
	code, _, errOut = run("apply", "-f", dir)
	if code == 0 || !strings.Contains(errOut, file+": workspaces[0].monitors[0].grace") {
		t.Errorf("a bad grace: exit %d %s", code, errOut)
	}
	if got := pingURL(); !strings.HasSuffix(got, " PT15M") {
		t.Errorf("a refused file changed the monitor: %s", got)
	}
	// --prune deletes the monitor (and the rule) the files no longer hold.
	write(`{"workspaces": [{"id": "default", "monitors": [], "alerts": []}]}`)
	code, out, errOut = run("apply", "--prune", "-f", dir)
	if code != 0 || !strings.Contains(out, "deleted monitor default/legacy-backup") || !strings.Contains(out, "deleted alert rule default/backup-down") {
		t.Fatalf("apply --prune: exit %d\n%s%s", code, out, errOut)
	}
}
