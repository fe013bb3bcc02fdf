package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

func TestPreviewCommandJSONMatchesTheLibrary(t *testing.T) {
	code, stdout, stderr := runForTest([]string{"preview", "--now", "2026-11-21T10:00:00Z", "-n", "4", "--json"}, nil, seedDaily)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var got struct {
		Occurrences []string `json:"occurrences"`
		Description string   `json:"description"`
		Warnings    []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if strings.Count(stdout, "\n") != 1 {
		t.Errorf("--json printed more than one line:\n%s", stdout)
	}
	want := []string{"2026-11-21T17:15:00Z", "2026-11-22T05:15:00Z", "2026-11-22T17:15:00Z", "2026-11-23T05:15:00Z"}
	if strings.Join(got.Occurrences, " ") != strings.Join(want, " ") {
		t.Errorf("occurrences %v, want %v", got.Occurrences, want)
	}
	job, err := jobdef.Parse([]byte(seedDaily))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := recurrence.Preview(job, time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), 4)
	if err != nil {
		t.Fatal(err)
	}
	libJSON, _ := json.Marshal(lib)
	if strings.TrimSpace(stdout) != string(libJSON) {
		t.Errorf("CLI %s\nlibrary %s", stdout, libJSON)
	}
	if got.Description != lib.Description || got.Description == "" {
		t.Errorf("description %q, library %q", got.Description, lib.Description)
	}
}

func TestPreviewCommandReadsAFileAndPrintsText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.json")
	if err := os.WriteFile(path, []byte(`{"properties": `+seedDaily+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runForTest([]string{"preview", "--now", "2026-11-21T10:00:00Z", "-n", "2", path}, nil, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || lines[1] != "2026-11-21T17:15:00Z" || lines[2] != "2026-11-22T05:15:00Z" {
		t.Errorf("text output:\n%s", stdout)
	}
}

func TestPreviewCommandInvalidInput(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"bad job", []string{"preview"}, `{"recurrence": {"frequency": "weak", "interval": 0}}`,
			[]string{`recurrence.frequency: "weak" is not one of second, minute, hour, day, week, month, year`, "recurrence.interval: 0 is below the minimum of 1", "action: is required"}},
		{"not JSON", []string{"preview"}, `{`, nil},
		{"empty input", []string{"preview"}, ``, nil},
		{"bad now and n", []string{"preview", "--now", "tomorrow", "-n", "1001"}, seedDaily,
			[]string{`--now: "tomorrow" is not an RFC 3339 date-time`, "-n: 1001 is not from 1 to 1000"}},
		{"missing file", []string{"preview", "/no/such/job.json"}, "", []string{"no such file"}},
		{"unknown flag", []string{"preview", "--bogus"}, seedDaily, []string{"flag provided but not defined"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runForTest(tc.args, nil, tc.stdin)
			if code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.TrimSpace(stderr) == "" {
				t.Error("nothing on stderr")
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.Contains(l, w)
				}
				if !found {
					t.Errorf("stderr lacks a line with %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestPreviewCommandWithCalendars previews a job that excludes a calendar
// read from a file, and refuses a missing or bad calendar naming it.
func TestPreviewCommandWithCalendars(t *testing.T) {
	dir := t.TempDir()
	cal := filepath.Join(dir, "holidays.json")
	if err := os.WriteFile(cal, []byte(`{"entries":[{"date":"2026-11-22","label":"Day off"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"entries":[{"date":"2026-13-01"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	job := strings.Replace(seedDaily, `"frequency": "day",`, `"frequency": "day", "calendars": {"exclude": ["holidays"]},`, 1)
	code, stdout, stderr := runForTest([]string{"preview", "--now", "2026-11-21T10:00:00Z", "-n", "3", "--json", "--calendar", "holidays=" + cal}, nil, job)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got recurrence.Result
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Occurrences) != 3 || got.Occurrences[1].Format(time.RFC3339) != "2026-11-23T05:15:00Z" ||
		!strings.Contains(got.Description, "except on holidays") || len(got.Warnings) != 2 ||
		got.Warnings[0] != "2026-11-22 05:15 is skipped: Day off (holidays)" {
		t.Errorf("preview %s", stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `recurrence.calendars.exclude[0]: there is no calendar named "holidays"`},
		{[]string{"--calendar", "holidays=" + bad}, `--calendar holidays: entries[0].date: "2026-13-01" is not a date`},
		{[]string{"--calendar", "holidays=/no/such/file"}, "--calendar holidays: open /no/such/file"},
		{[]string{"--calendar", "holidays"}, `want NAME=FILE`},
	} {
		code, stdout, stderr := runForTest(append([]string{"preview"}, tc.args...), nil, job)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
