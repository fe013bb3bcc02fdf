package plan_test

import (
	"fmt"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// job parses the job properties props (action added).
func job(t testing.TB, props string) *jobdef.Job {
	t.Helper()
	body := `{"action":{"type":"http","request":{"method":"GET","uri":"https://example.com/"}}` + props + `}`
	j, err := jobdef.Parse([]byte(body))
	if err != nil {
		t.Fatalf("job %s: %v", body, err)
	}
	return j
}

// compiler compiles j for a schedule base.
func compiler(j *jobdef.Job) plan.Compile {
	return func(base time.Time) (plan.Rule, error) { return recurrence.Compile(j, base) }
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func tp(s string) *time.Time {
	if s == "" {
		return nil
	}
	t := ts(s)
	return &t
}

func fmtT(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// summary is a Decision in one comparable line.
func summary(d plan.Decision) string {
	s := fmt.Sprintf("next=%s run=%s sched=%d", fmtT(d.Next), fmtT(d.Run), d.ScheduledCount)
	if d.Overlap != nil {
		s += " overlap=" + fmtT(d.Overlap)
	}
	if m := d.Missed; m != nil {
		s += fmt.Sprintf(" missed=%d:%s..%s", m.Count, fmtT(&m.First), fmtT(&m.Last))
		if m.AtLeast {
			s += "+"
		}
		if m.RunOnce {
			s += ",runOnce"
		}
	}
	if d.Rebase != nil {
		s += " rebase=" + fmtT(d.Rebase)
	}
	if d.End != "" {
		s += " end=" + string(d.End)
	}
	return s
}

// Rows in the style of robfig/cron's spec_test.go: a job, its engine state
// and a moment, and the decision. base "" means the schedule base is now;
// next "" with schedule false means the job waits for nothing.
func TestDecide(t *testing.T) {
	const (
		hourly   = `,"recurrence":{"frequency":"hour","interval":1}`
		minutely = `,"recurrence":{"frequency":"minute","interval":1}`
		daily6   = `,"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[6],"minutes":[0]}}`
		chicago1 = `,"recurrence":{"frequency":"day","schedule":{"hours":[1],"minutes":[30]},"timeZone":"America/Chicago"}`
		chicago2 = `,"recurrence":{"frequency":"day","schedule":{"hours":[2],"minutes":[30]},"timeZone":"America/Chicago"}`
	)
	grace := time.Minute
	rows := []struct {
		name     string
		props    string
		schedule bool   // NeedsSchedule
		base     string // schedule base ("" = nil: now)
		next     string // NextRunAt
		sched    int64  // ScheduledCount
		open     int64  // OpenAttempts
		faulted  bool   // LastOccurrenceFaulted
		status   jobdef.State
		misfire  jobdef.MisfirePolicy
		conc     jobdef.Concurrency
		now      string
		want     string
	}{
		// SPEC §2's start-time table, scheduled at creation (base = now).
		{name: "once, no startTime: now", props: ``, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T10:00:00Z run=- sched=0"},
		{name: "once, startTime past: now", props: `,"startTime":"2026-02-01T08:00:00Z"`, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T10:00:00Z run=- sched=0"},
		{name: "once, startTime future: startTime", props: `,"startTime":"2026-03-02T08:00:00Z"`, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-02T08:00:00Z run=- sched=0"},
		{name: "interval, no startTime: now", props: hourly, schedule: true,
			now: "2026-03-01T10:00:07Z", want: "next=2026-03-01T10:00:07Z run=- sched=0"},
		{name: "interval, startTime past: anchor+k·interval ≥ now", props: `,"startTime":"2026-01-01T00:20:00Z"` + hourly, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T10:20:00Z run=- sched=0"},
		{name: "interval, startTime future: startTime", props: `,"startTime":"2026-04-01T00:20:00Z"` + hourly, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-04-01T00:20:00Z run=- sched=0"},
		{name: "schedule, no startTime: now", props: daily6, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T10:00:00Z run=- sched=0"},
		{name: "schedule, startTime past: first occurrence ≥ now", props: `,"startTime":"2025-01-01T00:00:00Z"` + daily6, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-02T06:00:00Z run=- sched=0"},
		{name: "schedule, startTime future: first occurrence ≥ startTime", props: `,"startTime":"2026-03-05T07:00:00Z"` + daily6, schedule: true,
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-06T06:00:00Z run=- sched=0"},
		// SPEC §2's worked checks.
		{name: "check week/1", props: `,"startTime":"2015-07-13T00:00:00Z","recurrence":{"frequency":"week","interval":1}`, schedule: true,
			now: "2016-03-30T19:36:33Z", want: "next=2016-04-04T00:00:00Z run=- sched=0"},
		{name: "check month monthDays", props: `,"startTime":"2015-07-13T00:00:00Z","recurrence":{"frequency":"month","interval":1,"schedule":{"hours":[5,10,15,20],"minutes":[0,10,20,30,40,50],"monthDays":[15,30]}}`, schedule: true,
			now: "2016-03-30T19:37:03Z", want: "next=2016-03-30T20:00:00Z run=- sched=0"},
		{name: "check month monthlyOccurrences", props: `,"startTime":"2015-07-13T00:00:00Z","recurrence":{"frequency":"month","interval":1,"schedule":{"hours":[5,10,15,20],"minutes":[0,10,20,30,40,50],"monthlyOccurrences":[{"day":"monday","occurrence":1},{"day":"friday","occurrence":1}]}}`, schedule: true,
			now: "2016-03-30T19:35:16Z", want: "next=2016-04-01T05:00:00Z run=- sched=0"},
		{name: "check minute/1", props: `,"startTime":"2015-05-14T14:10:00Z"` + minutely, schedule: true,
			now: "2016-03-16T19:04:23Z", want: "next=2016-03-16T19:05:00Z run=- sched=0"},
		{name: "check day/2", props: `,"startTime":"2015-04-07T14:00:00Z","recurrence":{"frequency":"day","interval":2}`, schedule: true,
			now: "2015-04-08T13:00:00Z", want: "next=2015-04-09T14:00:00Z run=- sched=0"},
		{name: "check day/2 due", props: `,"startTime":"2015-04-07T14:00:00Z","recurrence":{"frequency":"day","interval":2}`,
			base: "2015-04-08T13:00:00Z", next: "2015-04-09T14:00:00Z", now: "2015-04-09T14:00:00Z",
			want: "next=2015-04-11T14:00:00Z run=2015-04-09T14:00:00Z sched=1"},
		// A job to schedule that no engine saw in time is scheduled from now.
		{name: "base older than grace: rebased", props: hourly, schedule: true, base: "2026-03-01T08:00:00Z",
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T10:00:00Z run=- sched=0 rebase=2026-03-01T10:00:00Z"},
		{name: "base within grace: kept", props: hourly, schedule: true, base: "2026-03-01T09:59:30Z",
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T09:59:30Z run=- sched=0"},
		{name: "no next run and not flagged: scheduled", props: hourly, base: "2026-03-01T09:59:30Z",
			now: "2026-03-01T10:00:00Z", want: "next=2026-03-01T09:59:30Z run=- sched=0"},
		// Due occurrences.
		{name: "due: run and move on", props: `,"startTime":"2026-01-01T00:00:00Z"` + hourly, base: "2026-01-01T00:00:00Z",
			next: "2026-03-01T10:00:00Z", sched: 7, now: "2026-03-01T10:00:00.250Z",
			want: "next=2026-03-01T11:00:00Z run=2026-03-01T10:00:00Z sched=8"},
		{name: "once due: run, then nothing (ends unless it starts)", props: `,"startTime":"2026-03-01T10:00:00Z"`, base: "2026-02-01T00:00:00Z",
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T10:00:00Z",
			want: "next=- run=2026-03-01T10:00:00Z sched=1 end=completed"},
		// count and endTime: the first to end wins.
		{name: "count: last occurrence", props: `,"startTime":"2026-03-01T10:00:00Z","recurrence":{"frequency":"minute","count":3}`,
			base: "2026-03-01T09:00:00Z", next: "2026-03-01T10:02:00Z", sched: 2, now: "2026-03-01T10:02:00Z",
			want: "next=- run=2026-03-01T10:02:00Z sched=3 end=completed"},
		{name: "count: used up at scheduling", props: `,"recurrence":{"frequency":"minute","count":3}`, schedule: true, sched: 3,
			now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=3 end=completed"},
		{name: "count: used up when due", props: `,"recurrence":{"frequency":"minute","count":3}`, base: "2026-03-01T10:00:00Z",
			next: "2026-03-01T10:03:00Z", sched: 3, now: "2026-03-01T10:03:00Z", want: "next=- run=- sched=3 end=completed"},
		{name: "endTime before count", props: `,"startTime":"2026-03-01T10:00:00Z","recurrence":{"frequency":"minute","count":10,"endTime":"2026-03-01T10:01:00Z"}`,
			base: "2026-03-01T09:00:00Z", next: "2026-03-01T10:01:00Z", sched: 1, now: "2026-03-01T10:01:00Z",
			want: "next=- run=2026-03-01T10:01:00Z sched=2 end=completed"},
		{name: "count before endTime", props: `,"startTime":"2026-03-01T10:00:00Z","recurrence":{"frequency":"minute","count":2,"endTime":"2026-03-01T11:00:00Z"}`,
			base: "2026-03-01T09:00:00Z", next: "2026-03-01T10:01:00Z", sched: 1, now: "2026-03-01T10:01:00Z",
			want: "next=- run=2026-03-01T10:01:00Z sched=2 end=completed"},
		{name: "endTime passed at scheduling", props: `,"startTime":"2026-01-01T00:00:00Z","recurrence":{"frequency":"hour","endTime":"2026-02-01T00:00:00Z"}`,
			schedule: true, now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=0 end=completed"},
		{name: "ends faulted after a faulted occurrence", props: `,"recurrence":{"frequency":"minute","count":1}`, schedule: true, sched: 1,
			faulted: true, now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=1 end=faulted"},
		{name: "no end while an attempt is open", props: `,"recurrence":{"frequency":"minute","count":1}`, schedule: true, sched: 1,
			open: 1, now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=1"},
		// Missed occurrences (SPEC §4 misfirePolicy).
		{name: "skip: late minutes skipped, the one within grace runs", props: minutely, base: "2026-03-01T09:00:00Z",
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T10:05:30Z",
			want: "next=2026-03-01T10:06:00Z run=2026-03-01T10:05:00Z sched=1 missed=5:2026-03-01T10:00:00Z..2026-03-01T10:04:00Z"},
		{name: "skip: all missed, next later", props: hourly, base: "2026-03-01T07:00:00Z",
			next: "2026-03-01T08:00:00Z", now: "2026-03-01T10:30:00Z",
			want: "next=2026-03-01T11:00:00Z run=- sched=0 missed=3:2026-03-01T08:00:00Z..2026-03-01T10:00:00Z"},
		{name: "runOnce: the last missed runs", props: hourly, base: "2026-03-01T07:00:00Z", misfire: jobdef.MisfireRunOnce,
			next: "2026-03-01T08:00:00Z", now: "2026-03-01T10:30:00Z",
			want: "next=2026-03-01T11:00:00Z run=2026-03-01T10:00:00Z sched=1 missed=2:2026-03-01T08:00:00Z..2026-03-01T10:00:00Z,runOnce"},
		{name: "runOnce: one missed, no entry", props: hourly, base: "2026-03-01T07:00:00Z", misfire: jobdef.MisfireRunOnce,
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T10:30:00Z",
			want: "next=2026-03-01T11:00:00Z run=2026-03-01T10:00:00Z sched=1"},
		{name: "within grace: not missed", props: hourly, base: "2026-03-01T07:00:00Z",
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T10:00:45Z",
			want: "next=2026-03-01T11:00:00Z run=2026-03-01T10:00:00Z sched=1"},
		{name: "missed one-time job ends", props: `,"startTime":"2026-03-01T10:00:00Z"`, base: "2026-03-01T09:00:00Z",
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T12:00:00Z",
			want: "next=- run=- sched=0 missed=1:2026-03-01T10:00:00Z..2026-03-01T10:00:00Z end=completed"},
		{name: "skipped occurrences do not count", props: `,"recurrence":{"frequency":"hour","count":2}`, base: "2026-03-01T07:00:00Z",
			next: "2026-03-01T08:00:00Z", sched: 1, now: "2026-03-01T10:30:00Z",
			want: "next=2026-03-01T11:00:00Z run=- sched=1 missed=3:2026-03-01T08:00:00Z..2026-03-01T10:00:00Z"},
		{name: "missed for years: at least", props: `,"startTime":"2024-01-01T00:00:00Z"` + minutely, base: "2024-01-01T00:00:00Z",
			next: "2024-01-01T00:00:00Z", now: "2026-03-01T10:00:30Z",
			want: "next=2026-03-01T10:01:00Z run=2026-03-01T10:00:00Z sched=1 missed=1000000:2024-01-01T00:00:00Z..2025-11-25T10:39:00Z+"},
		// Concurrency (SPEC §4 overlap).
		{name: "forbid, previous open: postponed", props: minutely, base: "2026-03-01T09:00:00Z", conc: jobdef.ConcurrencyForbid, open: 1,
			next: "2026-03-01T10:00:00Z", sched: 4, now: "2026-03-01T10:00:00Z",
			want: "next=2026-03-01T10:01:00Z run=- sched=4 overlap=2026-03-01T10:00:00Z"},
		{name: "forbid, nothing open: runs", props: minutely, base: "2026-03-01T09:00:00Z", conc: jobdef.ConcurrencyForbid,
			next: "2026-03-01T10:00:00Z", sched: 4, now: "2026-03-01T10:00:00Z",
			want: "next=2026-03-01T10:01:00Z run=2026-03-01T10:00:00Z sched=5"},
		{name: "allow, previous open: runs", props: minutely, base: "2026-03-01T09:00:00Z", open: 1,
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T10:00:00Z",
			want: "next=2026-03-01T10:01:00Z run=2026-03-01T10:00:00Z sched=1"},
		{name: "forbid: a postponed occurrence does not count", props: `,"recurrence":{"frequency":"minute","count":1}`,
			base: "2026-03-01T09:59:00Z", conc: jobdef.ConcurrencyForbid, open: 1,
			next: "2026-03-01T10:00:00Z", now: "2026-03-01T10:00:00Z",
			want: "next=2026-03-01T10:01:00Z run=- sched=0 overlap=2026-03-01T10:00:00Z"},
		// States: disabled, re-enabled, definition changed, final.
		{name: "disabled: nothing", props: hourly, status: jobdef.Disabled, base: "2026-03-01T07:00:00Z",
			now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=0"},
		{name: "re-enabled: next from now, missed ones not run", props: `,"startTime":"2026-01-01T00:00:00Z"` + daily6, schedule: true,
			base: "2026-03-01T10:00:00Z", sched: 30, now: "2026-03-01T10:00:00Z", want: "next=2026-03-02T06:00:00Z run=- sched=30"},
		{name: "re-enabled interval job: anchor+k·interval", props: `,"startTime":"2020-01-01T00:00:00Z"` + hourly, schedule: true,
			base: "2026-03-01T10:20:00Z", now: "2026-03-01T10:20:00Z", want: "next=2026-03-01T11:00:00Z run=- sched=0"},
		{name: "re-enabled with count used up: ends", props: `,"recurrence":{"frequency":"hour","count":5}`, schedule: true,
			base: "2026-03-01T10:20:00Z", sched: 5, now: "2026-03-01T10:20:00Z", want: "next=- run=- sched=5 end=completed"},
		{name: "definition changed: new rule from the change", props: `,"recurrence":{"frequency":"minute","interval":15,"count":2}`,
			schedule: true, base: "2026-03-01T10:15:00Z", now: "2026-03-01T10:15:00Z", want: "next=2026-03-01T10:15:00Z run=- sched=0"},
		{name: "definition changed: endTime already passed", props: `,"recurrence":{"frequency":"minute","endTime":"2026-03-01T09:00:00Z"}`,
			schedule: true, base: "2026-03-01T10:15:00Z", now: "2026-03-01T10:15:00Z", want: "next=- run=- sched=0 end=completed"},
		{name: "completed: nothing", props: hourly, status: jobdef.Completed, now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=0"},
		{name: "faulted: nothing", props: hourly, status: jobdef.Faulted, now: "2026-03-01T10:00:00Z", want: "next=- run=- sched=0"},
		// Daylight saving (SPEC §2, America/Chicago 2019).
		{name: "spring forward: 02:30 runs at 03:30", props: chicago2, base: "2019-03-01T00:00:00Z",
			next: "2019-03-09T08:30:00Z", now: "2019-03-09T08:30:00Z",
			want: "next=2019-03-10T08:30:00Z run=2019-03-09T08:30:00Z sched=1"},
		{name: "after spring forward: 02:30 CDT", props: chicago2, base: "2019-03-01T00:00:00Z",
			next: "2019-03-10T08:30:00Z", now: "2019-03-10T08:30:00Z",
			want: "next=2019-03-11T07:30:00Z run=2019-03-10T08:30:00Z sched=1"},
		{name: "fall back: 01:30 runs once", props: chicago1, base: "2019-10-01T00:00:00Z",
			next: "2019-11-03T06:30:00Z", now: "2019-11-03T06:30:00Z",
			want: "next=2019-11-04T07:30:00Z run=2019-11-03T06:30:00Z sched=1"},
		{name: "fall back: 02:30", props: chicago2, base: "2019-10-01T00:00:00Z",
			next: "2019-11-02T07:30:00Z", now: "2019-11-02T07:30:00Z",
			want: "next=2019-11-03T08:30:00Z run=2019-11-02T07:30:00Z sched=1"},
		{name: "scheduled on the spring-forward day", props: `,"startTime":"2019-01-01T00:00:00Z"` + chicago2, schedule: true,
			now: "2019-03-10T07:00:00Z", want: "next=2019-03-10T08:30:00Z run=- sched=0"},
		{name: "hourly across fall back: elapsed time", props: `,"startTime":"2019-11-03T05:00:00Z","recurrence":{"frequency":"hour","timeZone":"America/Chicago"}`,
			base: "2019-11-01T00:00:00Z", next: "2019-11-03T06:00:00Z", now: "2019-11-03T06:00:00Z",
			want: "next=2019-11-03T07:00:00Z run=2019-11-03T06:00:00Z sched=1"},
	}
	if len(rows) < 40 {
		t.Fatalf("%d rows, want at least 40", len(rows))
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			j := job(t, r.props)
			st := plan.State{Status: r.status, NeedsSchedule: r.schedule, ScheduleBase: tp(r.base), NextRunAt: tp(r.next),
				ScheduledCount: r.sched, OpenAttempts: r.open, LastOccurrenceFaulted: r.faulted}
			pol := plan.Policy{Misfire: r.misfire, Concurrency: r.conc, Grace: grace}
			now := ts(r.now)
			if r.schedule && r.base == "" {
				st.ScheduleBase = &now
			}
			d, err := plan.Decide(st, pol, compiler(j), now)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(d); got != r.want {
				t.Errorf("\n got %s\nwant %s", got, r.want)
			}
		})
	}
}
