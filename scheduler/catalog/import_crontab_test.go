package catalog_test

import (
	"strings"
	"testing"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// crontabFile has comments, blank lines, environment lines, CRON_TZ=, both
// line forms, a nickname, a refused cron line and a shell command.
const crontabFile = `# nightly jobs
MAILTO=ops@example.com

CRON_TZ=Europe/Berlin
15 5 * * 1-5 https://example.com/report
*/7 * * * * POST http://api.example.org:8080/tick
CRON_TZ=UTC
@daily delete https://example.com/cleanup
0 0 1 * 1 https://example.com/or
0 3 * * * /usr/local/bin/backup.sh --all
`

// TestParseCrontab checks how a crontab file becomes jobs: names from the
// line number and host, bodies with recurrence.cron and the zone in force,
// the environment line's warning, and per-line problems naming the line.
func TestParseCrontab(t *testing.T) {
	f, err := catalog.ParseImport([]byte(crontabFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.Shape != catalog.ShapeCrontab || len(f.Jobs) != 5 {
		t.Fatalf("shape %s, %d jobs", f.Shape, len(f.Jobs))
	}
	want := []struct{ path, name, body string }{
		{"line 5", "line-5-example-com", `{"action":{"request":{"method":"GET","uri":"https://example.com/report"},"type":"https"},"recurrence":{"cron":"15 5 * * 1-5","timeZone":"Europe/Berlin"}}`},
		{"line 6", "line-6-api-example-org", `{"action":{"request":{"method":"POST","uri":"http://api.example.org:8080/tick"},"type":"http"},"recurrence":{"cron":"*/7 * * * *","timeZone":"Europe/Berlin"}}`},
		{"line 8", "line-8-example-com", `{"action":{"request":{"method":"DELETE","uri":"https://example.com/cleanup"},"type":"https"},"recurrence":{"cron":"@daily","timeZone":"UTC"}}`},
		{"line 9", "line-9-example-com", `{"action":{"request":{"method":"GET","uri":"https://example.com/or"},"type":"https"},"recurrence":{"cron":"0 0 1 * 1","timeZone":"UTC"}}`},
	}
	for i, w := range want {
		j := f.Jobs[i]
		if j.Path != w.path || j.Name != w.name || string(j.Body) != w.body || len(j.Problems) != 0 || j.Collection != -1 || j.CollectionName != "" {
			t.Errorf("job %d: %s %s %s %v", i, j.Path, j.Name, j.Body, j.Problems)
		}
	}
	if w := f.Jobs[0].Warnings; len(w) != 1 || !strings.HasPrefix(w[0], "line 2: MAILTO is ignored") {
		t.Errorf("warnings %q", w)
	}
	if len(f.Jobs[1].Warnings) != 0 {
		t.Errorf("the warning repeats: %q", f.Jobs[1].Warnings)
	}
	shell := f.Jobs[4]
	if shell.Path != "line 10" || len(shell.Problems) != 1 || !strings.Contains(shell.Problems[0].Message, "not shell commands") {
		t.Errorf("shell line: %s %v", shell.Path, shell.Problems)
	}

	for name, tc := range map[string]struct{ file, want string }{
		"bad zone":    {"CRON_TZ=Mars/Base\n0 5 * * * https://example.com/", `file: line 1: CRON_TZ=Mars/Base: "Mars/Base" is not a known IANA or Windows time zone`},
		"no job":      {"# nothing\nSHELL=/bin/sh\n", "file: holds no job"},
		"JSON broken": {`{"startTime": `, "file: not valid JSON"},
	} {
		_, err := catalog.ParseImport([]byte(tc.file))
		if ve := problem.As(err); ve == nil || !strings.HasPrefix(ve.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", name, err, tc.want)
		}
	}
	for _, line := range []string{"0 5 * * https://example.com/", "0 5 * * * ", "0 5 * * * ftp://example.com/x", "0 5 * * * FETCH https://example.com/"} {
		f, err := catalog.ParseImport([]byte("@hourly https://example.com/\n" + line))
		if err != nil || len(f.Jobs) != 2 || len(f.Jobs[1].Problems) != 1 || f.Jobs[1].Problems[0].Path != "crontab" {
			t.Errorf("%q: %v %+v", line, err, f)
		}
		// A file none of whose lines is a crontab job is neither.
		_, err = catalog.ParseImport([]byte(line))
		if ve := problem.As(err); ve == nil || !strings.HasPrefix(ve.Error(), "file: not valid JSON (a job, an array of jobs, an ARM list or an export bundle), nor a crontab") {
			t.Errorf("%q alone: %v", line, err)
		}
	}
	if err := f.RequireTarget(models.CollectionRef{}); err == nil || !strings.Contains(err.Error(), "a crontab file names no collection") {
		t.Errorf("no target: %v", err)
	}
	if err := f.RequireTarget(ref("rg", "jc")); err != nil {
		t.Error(err)
	}
}

// TestImportCrontab imports a crontab file: a dry run reports every line
// (the refused cron line and the shell command invalid, naming their
// lines) and writes nothing; mode valid writes the valid lines with their
// converted recurrences.
func TestImportCrontab(t *testing.T) {
	e := newEnv(t)
	e.putCollection("rg", "jc", `{"properties": {"sku": {"name": "Standard"}}}`)
	before := e.fingerprint()
	rep, err := e.importFile(crontabFile, catalog.ImportOptions{DryRun: true, PreviewCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e.fingerprint() != before {
		t.Fatal("the dry run changed the database")
	}
	if rep.Summary.Jobs != 5 || rep.Summary.New != 3 || rep.Summary.Invalid != 2 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if j := rep.Jobs[0]; j.Collection != "jc" || j.Description == "" || len(j.NextOccurrences) != 2 || len(j.Warnings) != 1 {
		t.Errorf("line 5: %+v", j)
	}
	if j := rep.Jobs[3]; j.Path != "line 9" || len(j.Problems) != 1 || !strings.HasPrefix(j.Problems[0], "recurrence.cron: standard cron runs when day-of-month OR day-of-week matches") {
		t.Errorf("line 9: %+v", j)
	}
	rep, err = e.importFile(crontabFile, catalog.ImportOptions{Mode: catalog.ModeValid})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Written != 3 {
		t.Fatalf("written %d", rep.Summary.Written)
	}
	var def string
	if err := e.db.QueryRow(`SELECT definition::text FROM jobs WHERE name = 'line-6-api-example-org'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, `"minutes":[0,7,14,21,28,35,42,49,56]`) || strings.Contains(def, "cron") {
		t.Errorf("stored %s", def)
	}
}
