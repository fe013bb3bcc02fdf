// Package plan is the engine's pure planner (SPEC §2, §4, §12): from a
// job's compiled rule, its engine state, its policies and a moment, it
// decides what is due next and what to record. It reads no clock, no
// database and no metrics: the engine (package engine) gives it its
// clock's now and writes what it decides; the API's nextExecutionTime and
// the pages show what Upcoming returns, so that every part of Sked agrees
// on when a job runs.
package plan

import (
	"fmt"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// Rule is the part of a compiled recurrence the planner needs;
// *recurrence.Rule satisfies it.
type Rule interface {
	// Next returns the first execution strictly after after, false when
	// there is none; it applies endTime but not count.
	Next(after time.Time) (time.Time, bool)
	// Count returns recurrence.count, 0 when there is none.
	Count() int
}

// Compile returns the job's rule compiled for the schedule base base (the
// "creation" of SPEC §2's start-time table).
type Compile func(base time.Time) (Rule, error)

// State is a job's engine state, as stored with it.
type State struct {
	// Status is the job's state; the zero value means enabled.
	Status jobdef.State
	// ScheduleBase is the moment the rule is compiled for: the job's
	// creation, the replacement of its definition or its re-enabling; nil
	// means now.
	ScheduleBase *time.Time
	// NeedsSchedule says the next run must be computed from ScheduleBase
	// (the job was created, changed or enabled since it was last planned).
	NeedsSchedule bool
	// NextRunAt is when the occurrence the job waits for is due (the last
	// one planned): its expected time shifted by the job's spread
	// (Policy.Spread; the expected time itself without a window); nil when
	// it has none.
	NextRunAt *time.Time
	// ScheduledCount counts the occurrences taken from the schedule since
	// the definition was set: what recurrence.count limits.
	ScheduledCount int64
	// OccurrenceCount counts the occurrences started (the history's
	// repeatCount).
	OccurrenceCount int64
	// OpenAttempts counts the job's pending and running attempts: non-zero
	// means an earlier occurrence is still running or waiting for a retry.
	OpenAttempts int64
	// LastOccurrenceFaulted says the most recently ended occurrence
	// faulted: a job that runs out of occurrences then ends faulted.
	LastOccurrenceFaulted bool
}

// Policy are the job's policies and the engine's misfire grace.
type Policy struct {
	// Misfire is misfirePolicy; the zero value means skip.
	Misfire jobdef.MisfirePolicy
	// Concurrency is the job's concurrency; the zero value means allow.
	Concurrency jobdef.Concurrency
	// Grace is how late an occurrence may still start (the engine's
	// MisfireGrace): an occurrence later than this is missed, and a job to
	// schedule whose schedule base is older than this is scheduled from now
	// (no engine saw it when it was created or enabled).
	Grace time.Duration
	// Spread is the job's recurrence.window with its key (SPEC §16.1):
	// each occurrence is due at Spread.Due of its expected time, and its
	// lateness is measured from then. The zero value shifts nothing.
	Spread recurrence.Spread
}

// Decision is what the planner decided for one job at one moment.
type Decision struct {
	// Next is when the job's next occurrence is due (Policy.Spread applied:
	// what is stored as its next run), nil when it has none left.
	Next *time.Time
	// ScheduledCount is the new number of occurrences taken from the
	// schedule.
	ScheduledCount int64
	// Rebase, when not nil, replaces the job's schedule base (see
	// Policy.Grace).
	Rebase *time.Time
	// Run, when not nil, is the expected (nominal) time of an occurrence
	// to start now; it was due at Policy.Spread.Due(*Run).
	Run *time.Time
	// Missed, when not nil, describes the occurrences skipped because they
	// were missed: one Postponed history entry records them.
	Missed *Missed
	// Overlap, when not nil, is the expected time of an occurrence not run
	// because the previous one is still open (concurrency forbid): one
	// Postponed history entry records it.
	Overlap *time.Time
	// End is Completed or Faulted when the job has no occurrence left and
	// nothing open: it ends in that state unless the decision's Run starts
	// (an occurrence that already ran does not start again). Empty
	// otherwise.
	End jobdef.State
}

// Missed describes occurrences skipped because they were missed.
type Missed struct {
	// First and Last are the first and last missed occurrences' expected
	// times (with RunOnce, Last is the one that runs as the catch-up).
	First, Last time.Time
	// Count is how many were skipped; AtLeast says counting stopped at
	// MaxMissedCount.
	Count   int64
	AtLeast bool
	// RunOnce says the last missed occurrence runs as the catch-up
	// (misfirePolicy runOnce) and is not counted in Count.
	RunOnce bool
}

// MaxMissedCount caps how many missed occurrences are counted one by one;
// beyond it Missed.AtLeast is set.
const MaxMissedCount = 1_000_000

// Decide decides, at now, what happens to a job in state st with policy
// pol (SPEC §2 and §4):
//
//   - A job that is not enabled gets nothing.
//   - A job to schedule (NeedsSchedule, or no NextRunAt) gets the first
//     occurrence of its rule compiled for its schedule base (the start-time
//     table), unless recurrence.count is used up; the occurrence is only
//     planned, never run by this decision. A schedule base more than
//     pol.Grace old is replaced by now.
//   - Occurrences are due at their expected times shifted by pol.Spread;
//     lateness is measured from the due time, while Run, Missed and
//     Overlap name expected times.
//   - A due job whose occurrence is more than pol.Grace late has missed
//     occurrences: they are skipped (Missed) and the next one within the
//     grace runs; with misfirePolicy runOnce the last missed occurrence
//     runs at once instead.
//   - With concurrency forbid, an occurrence whose job still has an open
//     attempt is not run (Overlap).
//   - Skipped and overlapping occurrences do not count against
//     recurrence.count; run occurrences do.
//   - A job left without occurrence and with nothing open ends (End).
//   - A triggered job (a rule with Triggered() true, SPEC §17.1) gets
//     nothing: no next run, no end.
//
// It returns an error when the rule cannot be compiled.
func Decide(st State, pol Policy, compile Compile, now time.Time) (Decision, error) {
	if st.Status != "" && st.Status != jobdef.Enabled {
		return Decision{}, nil
	}
	base := now
	if st.ScheduleBase != nil {
		base = *st.ScheduleBase
	}
	d := Decision{ScheduledCount: st.ScheduledCount}
	scheduling := st.NeedsSchedule || st.NextRunAt == nil
	if scheduling && now.Sub(base) > pol.Grace {
		base = now
		d.Rebase = &base
	}
	rule, err := compile(base)
	if err != nil {
		return Decision{}, fmt.Errorf("plan: %w", err)
	}
	if t, ok := rule.(interface{ Triggered() bool }); ok && t.Triggered() {
		// A triggered job (SPEC §17.1) has no occurrence of its own and
		// never ends for lack of one: its runs are queued by its
		// upstream jobs' ends (models/engine_triggers.go).
		return Decision{ScheduledCount: st.ScheduledCount}, nil
	}
	count := int64(rule.Count())
	exhausted := func() bool { return count > 0 && d.ScheduledCount >= count }
	sp := pol.Spread
	if scheduling {
		if next, ok := rule.Next(base.Add(-time.Second)); ok && !exhausted() {
			due := sp.Due(next)
			d.Next = &due
		}
		return d.end(st), nil
	}
	expected := sp.Nominal(rule, *st.NextRunAt)
	if now.Sub(sp.Due(expected)) > pol.Grace {
		var run bool
		expected, run = d.misfire(rule, pol, expected, now)
		if !run {
			return d.end(st), nil
		}
	}
	if exhausted() {
		return d.end(st), nil
	}
	if pol.Concurrency == jobdef.ConcurrencyForbid && st.OpenAttempts > 0 {
		d.Overlap = &expected
	} else {
		d.Run = &expected
		d.ScheduledCount++
	}
	if next, ok := rule.Next(expected); ok && !exhausted() {
		due := sp.Due(next)
		d.Next = &due
	}
	return d.end(st), nil
}

// misfire skips the occurrences from expected on that are more than the
// grace late at now, recording them in d.Missed. It returns the occurrence
// to run now and true, or false when none runs now (d.Next then holds the
// next one, if any).
func (d *Decision) misfire(rule Rule, pol Policy, expected, now time.Time) (time.Time, bool) {
	sp := pol.Spread
	late := func(t time.Time) bool { return now.Sub(sp.Due(t)) > pol.Grace }
	var missed int64
	first, last := expected, expected
	t, ok := expected, true
	for ok && late(t) && missed < MaxMissedCount {
		missed++
		last = t
		t, ok = rule.Next(t)
	}
	if missed == MaxMissedCount && ok && late(t) {
		t, ok = rule.Next(now.Add(-pol.Grace - sp.Window))
		for ok && late(t) {
			t, ok = rule.Next(t)
		}
	}
	runOnce := pol.Misfire == jobdef.MisfireRunOnce
	skipped := missed
	if runOnce {
		skipped-- // the last missed occurrence runs as the catch-up
	}
	if skipped > 0 {
		d.Missed = &Missed{First: first, Last: last, Count: skipped, AtLeast: skipped >= MaxMissedCount, RunOnce: runOnce}
	}
	switch {
	case runOnce:
		return last, true
	case !ok:
		return time.Time{}, false
	case sp.Due(t).After(now):
		due := sp.Due(t)
		d.Next = &due
		return time.Time{}, false
	default:
		return t, true
	}
}

// end sets d.End when the job has nothing left to run.
func (d Decision) end(st State) Decision {
	if d.Next != nil || st.OpenAttempts > 0 {
		return d
	}
	d.End = jobdef.Completed
	if st.LastOccurrenceFaulted {
		d.End = jobdef.Faulted
	}
	return d
}
