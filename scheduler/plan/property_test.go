package plan_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// randomJob returns the properties of a random valid job around now.
func randomJob(r *rand.Rand, now time.Time) string {
	var b strings.Builder
	if r.IntN(4) > 0 {
		start := now.Add(time.Duration(r.Int64N(int64(800*24*time.Hour))) - 400*24*time.Hour).Truncate(time.Second)
		fmt.Fprintf(&b, `,"startTime":%q`, start.UTC().Format(time.RFC3339))
	}
	if r.IntN(8) == 0 {
		return b.String() // one-time job
	}
	freqs := []string{"minute", "hour", "day", "week", "month"}
	freq := freqs[r.IntN(len(freqs))]
	fmt.Fprintf(&b, `,"recurrence":{"frequency":%q,"interval":%d`, freq, 1+r.IntN(5))
	if freq != "minute" && freq != "hour" && r.IntN(2) == 0 {
		fmt.Fprintf(&b, `,"schedule":{"hours":[%d,%d],"minutes":[%d]`, r.IntN(12), 12+r.IntN(12), r.IntN(60))
		if freq == "month" && r.IntN(2) == 0 {
			fmt.Fprintf(&b, `,"monthDays":[%d,-1]`, 1+r.IntN(28))
		}
		b.WriteString(`}`)
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, `,"count":%d`, 1+r.IntN(6))
	}
	if r.IntN(4) == 0 {
		end := now.Add(time.Duration(r.Int64N(int64(60 * 24 * time.Hour)))).Truncate(time.Second)
		fmt.Fprintf(&b, `,"endTime":%q`, end.UTC().Format(time.RFC3339))
	}
	if r.IntN(3) == 0 {
		zones := []string{"Europe/Berlin", "America/Chicago", "Asia/Kolkata", "Australia/Lord_Howe"}
		fmt.Fprintf(&b, `,"timeZone":%q`, zones[r.IntN(len(zones))])
	}
	b.WriteString(`}`)
	return b.String()
}

// TestDecideMatchesRecurrence: for random jobs created at a random now,
// the planner's first next run is the rule's first execution at or after
// the creation (SPEC §2's start-time table: recurrence.Next from the
// creation), and running every occurrence on time gives exactly the rule's
// executions, no more than recurrence.count.
func TestDecideMatchesRecurrence(t *testing.T) {
	const cases = 2000
	r := rand.New(rand.NewPCG(11, 2026))
	pol := plan.Policy{Grace: time.Minute}
	steps := 0
	for i := range cases {
		now := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(7 * 365 * 24 * time.Hour)))).
			Truncate(time.Second)
		props := randomJob(r, now)
		j := job(t, props)
		rule, err := recurrence.Compile(j, now)
		if err != nil {
			t.Fatalf("case %d %s: %v", i, props, err)
		}
		st := plan.State{Status: jobdef.Enabled, NeedsSchedule: true, ScheduleBase: &now}
		d, err := plan.Decide(st, pol, compiler(j), now)
		if err != nil {
			t.Fatalf("case %d %s: %v", i, props, err)
		}
		want, ok := rule.Next(now.Add(-time.Second))
		if !ok != (d.Next == nil) || (ok && !d.Next.Equal(want)) {
			t.Fatalf("case %d %s at %s: next %s, recurrence %s (%v)", i, props, now.Format(time.RFC3339), fmtT(d.Next), want, ok)
		}
		if ok && j.Recurrence == nil && !want.Equal(maxTime(now, startOf(j, now))) {
			t.Fatalf("case %d %s: one-time job next %s, want max(startTime, now)", i, props, want)
		}
		// Run every occurrence on time.
		runs := 0
		for d.Next != nil && runs < 8 {
			due := *d.Next
			st.NeedsSchedule, st.NextRunAt, st.ScheduledCount = false, d.Next, d.ScheduledCount
			d, err = plan.Decide(st, pol, compiler(j), due)
			if err != nil {
				t.Fatal(err)
			}
			steps++
			if d.Run == nil || !d.Run.Equal(due) {
				t.Fatalf("case %d %s: due %s, ran %s", i, props, due, fmtT(d.Run))
			}
			runs++
			wantNext, ok := rule.Next(due)
			if c := rule.Count(); c > 0 && runs >= c {
				ok = false
			}
			if !ok != (d.Next == nil) || (ok && !d.Next.Equal(wantNext)) {
				t.Fatalf("case %d %s: after %s next %s, recurrence %s (%v)", i, props, due, fmtT(d.Next), wantNext, ok)
			}
		}
		if c := rule.Count(); c > 0 && runs > c {
			t.Fatalf("case %d %s: %d runs, count %d", i, props, runs, c)
		}
	}
	t.Logf("%d random jobs, %d due decisions", cases, steps)
}

func startOf(j *jobdef.Job, now time.Time) time.Time {
	if j.StartTime == nil {
		return now
	}
	return j.StartTime.Time
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
