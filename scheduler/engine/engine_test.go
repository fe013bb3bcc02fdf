package engine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

func TestOneTimeJobRunsOnceNowAndCompletes(t *testing.T) {
	e := newEnv(t, nil)
	id := e.put("once", `{"action":`+e.action("/once", "")+`}`)
	e.drain()
	got := e.target.requests()
	if len(got) != 1 {
		t.Fatalf("target got %d requests, want 1", len(got))
	}
	j := e.job(id)
	if j.State != jobdef.Completed || j.NextRunAt != nil || j.EndedAt == nil {
		t.Errorf("job state %s next %v ended %v; want completed, no next run", j.State, j.NextRunAt, j.EndedAt)
	}
	e.counters(id, 1, 0, 0)
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Completed retry=0 repeat=1")
	if !strings.Contains(h[0].Message, "200 OK") || !strings.Contains(h[0].Message, "ok") {
		t.Errorf("message %q", h[0].Message)
	}
	// The headers of SPEC §5: the execution tag is the attempt, whose
	// history entry is what remains of it (no open attempt is left).
	r := got[0]
	if att := e.attempts(id); len(att) != 0 {
		t.Errorf("open attempts after the occurrence: %+v", att)
	}
	if h[0].AttemptID == nil || h[0].LatenessMs == nil {
		t.Fatalf("history attempt id %v lateness %v", h[0].AttemptID, h[0].LatenessMs)
	}
	expected := h[0].ExpectedExecutionTime.UTC().Format(time.RFC3339Nano)
	if r.JobID != strconv.FormatInt(id, 10) || r.Tag != strconv.FormatInt(*h[0].AttemptID, 10) ||
		r.Key != fmt.Sprintf("%d:%s", id, expected) || r.Expected != expected {
		t.Errorf("headers %+v, history entry %+v", r, h[0])
	}
	// Nothing runs again.
	e.clock.Add(time.Hour)
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Errorf("target got %d requests after an hour, want 1", n)
	}
}

func TestOneTimeJobWithPastStartRunsNow(t *testing.T) {
	e := newEnv(t, nil)
	past := e.clock.Now().Add(-48 * time.Hour)
	id := e.put("past", fmt.Sprintf(`{"startTime":%q,"action":%s}`, rfc(past), e.action("/p", "")))
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Fatalf("target got %d requests, want 1", n)
	}
	if e.job(id).State != jobdef.Completed {
		t.Errorf("state %s", e.job(id).State)
	}
	if h := e.history(id); h[0].ExpectedExecutionTime.Before(e.clock.Now().Add(-time.Minute)) {
		t.Errorf("expected time %v is the past startTime, want about now", h[0].ExpectedExecutionTime)
	}
}

func TestFutureStartWaitsForItsTime(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(10 * time.Minute)
	id := e.put("future", fmt.Sprintf(`{"startTime":%q,"action":%s}`, rfc(start), e.action("/f", "")))
	e.drain()
	if n := len(e.target.requests()); n != 0 {
		t.Fatalf("ran %d times before its startTime", n)
	}
	if j := e.job(id); j.NextRunAt == nil || !j.NextRunAt.Equal(start) {
		t.Fatalf("next run %v, want %v", j.NextRunAt, start)
	}
	e.clock.Set(start.Add(-time.Second))
	e.drain()
	if n := len(e.target.requests()); n != 0 {
		t.Fatalf("ran a second early")
	}
	e.clock.Set(start)
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Fatalf("ran %d times at its startTime, want 1", n)
	}
	if h := e.history(id); len(h) != 1 || !h[0].ExpectedExecutionTime.Equal(start) || *h[0].LatenessMs != 0 {
		t.Errorf("history %+v", h)
	}
}

// TestRecurrenceEndsTheJob: count and endTime end a minute job after its
// last occurrence (an occurrence exactly at endTime runs), completed.
func TestRecurrenceEndsTheJob(t *testing.T) {
	rows := []struct {
		name       string
		recurrence string // with %[1]s the endTime (start + 2 min)
		minutes    int    // how many minutes the clock steps through
		runs       int    // the occurrences run, one a minute from start
	}{
		{name: "count", recurrence: `{"frequency":"minute","count":3}`, minutes: 5, runs: 3},
		{name: "endTime", recurrence: `{"frequency":"minute","endTime":%[1]q}`, minutes: 4, runs: 3},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			e := newEnv(t, nil)
			start := e.clock.Now().Add(time.Minute)
			end := start.Add(2 * time.Minute)
			rec := r.recurrence
			if strings.Contains(rec, "%[1]q") {
				rec = fmt.Sprintf(rec, rfc(end))
			}
			id := e.put(r.name, fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":%s}`, rfc(start), e.action("/"+r.name, ""), rec))
			for i := range r.minutes {
				e.clock.Set(start.Add(time.Duration(i) * time.Minute))
				e.drain()
			}
			if n := len(e.target.requests()); n != r.runs {
				t.Fatalf("ran %d times, want %d", n, r.runs)
			}
			var expected, want, lines []string
			for i := range r.runs {
				want = append(want, rfc(start.Add(time.Duration(i)*time.Minute)))
				lines = append(lines, fmt.Sprintf("MainAction Completed retry=0 repeat=%d", i+1))
			}
			h := e.history(id)
			for _, h := range h {
				expected = append(expected, rfc(h.ExpectedExecutionTime))
			}
			if strings.Join(expected, " ") != strings.Join(want, " ") {
				t.Errorf("ran at %v, want %v", expected, want)
			}
			wantLines(t, historyLines(h), lines...)
			if j := e.job(id); j.State != jobdef.Completed || j.ExecutionCount != int64(r.runs) {
				t.Errorf("state %s executions %d, want completed after %d", j.State, j.ExecutionCount, r.runs)
			}
		})
	}
}

func TestScheduleRunsAtTheRecurrenceOccurrences(t *testing.T) {
	e := newEnv(t, nil)
	def := `{"action":` + e.action("/s", "") + `,"recurrence":{"frequency":"week","schedule":{"weekDays":["monday","thursday"],"hours":[5,17],"minutes":[15]},"timeZone":"Europe/Berlin"}}`
	id := e.put("sched", def)
	// A job without startTime and with a schedule runs at creation, then on
	// its schedule (SPEC §2).
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Fatalf("ran %d times at creation, want 1", n)
	}
	j := e.job(id)
	parsed, err := jobdef.Parse([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	h := e.history(id)
	want, err := recurrence.Occurrences(parsed, h[0].ExpectedExecutionTime, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 4; i++ {
		if j.NextRunAt == nil || !j.NextRunAt.Equal(want[i]) {
			t.Fatalf("next run %v, want %v", j.NextRunAt, want[i])
		}
		e.clock.Set(want[i])
		e.drain()
		j = e.job(id)
	}
	if n := len(e.target.requests()); n != 4 {
		t.Errorf("ran %d times, want 4", n)
	}
}

// TestJobCreatedWhileNoEngineRanFollowsItsMisfirePolicy: the write
// service plans a new job's first run at its creation, so an engine that
// starts ten minutes later finds that occurrence missed (more than
// MisfireGrace late): the default policy skips it with a Postponed entry,
// and the hourly job keeps the schedule of its creation; with runOnce the
// missed occurrence runs once now.
func TestJobCreatedWhileNoEngineRanFollowsItsMisfirePolicy(t *testing.T) {
	e := newEnv(t, nil)
	created := e.clock.Now()
	once := e.put("once", `{"action":`+e.action("/o", "")+`}`)
	every := e.put("every", `{"action":`+e.action("/e", "")+`,"recurrence":{"frequency":"hour"}}`)
	catchUp := e.put("catch-up", `{"action":`+e.action("/c", "")+`,"recurrence":{"frequency":"hour"},"misfirePolicy":"runOnce"}`)
	// The engine starts ten minutes later.
	e.clock.Add(10 * time.Minute)
	e.drain()
	for _, id := range []int64{once, every} {
		h := e.history(id)
		if len(h) != 1 || h[0].Status != models.StatusPostponed || !h[0].ExpectedExecutionTime.Equal(created) {
			t.Errorf("job %d: history %v, want the occurrence of its creation (%v) postponed", id, historyLines(h), created)
		}
	}
	if j := e.job(every); j.NextRunAt == nil || !j.NextRunAt.Equal(created.Add(time.Hour)) {
		t.Errorf("next run %v, want an hour after the job's creation", j.NextRunAt)
	}
	if h := e.history(catchUp); len(h) != 1 || h[0].Status != models.StatusCompleted || !h[0].ExpectedExecutionTime.Equal(created) {
		t.Errorf("runOnce job: history %v, want the missed occurrence of %v run once", historyLines(h), created)
	}
}
