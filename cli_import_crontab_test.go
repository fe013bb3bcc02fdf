package main

import (
	"strings"
	"testing"
)

// TestImportCrontabCommand imports a crontab file with sked import: without
// a target it is refused before the database is opened; a dry run prints
// the report table (the refused line named by its line number) and exits 2
// for the invalid line; mode valid writes the rest.
func TestImportCrontabCommand(t *testing.T) {
	crontab := "# ops\nCRON_TZ=Europe/Berlin\n15 5 * * 1-5 https://example.com/report\n0 0 1 * 1 POST https://example.com/or\n"
	code, stdout, stderr := runForTest([]string{"import", "-"}, map[string]string{"SKED_DATA_DIR": t.TempDir()}, crontab)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "a crontab file names no collection") {
		t.Fatalf("no target: exit %d %q %q", code, stdout, stderr)
	}
	env := dbEnv(t)
	file := writeFile(t, "crontab", crontab)
	target := []string{"--resource-group", "rg", "--collection", "jc"}
	code, stdout, stderr = runForTest(append([]string{"import", file, "--dry-run"}, target...), env, "")
	if code != exitUsage {
		t.Fatalf("dry run: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"line-3-example-com", "At 05:15 on Monday to Friday", "line-4-example-com",
		"2 jobs: 1 new, 0 to replace, 0 to skip, 1 invalid. Dry run: nothing was written."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "line 4 (jc/line-4-example-com): recurrence.cron: standard cron runs when day-of-month OR day-of-week matches") {
		t.Errorf("stderr %q", stderr)
	}
	code, stdout, stderr = runForTest(append([]string{"import", file, "--mode", "valid"}, target...), env, "")
	if code != exitUsage || !strings.Contains(stdout, "Imported 1 jobs.") {
		t.Fatalf("mode valid: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runForTest([]string{"export", "--resource-group", "rg", "--collection", "jc"}, env, "")
	if code != 0 || !strings.Contains(stdout, `"weekDays": [`) || strings.Contains(stdout, "cron") {
		t.Errorf("export: exit %d %s %s", code, stdout, stderr)
	}
}
