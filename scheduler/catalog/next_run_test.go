package catalog_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/catalog"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// randomJob returns a flat job with a random schedule around now: one-time
// or recurring at every frequency, with or without a schedule, a time zone
// (DST zones among them), a start time in the past, now or the future
// (in UTC or the zone's wall clock), a count or an end time.
func randomJob(r *rand.Rand, now time.Time) string {
	zones := []string{"", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Santiago"}
	zone := zones[r.IntN(len(zones))]
	var parts []string
	switch r.IntN(4) {
	case 0: // no start time: now is the anchor
	case 1:
		start := now.Add(-time.Duration(r.Int64N(int64(400 * 24 * time.Hour)))).Truncate(time.Minute)
		parts = append(parts, startTime(start, zone))
	case 2:
		start := now.Add(time.Duration(r.Int64N(int64(40 * 24 * time.Hour)))).Truncate(time.Second)
		parts = append(parts, startTime(start, zone))
	default:
		parts = append(parts, startTime(now, zone))
	}
	parts = append(parts, `"action": {"type": "http", "request": {"uri": "https://example.com/p", "method": "GET"}}`)
	if r.IntN(8) > 0 {
		freqs := []string{"minute", "hour", "day", "week", "month"}
		freq := freqs[r.IntN(len(freqs))]
		rec := []string{fmt.Sprintf(`"frequency": %q, "interval": %d`, freq, 1+r.IntN(5))}
		if zone != "" {
			rec = append(rec, fmt.Sprintf(`"timeZone": %q`, zone))
		}
		if freq != "minute" && r.IntN(2) == 0 {
			sched := []string{fmt.Sprintf(`"hours": [%d, %d], "minutes": [%d]`, r.IntN(4), 2+r.IntN(22), r.IntN(60))}
			switch freq {
			case "week":
				sched = append(sched, `"weekDays": ["sunday", "wednesday"]`)
			case "month":
				if r.IntN(2) == 0 {
					sched = append(sched, `"monthDays": [1, 29, 31]`)
				} else {
					sched = append(sched, `"monthlyOccurrences": [{"day": "sunday", "occurrence": -1}]`)
				}
			}
			rec = append(rec, `"schedule": {`+strings.Join(sched, ", ")+`}`)
		}
		switch r.IntN(5) {
		case 0:
			rec = append(rec, fmt.Sprintf(`"count": %d`, 1+r.IntN(4)))
		case 1:
			rec = append(rec, fmt.Sprintf(`"endTime": %q`, now.Add(time.Duration(r.Int64N(int64(60*24*time.Hour)))-5*24*time.Hour).UTC().Format(time.RFC3339)))
		}
		parts = append(parts, `"recurrence": {`+strings.Join(rec, ", ")+`}`)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// startTime is the startTime field for t: UTC with an offset, or the
// zone's wall clock without one.
func startTime(t time.Time, zone string) string {
	if zone == "" {
		return fmt.Sprintf(`"startTime": %q`, t.UTC().Format(time.RFC3339))
	}
	loc, _ := time.LoadLocation(zone)
	return fmt.Sprintf(`"startTime": %q`, t.In(loc).Format("2006-01-02T15:04:05"))
}

// expectFirstRun is the engine planner's first run for a stored job: its
// rule compiled from the stored definition for the stored schedule base,
// as the engine compiles it, and plan.Upcoming and plan.Decide for a job
// to schedule at that base.
func expectFirstRun(t *testing.T, def json.RawMessage, base time.Time) *time.Time {
	t.Helper()
	job, err := jobdef.ParseWith(def, jobdef.Options{SecretsOptional: true})
	if err != nil {
		t.Fatalf("stored definition %s: %v", def, err)
	}
	compile := func(b time.Time) (plan.Rule, error) { return recurrence.CompileWith(job, b, recurrence.Options{}) }
	st := plan.State{ScheduleBase: &base, NeedsSchedule: true}
	d, err := plan.Decide(st, plan.Policy{Misfire: job.MisfirePolicy, Concurrency: job.Concurrency, Grace: time.Minute}, compile, base)
	if err != nil {
		t.Fatal(err)
	}
	up := plan.Upcoming(st, recurrence.Spread{}, compile, base, 1)
	if (d.Next == nil) != (len(up) == 0) || (d.Next != nil && !d.Next.Equal(up[0])) {
		t.Fatalf("Decide %v and Upcoming %v disagree for %s", d.Next, up, def)
	}
	return d.Next
}

// TestImportStoresThePlannersFirstRun imports varied random jobs at
// several clocks (ordinary days and the days clocks change in the zones
// used) and checks that no job is left for an engine to schedule and that
// every enabled job's next run is what the engine's planner says for it
// at its schedule base (the catalog's clock).
func TestImportStoresThePlannersFirstRun(t *testing.T) {
	clocks := []time.Time{
		testNow,
		time.Date(2026, 3, 29, 0, 59, 30, 0, time.UTC),  // Berlin springs forward at 01:00Z
		time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC),   // New York falls back at 06:00Z
		time.Date(2026, 4, 4, 14, 45, 0, 0, time.UTC),   // Lord Howe falls back half an hour at 15:00Z
		time.Date(2026, 9, 6, 3, 59, 59, 500, time.UTC), // Santiago springs forward at 04:00Z
	}
	r := rand.New(rand.NewPCG(11, 9))
	for ci, now := range clocks {
		t.Run(now.Format(time.RFC3339), func(t *testing.T) {
			e := newEnv(t)
			cat := catalog.New(e.store, func() time.Time { return now })
			var jobs []string
			srcs := map[string]string{}
			for i := range 400 {
				src := randomJob(r, now)
				name := fmt.Sprintf("j%d_%d", ci, i)
				srcs[name] = src
				jobs = append(jobs, `{"name": "`+name+`", `+src[1:])
			}
			file := `{"jobCollections": [{"id": "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/p",
				"properties": {"sku": {"name": "P20Premium"}}, "jobs": [` + strings.Join(jobs, ",") + `]}]}`
			f, err := catalog.ParseImport([]byte(file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := cat.Import(e.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{})
			if err != nil {
				t.Fatalf("import: %v (%+v)", err, rep.Summary)
			}
			if rep.Summary.Written != 400 {
				t.Fatalf("written %d, want 400", rep.Summary.Written)
			}
			rows, err := e.db.Query(`SELECT name, definition, state, schedule_base, next_run_at, needs_schedule FROM jobs`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			enabled := 0
			for rows.Next() {
				var name, state string
				var def json.RawMessage
				var base, next *time.Time
				var needs bool
				if err := rows.Scan(&name, &def, &state, &base, &next, &needs); err != nil {
					t.Fatal(err)
				}
				if needs {
					t.Errorf("%s %s: needs_schedule is true", name, srcs[name])
				}
				if state != string(jobdef.Enabled) {
					if next != nil {
						t.Errorf("%s (%s): next run %v", name, state, next)
					}
					continue
				}
				enabled++
				if base == nil || !base.Equal(now.Truncate(time.Microsecond)) {
					t.Errorf("%s: schedule base %v, want the catalog's clock %v", name, base, now)
					continue
				}
				want := expectFirstRun(t, def, *base)
				if next == nil || want == nil || !next.Equal(*want) {
					t.Errorf("%s %s: next run %v, the planner says %v", name, srcs[name], next, want)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if enabled < 300 {
				t.Errorf("only %d enabled jobs of 400: the generator should make most jobs run", enabled)
			}
		})
	}
}

// TestImportPlansDueJobsAgainWhenItWrites checks that a job whose first
// run passed while the import was checked (a job to run at once, a start
// time the check overtook) is scheduled from the moment the import writes
// it, while a job whose first run is still ahead keeps the schedule base
// and first run it was checked with.
func TestImportPlansDueJobsAgainWhenItWrites(t *testing.T) {
	e := newEnv(t)
	checked, written := testNow, testNow.Add(90*time.Second+250*time.Millisecond)
	now := checked
	cat := catalog.New(e.store, func() time.Time { return now })
	soon := checked.Add(30 * time.Second).Format(time.RFC3339)
	later := checked.Add(time.Hour).Format(time.RFC3339)
	file := "[" + strings.Join([]string{
		`{"name": "atonce", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "minute", "interval": 10}}`,
		`{"name": "soon", "startTime": "` + soon + `", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "hour"}}`,
		`{"name": "later", "startTime": "` + later + `", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}}`,
	}, ",") + "]"
	f, err := catalog.ParseImport([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	opts := catalog.ImportOptions{Progress: func(done, total int) {
		if done == total {
			now = written // the check is over: the import writes later
		}
	}}
	if _, err := cat.Import(e.ctx, catalog.System("test"), "", ref("rg", "jc"), f, opts); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]time.Time{
		"atonce": {written, written.Truncate(time.Second)},
		"soon":   {written, checked.Add(30*time.Second + time.Hour)},
		"later":  {checked, checked.Add(time.Hour)},
	}
	for name, w := range want {
		var base, next time.Time
		var needs bool
		if err := e.db.QueryRow(`SELECT schedule_base, next_run_at, needs_schedule FROM jobs WHERE name = $1`, name).
			Scan(&base, &next, &needs); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if needs || !base.Equal(w[0]) || !next.Equal(w[1]) {
			t.Errorf("%s: base %v next %v needs_schedule %v, want base %v next %v", name, base, next, needs, w[0], w[1])
		}
	}
}

// TestPutJobStoresThePlannersFirstRun checks that a job created, replaced
// with a new definition, or re-enabled by PUT gets its first run from the
// planner at once, and that a re-enabled job whose count already ran
// occurrences is left to the engine (the planner needs its count).
func TestPutJobStoresThePlannersFirstRun(t *testing.T) {
	e := newEnv(t)
	jc := e.putCollection("rg", "jc", `{"properties": {"sku": {"name": "Standard"}}}`)
	check := func(name string, wantPlanned bool) {
		t.Helper()
		var def json.RawMessage
		var base, next *time.Time
		var needs bool
		if err := e.db.QueryRow(`SELECT definition, schedule_base, next_run_at, needs_schedule FROM jobs WHERE name = $1`, name).
			Scan(&def, &base, &next, &needs); err != nil {
			t.Fatal(err)
		}
		if !wantPlanned {
			if !needs || next != nil {
				t.Errorf("%s: needs_schedule %v next %v, want it left to the engine", name, needs, next)
			}
			return
		}
		want := expectFirstRun(t, def, *base)
		if needs || next == nil || want == nil || !next.Equal(*want) {
			t.Errorf("%s: needs_schedule %v next %v, want %v", name, needs, next, want)
		}
	}
	e.putJob(jc, "daily", seedJob)
	check("daily", true)
	e.putJob(jc, "daily", berlinJob)
	check("daily", true)
	counted := `{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "hour", "count": 3}}`
	j := e.putJob(jc, "counted", counted)
	check("counted", true)
	e.exec(`UPDATE jobs SET state = 'disabled', next_run_at = NULL, scheduled_count = 2 WHERE id = $1`, j.ID)
	e.putJob(jc, "counted", counted)
	check("counted", false)
}

// TestPutJobWithoutStartTimeRunsAtCreation checks that a one-time job
// without startTime, created between two whole seconds, is stored enabled
// and due at once (occurrences are whole seconds: its only one is the
// second of its creation, just before the catalog's clock).
func TestPutJobWithoutStartTimeRunsAtCreation(t *testing.T) {
	e := newEnv(t)
	jc := e.putCollection("rg", "jc", `{"properties": {"sku": {"name": "Standard"}}}`)
	cat := catalog.New(e.store, func() time.Time { return testNow.Add(500 * time.Millisecond) })
	j, _, err := cat.PutJob(e.ctx, catalog.System("test"), jc, "once",
		[]byte(`{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if j.State != jobdef.Enabled || j.NextRunAt == nil || j.NextRunAt.After(testNow.Add(500*time.Millisecond)) {
		t.Errorf("state %s, next run %v; want enabled and due at once", j.State, j.NextRunAt)
	}
}
