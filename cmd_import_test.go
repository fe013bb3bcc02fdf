package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportCommandInvalidInput(t *testing.T) {
	// The bad files and flags are refused before the database is opened
	// (the data directory does not exist and is never created).
	noDB := map[string]string{"SKED_DATA_DIR": filepath.Join(t.TempDir(), "never")}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no file", []string{"import"}, "", "usage: sked import FILE"},
		{"missing file", []string{"import", filepath.Join(t.TempDir(), "nope.json")}, "", "no such file or directory"},
		{"not JSON", []string{"import", "-"}, `{"startTime": `, "file: not valid JSON: unexpected end of JSON input (at byte 14)"},
		{"wrong shape", []string{"import", "-"}, `[1] [2]`, "file: not valid JSON"},
		{"a number", []string{"import", "-"}, `7`, "file: must be a job, an array of jobs"},
		{"bad mode", []string{"import", "-", "--mode", "most"}, seedDaily, `--mode "most" is not all or valid`},
		{"bad on-conflict", []string{"import", "-", "--on-conflict", "merge"}, seedDaily, `--on-conflict "merge" is not replace or skip`},
		{"collection without group", []string{"import", "-", "--collection", "jc"}, seedDaily, "give --resource-group and --collection together"},
	} {
		code, stdout, stderr := runForTest(tc.args, noDB, tc.stdin)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", tc.name, code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(noDB["SKED_DATA_DIR"]); !os.IsNotExist(err) {
		t.Errorf("the data directory was created: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 50<<20+1); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runForTest([]string{"import", big}, noDB, "")
	if code != exitUsage || !strings.Contains(stderr, "is 52428801 bytes, over the maximum of 52428800 (50 MB)") {
		t.Errorf("a file over 50 MB: exit %d, %q", code, stderr)
	}

	// Invalid jobs: mode all writes nothing, mode valid the valid ones;
	// both exit 2 with the problems on stderr.
	env := dbEnv(t)
	bad := `{"name": "bad", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "minute", "interval": 2000}}`
	file := writeFile(t, "jobs.json", "["+namedSeedJob("good")+", "+bad+"]")
	code, stdout, stderr := runForTest([]string{"import", file, "--resource-group", "rg", "--collection", "jc"}, env, "")
	if code != exitUsage || !strings.Contains(stdout, "invalid  rg/jc       bad   -") || !strings.Contains(stdout, "Nothing was written.") ||
		stderr != "nothing was imported:\n[1].recurrence.interval: 2000 is over the maximum of 1000 for frequency \"minute\"\n" {
		t.Errorf("mode all: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runForTest([]string{"import", file, "--mode", "valid", "--resource-group", "rg", "--collection", "jc"}, env, "")
	if code != exitUsage || !strings.Contains(stdout, "Imported 1 jobs.") ||
		stderr != "[1] (jc/bad): recurrence.interval: 2000 is over the maximum of 1000 for frequency \"minute\"\n" {
		t.Errorf("mode valid: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Flat jobs without a target collection.
	code, _, stderr = runForTest([]string{"import", "-"}, env, seedDaily)
	if code != exitUsage || !strings.Contains(stderr, "jobCollection: the job does not name its collection") {
		t.Errorf("no target: exit %d, %q", code, stderr)
	}
}

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
