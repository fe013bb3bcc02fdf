package recurrence

import (
	"fmt"
	"math/bits"
	"time"

	"sked/models/jobdef"
	"sked/models/problem"
)

// Spread is a job's spread window (recurrence.window, SPEC §16.1) with the
// key its offsets derive from. Each occurrence at nominal time t is due at
// Due(t) = t + Offset(t), a fixed moment in [t, t+Window): a pure function
// of the key and t, the same on every instance, after every restart and in
// every preview that knows the key. The occurrence keeps its identity
// (expected time, Idempotency-Key) at t. The zero Spread shifts nothing.
// Offsets are whole seconds, like the occurrences.
type Spread struct {
	// Window is the job's recurrence.window; under two seconds shifts
	// nothing.
	Window time.Duration
	// Key is the job's id (jobs.id): it never changes while the job
	// lives, a replacement keeps it, and jobs created one after the other
	// have consecutive ones, which Offset spreads evenly.
	Key uint64
}

// SpreadOf returns the spread of job, stored with id jobID: the zero
// Spread for a job without recurrence.window.
func SpreadOf(job *jobdef.Job, jobID int64) Spread {
	if job == nil || job.Recurrence == nil || job.Recurrence.Window <= 0 {
		return Spread{}
	}
	return Spread{Window: job.Recurrence.Window, Key: uint64(jobID)}
}

// golden is 2⁶⁴/φ: multiples of it modulo 2⁶⁴ (a Weyl sequence) spread
// consecutive keys as evenly as any sequence can over the window.
const golden = 0x9e3779b97f4a7c15

// Offset returns how long after its nominal time t the occurrence is due:
// whole seconds in [0, Window) (0 for a window under two seconds). The
// fraction Key/φ, turned by a hash of t's Unix second (splitmix64's
// finaliser) that all jobs share, is mapped onto the window's seconds: at
// one occurrence, jobs with consecutive ids land evenly spread (within a
// start or two per second; a hash of the id alone would bunch them as
// randomly as dice), while one job's offset changes from one occurrence
// to the next.
func (s Spread) Offset(t time.Time) time.Duration {
	n := uint64(s.Window / time.Second)
	if n <= 1 {
		return 0
	}
	frac := s.Key*golden + mix64(uint64(t.Unix()))
	hi, _ := bits.Mul64(frac, n)
	return time.Duration(hi) * time.Second
}

// mix64 is splitmix64's finaliser: a bijection of 64-bit words whose every
// output bit depends on every input bit.
func mix64(x uint64) uint64 {
	x += golden
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Due returns when the occurrence at nominal time t is due: t + Offset(t),
// in t's zone.
func (s Spread) Due(t time.Time) time.Time {
	if s.Window < 2*time.Second {
		return t
	}
	return t.Add(s.Offset(t))
}

// Nexter gives the executions of a rule (*Rule and the planner's rules).
type Nexter interface {
	Next(after time.Time) (time.Time, bool)
}

// Nominal returns the nominal time of the occurrence of rule due at due:
// the one execution in (due − Window, due] (a window is shorter than the
// gap between two executions), when its due time is due. Otherwise (a
// stored due time from before the window changed) due itself is taken as
// the nominal time.
func (s Spread) Nominal(rule Nexter, due time.Time) time.Time {
	if s.Window < 2*time.Second {
		return due
	}
	t, ok := rule.Next(due.Add(-s.Window))
	if ok && !t.After(due) && s.Due(t).Equal(due) {
		return t
	}
	return due
}

// CheckWindow checks the job's recurrence.window against the rule: it must
// be shorter than the shortest gap between two executions from from on
// (MinGap). It returns a *problem.List naming recurrence.window, or nil.
func (r *Rule) CheckWindow(from time.Time) error {
	rec := r.job.Recurrence
	if rec == nil || rec.Window <= 0 {
		return nil
	}
	gap, ok := r.MinGap(from)
	if !ok || rec.Window < gap {
		return nil
	}
	return &problem.List{Problems: []problem.Problem{{Path: "recurrence.window", Message: fmt.Sprintf(
		"%s is not shorter than the shortest gap between two occurrences (%s): the window must end before the next occurrence",
		rec.WindowText, formatSpan(gap))}}}
}

// formatSpan says a span the way a person would ("90 seconds", "5
// minutes", "1 hour 30 minutes").
func formatSpan(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	sec := int64(d / time.Second)
	switch {
	case sec%3600 == 0 && sec >= 3600:
		return plural(sec/3600, "hour")
	case sec%60 == 0 && sec >= 60:
		return plural(sec/60, "minute")
	}
	return plural(sec, "second")
}
