package engine

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/catalog/catalogtest"
)

func TestDisabledJobDoesNotRunAndReEnablingSchedulesFromNow(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	id := e.put("dis", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute","interval":10},"action":%s}`, rfc(start), e.action("/d", "")))
	e.drain()
	if err := e.setEnabled(id, false); err != nil {
		t.Fatal(err)
	}
	if j := e.job(id); j.State != jobdef.Disabled || j.NextRunAt != nil {
		t.Fatalf("disabled job: state %s next %v", j.State, j.NextRunAt)
	}
	e.clock.Set(start.Add(time.Hour + 3*time.Minute))
	e.drain()
	if n := len(e.target.requests()); n != 0 {
		t.Fatalf("a disabled job ran %d times", n)
	}
	if err := e.setEnabled(id, true); err != nil {
		t.Fatal(err)
	}
	e.drain()
	// Re-enabled at start+1h03m: the next occurrence of the rule (anchored at
	// startTime, every 10 minutes) at or after now is start+1h10m; nothing
	// missed runs and nothing is postponed.
	if j := e.job(id); j.NextRunAt == nil || !j.NextRunAt.Equal(start.Add(70*time.Minute)) {
		t.Fatalf("next run after re-enabling: %v, want %v", j.NextRunAt, start.Add(70*time.Minute))
	}
	if n := len(e.target.requests()); n != 0 || len(e.history(id)) != 0 {
		t.Fatalf("re-enabling ran %d occurrences / wrote history", n)
	}
	e.clock.Set(start.Add(70 * time.Minute))
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Errorf("ran %d times after re-enabling, want 1", n)
	}
	ghost := &models.Job{ID: 424242, Name: "ghost", State: jobdef.Disabled}
	if err := e.cat.EnableJob(e.ctx, catalogtest.Actor, e.coll, ghost); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("enable unknown job: %v", err)
	}
}

func TestDisabledCollectionRunsNothingAndMissedOccurrencesArePostponed(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	id := e.put("coll", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`, rfc(start), e.action("/c", "")))
	e.clock.Set(start)
	e.drain()
	for _, state := range []models.CollectionState{models.CollectionDisabled, models.CollectionSuspended} {
		if err := e.setCollectionState(state); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(5 * time.Minute)
		e.drain()
		if n := len(e.target.requests()); n != 1 {
			t.Fatalf("a %s collection ran its job (%d requests)", state, n)
		}
	}
	if err := e.setCollectionState(models.CollectionEnabled); err != nil {
		t.Fatal(err)
	}
	// Now start+10m30s: the occurrences start+1m … start+9m were missed
	// (more than a minute late); start+10m is 30 s late and runs.
	e.clock.Add(30 * time.Second)
	e.drain()
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Completed retry=0 repeat=1", "MainAction Postponed retry=0 repeat=1",
		"MainAction Completed retry=0 repeat=2")
	if !strings.Contains(h[1].Message, "Missed 9 occurrences between "+rfc(start.Add(time.Minute))+" and "+rfc(start.Add(9*time.Minute))) {
		t.Errorf("postponed message %q", h[1].Message)
	}
	if !h[2].ExpectedExecutionTime.Equal(start.Add(10 * time.Minute)) {
		t.Errorf("ran %v after recovery, want %v", h[2].ExpectedExecutionTime, start.Add(10*time.Minute))
	}
}

func TestMisfirePolicyRunOnceRunsOneCatchUp(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	id := e.put("catchup", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"hour"},"misfirePolicy":"runOnce","action":%s}`,
		rfc(start), e.action("/r", "")))
	e.drain() // scheduled
	// The instance was "down" for 3h30m: occurrences start … start+3h missed.
	e.clock.Set(start.Add(3*time.Hour + 30*time.Minute))
	e.drain()
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Postponed retry=0 repeat=0", "MainAction Completed retry=0 repeat=1")
	if !strings.Contains(h[0].Message, "Missed 3 occurrences") || !h[1].ExpectedExecutionTime.Equal(start.Add(3*time.Hour)) {
		t.Errorf("postponed %q, catch-up expected at %v", h[0].Message, h[1].ExpectedExecutionTime)
	}
	if j := e.job(id); !j.NextRunAt.Equal(start.Add(4 * time.Hour)) {
		t.Errorf("next run %v", j.NextRunAt)
	}
}

func TestRunNowAddsOneOccurrenceAndKeepsTheSchedule(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Hour)
	id := e.put("now", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"day","count":1},"action":%s}`, rfc(start), e.action("/n", "")))
	e.drain()
	attemptID, err := e.runNow(id)
	if err != nil {
		t.Fatal(err)
	}
	e.drain()
	got := e.target.requests()
	if len(got) != 1 || got[0].Tag != strconv.FormatInt(attemptID, 10) {
		t.Fatalf("requests %+v, want one with tag %d", got, attemptID)
	}
	j := e.job(id)
	if j.State != jobdef.Enabled || !j.NextRunAt.Equal(start) {
		t.Errorf("run now changed the schedule: state %s next %v", j.State, j.NextRunAt)
	}
	// Run now does not use up recurrence.count: the scheduled occurrence runs.
	e.clock.Set(start)
	e.drain()
	if n := len(e.target.requests()); n != 2 {
		t.Errorf("scheduled occurrence after run now: %d requests, want 2", n)
	}
	if j := e.job(id); j.State != jobdef.Completed {
		t.Errorf("state %s", j.State)
	}
	if _, err := e.runNow(id); !errors.Is(err, models.ErrJobFinished) {
		t.Errorf("run now on a completed job: %v", err)
	}
}

func TestConcurrencyForbidPostponesWhilePreviousOccurrenceIsOpen(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	start := e.clock.Now().Add(time.Minute)
	retry := `"retryPolicy":{"retryType":"fixed","retryInterval":"PT5M","retryCount":1}`
	forbid := e.put("forbid", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"concurrency":"forbid","action":%s}`, rfc(start), e.action("/f", retry)))
	allow := e.put("allow", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`, rfc(start), e.action("/a", retry)))
	e.clock.Set(start)
	e.drain() // both fail; a retry is pending for 5 minutes
	e.clock.Add(time.Minute)
	e.drain()
	wantLines(t, historyLines(e.history(forbid)), "MainAction Failed retry=0 repeat=1", "MainAction Postponed retry=0 repeat=1")
	wantLines(t, historyLines(e.history(allow)), "MainAction Failed retry=0 repeat=1", "MainAction Failed retry=0 repeat=2")
}
