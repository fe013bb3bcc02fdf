package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditListShowsCLIWrites makes changes from the command line (a
// workspace, an import) and lists them with sked audit list: each with
// the command line as its actor, filtered and paged; bad flags are usage
// errors naming them.
func TestAuditListShowsCLIWrites(t *testing.T) {
	env := dbEnv(t)
	if code, out, errOut := runForTest([]string{"user", "add", "bob"}, env, "correct horse battery\n"); code != 0 {
		t.Fatalf("user add: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runForTest([]string{"workspace", "add", "team-a", "--owner", "bob"}, env, ""); code != 0 {
		t.Fatalf("workspace add: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "jobs.json")
	jobs := `[{"id": "/subscriptions/team-a/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/nightly",
		"properties": {"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
		"recurrence": {"frequency": "day", "interval": 1}}}]`
	if err := os.WriteFile(file, []byte(jobs), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runForTest([]string{"import", file}, env, ""); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runForTest([]string{"audit", "list", "--workspace", "team-a"}, env, "")
	if code != 0 {
		t.Fatalf("audit list: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"bob (command line)  workspace.create  team-a", "import", "job.put", "resourceGroups/rg/jobCollections/jc/jobs/nightly",
		`recurrence.frequency: — → "day"`, "(command line)  import"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit list does not show %q:\n%s", want, out)
		}
	}
	code, out, errOut = runForTest([]string{"audit", "list", "--workspace", "team-a", "--action", "job", "--limit", "1"}, env, "")
	if code != 0 || strings.Count(out, "job.put") != 1 || strings.Contains(out, "workspace.create") {
		t.Errorf("filtered audit list: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runForTest([]string{"audit", "list", "--workspace", "team-a", "--since", "yesterday"}, env, ""); code != 2 ||
		!strings.Contains(errOut, "--since") {
		t.Errorf("a bad --since: %d %s", code, errOut)
	}
	if code, _, _ := runForTest([]string{"audit", "list"}, env, ""); code != 2 {
		t.Errorf("audit list without --workspace: %d", code)
	}
	if code, _, _ := runForTest([]string{"audit"}, env, ""); code != 2 {
		t.Errorf("bare audit: %d", code)
	}
}
