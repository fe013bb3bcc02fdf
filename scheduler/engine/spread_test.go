package engine

import (
	"fmt"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// TestSpreadWindowRunsAtTheDueTime: a job with recurrence.window starts
// each occurrence at its offset after its time, not a second before, under
// the occurrence's own (nominal) expected time and Idempotency-Key, with
// its lateness measured from the due time; the next runs the API shows
// (plan.Upcoming) and a keyed preview agree with the engine.
func TestSpreadWindowRunsAtTheDueTime(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Truncate(time.Hour).Add(time.Hour)
	props := fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"hour","window":"PT10M"}}`,
		start.UTC().Format(time.RFC3339), e.action("/spread", ""))
	id := e.put("spread", props)
	job, err := jobdef.Parse([]byte(props))
	if err != nil {
		t.Fatal(err)
	}
	sp := recurrence.SpreadOf(job, id)
	// The engine schedules a job with a window (its id keys the offsets).
	e.drain()
	for k := range 3 {
		nominal := start.Add(time.Duration(k) * time.Hour)
		due := sp.Due(nominal)
		j := e.job(id)
		if j.NextRunAt == nil || !j.NextRunAt.Equal(due) {
			t.Fatalf("occurrence %d: next run %v, want %s (nominal %s)", k, j.NextRunAt, rfc(due), rfc(nominal))
		}
		// What the API shows as the next runs is what the engine runs.
		st := plan.State{Status: jobdef.Enabled, ScheduleBase: j.ScheduleBase, NextRunAt: j.NextRunAt}
		compile := func(base time.Time) (plan.Rule, error) { return recurrence.Compile(job, base) }
		if up := plan.Upcoming(st, sp, compile, e.clock.Now(), 2); len(up) != 2 || !up[0].Equal(due) || !up[1].Equal(sp.Due(nominal.Add(time.Hour))) {
			t.Fatalf("upcoming %v, want %s then %s", up, rfc(due), rfc(sp.Due(nominal.Add(time.Hour))))
		}
		if due.After(nominal) {
			e.clock.Set(due.Add(-time.Second))
			if n, err := e.engine.runDue(e.ctx); err != nil || n != 0 {
				t.Fatalf("occurrence %d a second before its due time: claimed %d (%v)", k, n, err)
			}
		}
		e.clock.Set(due)
		e.drain()
		got := e.target.requests()
		if len(got) != k+1 {
			t.Fatalf("occurrence %d: %d requests", k, len(got))
		}
		if want := fmt.Sprintf("%d:%s", id, nominal.UTC().Format(time.RFC3339Nano)); got[k].Key != want {
			t.Errorf("occurrence %d: Idempotency-Key %q, want %q", k, got[k].Key, want)
		}
		h := e.history(id)
		last := h[len(h)-1]
		if !last.ExpectedExecutionTime.Equal(nominal) {
			t.Errorf("occurrence %d: expected time %s, want %s", k, rfc(last.ExpectedExecutionTime), rfc(nominal))
		}
		if last.LatenessMs == nil || *last.LatenessMs != 0 {
			t.Errorf("occurrence %d: lateness %v ms, want 0 (from the due time)", k, last.LatenessMs)
		}
	}
	// A keyed preview shows the times the engine ran.
	res, err := recurrence.PreviewWith(job, start.Add(-time.Minute), 3, recurrence.Options{SpreadKey: uint64(id), Keyed: true})
	if err != nil {
		t.Fatal(err)
	}
	for k, at := range res.Occurrences {
		if want := sp.Due(start.Add(time.Duration(k) * time.Hour)); !at.Equal(want) {
			t.Errorf("preview %d: %s, want %s", k, rfc(at), rfc(want))
		}
	}
}
