package plan_test

import (
	"testing"
	"time"

	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// TestDecideSpread: with a spread window the planner stores due times,
// runs each occurrence under its nominal time once it is due, measures
// lateness from the due time, and Upcoming lists the due times.
func TestDecideSpread(t *testing.T) {
	j := job(t, `,"startTime":"2026-01-01T00:00:00Z","recurrence":{"frequency":"hour","window":"PT10M"}`)
	sp := recurrence.SpreadOf(j, 4242)
	if sp.Window != 10*time.Minute {
		t.Fatalf("spread %+v", sp)
	}
	pol := plan.Policy{Grace: time.Minute, Spread: sp}
	base := ts("2025-12-31T23:00:00Z")
	nominal := []time.Time{ts("2026-01-01T00:00:00Z"), ts("2026-01-01T01:00:00Z"), ts("2026-01-01T02:00:00Z")}

	// Scheduling stores the first occurrence's due time.
	d, err := plan.Decide(plan.State{ScheduleBase: &base, NeedsSchedule: true}, pol, compiler(j), base)
	if err != nil {
		t.Fatal(err)
	}
	if d.Next == nil || !d.Next.Equal(sp.Due(nominal[0])) {
		t.Fatalf("scheduled %s, want %s", fmtT(d.Next), fmtT(&nominal[0]))
	}
	if sp.Offset(nominal[0]) == sp.Offset(nominal[1]) && sp.Offset(nominal[1]) == sp.Offset(nominal[2]) {
		t.Fatalf("the offsets do not vary: %v", sp.Offset(nominal[0]))
	}
	st := plan.State{ScheduleBase: &base, NextRunAt: d.Next, ScheduledCount: d.ScheduledCount}
	if got := plan.Upcoming(st, sp, compiler(j), base, 3); len(got) != 3 || !got[0].Equal(sp.Due(nominal[0])) ||
		!got[1].Equal(sp.Due(nominal[1])) || !got[2].Equal(sp.Due(nominal[2])) {
		t.Fatalf("upcoming %v", got)
	}
	// At its due time the occurrence runs under its nominal time, and the
	// next due time is stored.
	d, err = plan.Decide(st, pol, compiler(j), sp.Due(nominal[0]))
	if err != nil {
		t.Fatal(err)
	}
	if d.Run == nil || !d.Run.Equal(nominal[0]) || d.Next == nil || !d.Next.Equal(sp.Due(nominal[1])) {
		t.Fatalf("at the due time: %s", summary(d))
	}
	// Half a grace after the due time (perhaps more than a grace after
	// the nominal time) it still runs: lateness counts from the due time.
	late := sp.Due(nominal[0]).Add(pol.Grace / 2)
	if d, _ = plan.Decide(st, pol, compiler(j), late); d.Run == nil || !d.Run.Equal(nominal[0]) || d.Missed != nil {
		t.Fatalf("half a grace late: %s", summary(d))
	}
	// Missed occurrences are named by their nominal times, and the next
	// one is stored at its due time.
	now := sp.Due(nominal[1]).Add(2 * pol.Grace)
	d, _ = plan.Decide(st, pol, compiler(j), now)
	if d.Missed == nil || d.Missed.Count != 2 || !d.Missed.First.Equal(nominal[0]) || !d.Missed.Last.Equal(nominal[1]) ||
		d.Run != nil || d.Next == nil || !d.Next.Equal(sp.Due(nominal[2])) {
		t.Fatalf("missed: %s", summary(d))
	}
	// Without a window nothing moves.
	j0 := job(t, `,"startTime":"2026-01-01T00:00:00Z","recurrence":{"frequency":"hour"}`)
	if sp0 := recurrence.SpreadOf(j0, 4242); sp0 != (recurrence.Spread{}) {
		t.Fatalf("spread without window: %+v", sp0)
	}
	d, _ = plan.Decide(plan.State{ScheduleBase: &base, NeedsSchedule: true}, plan.Policy{Grace: time.Minute}, compiler(j0), base)
	if d.Next == nil || !d.Next.Equal(nominal[0]) {
		t.Fatalf("no window: %s", summary(d))
	}
}
