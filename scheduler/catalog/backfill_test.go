package catalog_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// TestBackfillDryRunIsTheRecurrenceCoresOccurrences: a dry run lists the
// occurrences of the job's rule, calendars applied, in [from, to) (from
// included, to excluded), as the recurrence core computes them, and
// changes nothing; a range of more than MaxBackfillOccurrences is a 400
// naming to.
func TestBackfillDryRunIsTheRecurrenceCoresOccurrences(t *testing.T) {
	e := newEnv(t)
	cal := `{"timeZone":"Europe/Berlin","entries":[{"from":"2026-11-07","to":"2026-11-09"},{"date":"2026-11-11"},{"yearly":"11-17"}]}`
	if _, _, err := e.cat.PutCalendar(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "closed", []byte(cal)); err != nil {
		t.Fatal(err)
	}
	coll := e.putCollection("rg", "jc", `{}`)
	def := `{"startTime":"2026-10-01T00:00:00","action":{"type":"https","request":{"uri":"https://example.com/hook","method":"GET"}},
		"recurrence":{"frequency":"day","schedule":{"hours":[6,18],"minutes":[30]},"timeZone":"Europe/Berlin",
		"calendars":{"exclude":["closed"]}}}`
	job := e.putJob(coll, "twice-daily", def)
	from := time.Date(2026, 11, 3, 6, 30, 0, 0, time.FixedZone("CET", 3600)) // an occurrence: included
	to := time.Date(2026, 11, 20, 5, 30, 0, 0, time.UTC)                     // 06:30 in Berlin: excluded
	before := e.fingerprint()
	res, err := e.cat.Backfill(e.ctx, catalog.System("test"), coll, job, catalog.BackfillInput{From: from, To: to,
		Only: models.BackfillMissing, Order: models.BackfillOldestFirst, MaxConcurrent: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backfill != nil || e.fingerprint() != before {
		t.Error("a dry run wrote something")
	}

	// The recurrence core, asked directly: the rule of a job with this
	// startTime created at from (the job itself was created after the
	// range, and the engine's rule begins at its creation).
	pj, err := jobdef.Parse([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	c, err := caldef.Parse([]byte(cal))
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := recurrence.CompileCalendar("closed", c)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := recurrence.CompileWith(pj, from, recurrence.Options{Calendars: recurrence.Calendars{"closed": compiled}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for at, ok := rule.Next(from.Add(-time.Second)); ok && at.Before(to); at, ok = rule.Next(at) {
		want = append(want, at.UTC().Format(time.RFC3339))
	}
	var got []string
	for _, d := range res.Decisions {
		got = append(got, d.ExpectedTime.UTC().Format(time.RFC3339))
		if d.Action != models.BackfillRun {
			t.Errorf("%s: %s %s, want run (nothing ran)", d.ExpectedTime, d.Action, d.Reason)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the dry run lists\n%v\nthe recurrence core\n%v", got, want)
	}
	// 17 days, 2 a day, less 5 excluded days (7–9, 11, 17 November).
	if len(got) != 2*(17-5) || got[0] != "2026-11-03T05:30:00Z" {
		t.Errorf("%d occurrences from %s, want %d from the first", len(got), got[0], 2*(17-5))
	}
	for _, day := range []string{"2026-11-07", "2026-11-08", "2026-11-09", "2026-11-11", "2026-11-17"} {
		if strings.Contains(strings.Join(got, " "), day) {
			t.Errorf("an occurrence on the excluded day %s", day)
		}
	}

	// Every minute for more than a week: over the limit, naming to.
	minutely := e.putJob(coll, "minutely", `{"startTime":"2026-10-01T00:00:00Z","action":{"type":"https","request":{"uri":"https://example.com/hook","method":"GET"}},
		"recurrence":{"frequency":"minute","interval":1}}`)
	_, err = e.cat.Backfill(e.ctx, catalog.System("test"), coll, minutely, catalog.BackfillInput{From: from, To: from.Add(8 * 24 * time.Hour),
		Only: models.BackfillAll, Order: models.BackfillOldestFirst, MaxConcurrent: 1, DryRun: true})
	var pl *problem.List
	if !errors.As(err, &pl) || pl.Problems[0].Path != "to" || !strings.Contains(pl.Problems[0].Message, "10000") {
		t.Errorf("a range of 11,520 occurrences: %v", err)
	}
}

// TestParseBackfill: defaults, and every bad field named.
func TestParseBackfill(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	in, err := catalog.ParseBackfill([]byte(`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00+01:00"}`), now)
	if err != nil {
		t.Fatal(err)
	}
	if in.Only != models.BackfillMissing || in.Order != models.BackfillOldestFirst || in.MaxConcurrent != 1 || in.DryRun ||
		!in.To.Equal(time.Date(2026, 11, 1, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("defaults: %+v", in)
	}
	in, err = catalog.ParseBackfill([]byte(`{"FROM":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","only":"FAILED","order":"newestfirst","maxConcurrent":20,"dryRun":true}`), now)
	if err != nil || in.Only != models.BackfillOnlyFailed || in.Order != models.BackfillNewestFirst || in.MaxConcurrent != 20 || !in.DryRun {
		t.Errorf("all given: %+v %v", in, err)
	}
	for _, tc := range []struct{ body, path string }{
		{`{"to":"2026-11-02T00:00:00Z"}`, "from"},
		{`{"from":"yesterday","to":"2026-11-02T00:00:00Z"}`, "from"},
		{`{"from":"2026-11-02T00:00:00Z","to":"2026-11-01T00:00:00Z"}`, "to"},
		{`{"from":"2026-11-02T00:00:00Z","to":"2026-11-22T00:00:00Z"}`, "to"},
		{`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","only":"some"}`, "only"},
		{`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","order":"random"}`, "order"},
		{`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","maxConcurrent":21}`, "maxConcurrent"},
		{`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","maxConcurrent":0}`, "maxConcurrent"},
		{`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","maxConcurrent":"x"}`, "maxConcurrent"},
		{`{"from":"2026-11-01T00:00:00Z","to":"2026-11-02T00:00:00Z","dryRun":"yes"}`, "dryRun"},
		{`[]`, "body"},
	} {
		_, err := catalog.ParseBackfill([]byte(tc.body), now)
		var pl *problem.List
		if !errors.As(err, &pl) || pl.Problems[0].Path != tc.path {
			t.Errorf("%s: %v, want a problem naming %s", tc.body, err, tc.path)
		}
	}
}
