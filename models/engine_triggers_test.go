package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

// triggerFixture is a collection "rg/jc" with upstream jobs and the
// database to record their ends in.
type triggerFixture struct {
	t     *testing.T
	store *models.Store
	db    *sql.DB
	coll  *models.JobCollection
	hist  int64 // the next fake upstream history id
}

func newTriggerFixture(t *testing.T) *triggerFixture {
	store, db := storeAndDB(t)
	return &triggerFixture{t: t, store: store, db: db, coll: newCollection(t, store, "rg", "jc"), hist: 1000}
}

// job saves job name with the definition's extra fields.
func (f *triggerFixture) job(name, extra string) int64 {
	f.t.Helper()
	def := `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}` + extra + `}`
	state := jobdef.Enabled
	if strings.Contains(extra, `"disabled"`) {
		state = jobdef.Disabled
	}
	return saveJob(f.t, f.store, models.JobWrite{CollectionID: f.coll.ID, Name: name, Definition: []byte(def), State: state}).ID
}

// end records an end of upstream up at at for the jobs that run after it
// whose on matches ok, as the finish path does, and returns its fake
// history id.
func (f *triggerFixture) end(up int64, at time.Time, ok bool) int64 {
	f.t.Helper()
	f.hist++
	_, err := f.db.Exec(`INSERT INTO job_trigger_ends (downstream_id, upstream_id, history_id, ended_at, succeeded)
		SELECT downstream_id, upstream_id, $2, $3, $4 FROM job_trigger_upstreams
		WHERE upstream_id = $1 AND (on_status = 'finished' OR (on_status = 'succeeded') = $4)`, up, f.hist, at, ok)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.hist
}

// fire fires at now and returns how many runs were queued.
func (f *triggerFixture) fire(now time.Time) int {
	f.t.Helper()
	n, err := f.store.FireTriggers(context.Background(), now)
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// pending counts job id's pending attempts.
func (f *triggerFixture) pending(id int64) int {
	f.t.Helper()
	var n int
	if err := f.db.QueryRow(`SELECT count(*) FROM job_attempts WHERE job_id = $1 AND status = 'pending'`, id).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// TestFireTriggersDecidesOncePerQualifyingSet checks the conditions of
// SPEC §17.1 on recorded ends: one upstream runs the job once per end; a
// fan-in runs once when every upstream ended since the last run with the
// oldest end at most within before the newest (a newer end of the same
// upstream replaces an older one); on failed ignores successes; a disabled
// downstream drops its ends; ends before startTime do not count; ends are
// consumed once.
func TestFireTriggersDecidesOncePerQualifyingSet(t *testing.T) {
	f := newTriggerFixture(t)
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	a := f.job("A", `,"recurrence":{"frequency":"day"}`)
	b := f.job("B", `,"recurrence":{"frequency":"day"}`)
	one := f.job("one", `,"trigger":{"after":["rg/jc/A"]}`)
	fan := f.job("fan", `,"trigger":{"after":["rg/jc/A","rg/jc/B"],"within":"PT1H"}`)
	onFail := f.job("onFail", `,"trigger":{"after":["rg/jc/A"],"on":"failed"}`)
	off := f.job("off", `,"trigger":{"after":["rg/jc/A"]},"state":"disabled"`)
	later := f.job("later", fmt.Sprintf(`,"startTime":%q,"trigger":{"after":["rg/jc/A"],"on":"finished"}`, t0.Add(90*time.Minute).Format(time.RFC3339)))

	// A succeeds twice: one runs twice, fan waits for B, onFail and off not.
	f.end(a, t0, true)
	f.end(a, t0.Add(time.Minute), true)
	if n := f.fire(t0.Add(2 * time.Minute)); n != 2 {
		t.Fatalf("queued %d runs, want 2 (one's)", n)
	}
	if f.pending(one) != 2 || f.pending(fan) != 0 || f.pending(onFail) != 0 || f.pending(off) != 0 || f.pending(later) != 0 {
		t.Fatalf("pending: one %d fan %d onFail %d off %d later %d", f.pending(one), f.pending(fan), f.pending(onFail), f.pending(off), f.pending(later))
	}
	if n := f.fire(t0.Add(3 * time.Minute)); n != 0 {
		t.Fatalf("ends fired twice: %d runs", n)
	}
	// B ends 2 h after A's newest end: outside within, fan waits.
	f.end(b, t0.Add(181*time.Minute), true)
	f.fire(t0.Add(182 * time.Minute))
	if f.pending(fan) != 0 {
		t.Fatal("fan ran with its oldest end 3 h before its newest (within PT1H)")
	}
	// A fails (later's startTime has passed): later runs (finished), and
	// onFail; fan and one do not (on succeeded).
	newest := f.end(a, t0.Add(200*time.Minute), false)
	if n := f.fire(t0.Add(201 * time.Minute)); n != 2 {
		t.Fatalf("queued %d runs, want 2 (later, onFail)", n)
	}
	if f.pending(fan) != 0 {
		t.Fatal("fan ran on A's failure (on succeeded)")
	}
	if f.pending(onFail) != 1 || f.pending(later) != 1 || f.pending(one) != 2 {
		t.Fatalf("pending: onFail %d later %d one %d", f.pending(onFail), f.pending(later), f.pending(one))
	}
	// A succeeds near B's end: fan runs with A's newer end.
	ok := f.end(a, t0.Add(205*time.Minute), true)
	f.fire(t0.Add(206 * time.Minute))
	if f.pending(fan) != 1 {
		t.Fatalf("fan has %d runs after A and B succeeded within an hour, want 1", f.pending(fan))
	}
	var exp time.Time
	if err := f.db.QueryRow(`SELECT expected_time FROM job_attempts WHERE job_id = $1`, fan).Scan(&exp); err != nil {
		t.Fatal(err)
	}
	causes, err := f.store.TriggerCauses(context.Background(), fan, []time.Time{exp})
	if err != nil {
		t.Fatal(err)
	}
	cs := causes[exp.UTC()]
	if len(cs) != 2 || cs[0].HistoryID != ok || cs[0].Upstream.Path() != "rg/jc/A" || cs[1].Upstream.Path() != "rg/jc/B" {
		t.Fatalf("fan's causes %+v (A's failed end was %d)", cs, newest)
	}
	// Since that run, fan waits for both again.
	f.end(b, t0.Add(210*time.Minute), true)
	f.fire(t0.Add(211 * time.Minute))
	if f.pending(fan) != 1 {
		t.Fatal("fan ran again with only B's new end")
	}
	var left int
	if err := f.db.QueryRow(`SELECT count(*) FROM job_trigger_ends`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d ends left unconsumed (%v)", left, err)
	}
}
