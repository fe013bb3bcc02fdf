package scheduler

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
	if j.State != "completed" || j.NextRunAt != nil || j.EndedAt == nil {
		t.Errorf("job state %s next %v ended %v; want completed, no next run", j.State, j.NextRunAt, j.EndedAt)
	}
	e.counters(id, 1, 0, 0)
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Completed retry=0 repeat=1")
	if !strings.Contains(h[0].Message, "200 OK") || !strings.Contains(h[0].Message, "ok") {
		t.Errorf("message %q", h[0].Message)
	}
	// The headers of SPEC §5.
	r := got[0]
	att := e.attempts(id)
	if r.JobID != strconv.FormatInt(id, 10) || r.Tag != strconv.FormatInt(att[0].ID, 10) ||
		r.Key != fmt.Sprintf("%d:%s", id, att[0].ExpectedTime.UTC().Format(time.RFC3339Nano)) ||
		r.Expected != att[0].ExpectedTime.UTC().Format(time.RFC3339Nano) {
		t.Errorf("headers %+v, attempt %+v", r, att[0])
	}
	if h[0].AttemptID == nil || *h[0].AttemptID != att[0].ID || h[0].LatenessMs == nil {
		t.Errorf("history attempt id %v lateness %v", h[0].AttemptID, h[0].LatenessMs)
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
	if e.job(id).State != "completed" {
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

func TestCountEndsTheJob(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	id := e.put("count", fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"minute","count":3}}`, rfc(start), e.action("/c", "")))
	for i := range 5 {
		e.clock.Set(start.Add(time.Duration(i) * time.Minute))
		e.drain()
	}
	if n := len(e.target.requests()); n != 3 {
		t.Fatalf("ran %d times, want count 3", n)
	}
	j := e.job(id)
	if j.State != "completed" || j.ExecutionCount != 3 {
		t.Errorf("state %s executions %d", j.State, j.ExecutionCount)
	}
	wantLines(t, historyLines(e.history(id)),
		"MainAction Completed retry=0 repeat=1", "MainAction Completed retry=0 repeat=2", "MainAction Completed retry=0 repeat=3")
}

func TestEndTimeEndsTheJobAfterTheLastOccurrence(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	end := start.Add(2 * time.Minute) // an occurrence exactly at endTime runs
	id := e.put("end", fmt.Sprintf(`{"startTime":%q,"action":%s,"recurrence":{"frequency":"minute","endTime":%q}}`,
		rfc(start), e.action("/e", ""), rfc(end)))
	var expected []string
	for i := range 4 {
		e.clock.Set(start.Add(time.Duration(i) * time.Minute))
		e.drain()
	}
	for _, h := range e.history(id) {
		expected = append(expected, rfc(h.ExpectedExecutionTime))
	}
	want := []string{rfc(start), rfc(start.Add(time.Minute)), rfc(end)}
	if strings.Join(expected, " ") != strings.Join(want, " ") {
		t.Errorf("ran at %v, want %v", expected, want)
	}
	if j := e.job(id); j.State != "completed" {
		t.Errorf("state %s, want completed", j.State)
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

func TestFailureRetriesThenErrorActionWithExactCountersAndHistory(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/main" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	def := fmt.Sprintf(`{"action":{"type":"http","request":{"uri":%q,"method":"GET"},
		"retryPolicy":{"retryType":"fixed","retryInterval":"PT20S","retryCount":2},
		"errorAction":{"type":"Http","request":{"uri":%q,"method":"POST","body":"failed"},
			"retryPolicy":{"retryType":"none"}}}}`, e.target.URL+"/main", e.target.URL+"/error")
	id := e.put("fails", def)
	e.drain()
	// Retries are stored, due 20 s later.
	att := e.attempts(id)
	if len(att) != 2 || att[1].Status != "pending" || att[1].Attempt != 2 || !att[1].DueAt.Equal(e.clock.Now().Add(20*time.Second)) {
		t.Fatalf("attempts after the first failure: %+v", att)
	}
	e.clock.Add(19 * time.Second)
	e.drain()
	if n := len(e.target.requests()); n != 1 {
		t.Fatalf("retried %d early", n-1)
	}
	e.clock.Add(time.Second)
	e.drain()
	e.clock.Add(20 * time.Second)
	e.drain() // third main attempt fails, the error action runs at once
	paths := []string{}
	for _, r := range e.target.requests() {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, " ") != "/main /main /main /error" {
		t.Errorf("requests %v", paths)
	}
	keys := map[string]bool{}
	for _, r := range e.target.requests() {
		keys[r.Key] = true
	}
	if len(keys) != 1 {
		t.Errorf("Idempotency-Keys %v: want one for the whole occurrence", keys)
	}
	wantLines(t, historyLines(e.history(id)),
		"MainAction Failed retry=0 repeat=1", "MainAction Failed retry=1 repeat=1", "MainAction Failed retry=2 repeat=1",
		"ErrorAction Completed retry=0 repeat=1")
	e.counters(id, 4, 3, 1)
	if h := e.history(id); !strings.Contains(h[0].Message, "500") || !strings.Contains(h[0].Message, "boom") {
		t.Errorf("failure message %q", h[0].Message)
	}
	// The one-time job's only occurrence faulted: the job is faulted.
	if j := e.job(id); j.State != "faulted" || j.EndedAt == nil {
		t.Errorf("state %s, want faulted", j.State)
	}
}

func TestErrorActionRetriesAndRecurringJobKeepsRunning(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	start := e.clock.Now().Add(time.Minute)
	def := fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"hour"},"action":{"type":"http","request":{"uri":%q,"method":"GET"},
		"retryPolicy":{"retryType":"none"},
		"errorAction":{"type":"http","request":{"uri":%q,"method":"GET"},"retryPolicy":{"retryType":"fixed","retryInterval":"00:00:30","retryCount":1}}}}`,
		rfc(start), e.target.URL+"/main", e.target.URL+"/error")
	id := e.put("hourly", def)
	e.clock.Set(start)
	e.drain()
	e.clock.Add(30 * time.Second)
	e.drain()
	wantLines(t, historyLines(e.history(id)),
		"MainAction Failed retry=0 repeat=1", "ErrorAction Failed retry=0 repeat=1", "ErrorAction Failed retry=1 repeat=1")
	e.counters(id, 3, 3, 1)
	if j := e.job(id); j.State != "enabled" || !j.NextRunAt.Equal(start.Add(time.Hour)) {
		t.Errorf("state %s next %v: a recurring job keeps running after a faulted occurrence", j.State, j.NextRunAt)
	}
}

func TestRecurringJobWithCountFaultsWhenLastOccurrenceFaults(t *testing.T) {
	fail := true
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if fail {
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	start := e.clock.Now().Add(time.Minute)
	id := e.put("twice", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute","count":2},"action":%s}`,
		rfc(start), e.action("/t", `"retryPolicy":{"retryType":"none"}`)))
	e.clock.Set(start)
	fail = false
	e.drain()
	e.clock.Add(time.Minute)
	fail = true
	e.drain()
	if j := e.job(id); j.State != "faulted" {
		t.Errorf("state %s, want faulted", j.State)
	}
	e.counters(id, 2, 1, 1)
}

func TestDisabledJobDoesNotRunAndReEnablingSchedulesFromNow(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	id := e.put("dis", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute","interval":10},"action":%s}`, rfc(start), e.action("/d", "")))
	e.drain()
	if err := e.engine.DisableJob(e.ctx, id); err != nil {
		t.Fatal(err)
	}
	if j := e.job(id); j.State != "disabled" || j.NextRunAt != nil {
		t.Fatalf("disabled job: state %s next %v", j.State, j.NextRunAt)
	}
	e.clock.Set(start.Add(time.Hour + 3*time.Minute))
	e.drain()
	if n := len(e.target.requests()); n != 0 {
		t.Fatalf("a disabled job ran %d times", n)
	}
	if err := e.engine.EnableJob(e.ctx, id); err != nil {
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
	if err := e.engine.EnableJob(e.ctx, 424242); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("enable unknown job: %v", err)
	}
}

func TestDisabledCollectionRunsNothingAndMissedOccurrencesArePostponed(t *testing.T) {
	e := newEnv(t, nil)
	start := e.clock.Now().Add(time.Minute)
	id := e.put("coll", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`, rfc(start), e.action("/c", "")))
	e.clock.Set(start)
	e.drain()
	for _, state := range []string{"Disabled", "Suspended"} {
		if err := e.store.SetCollectionState(e.ctx, e.coll.ID, state); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(5 * time.Minute)
		e.drain()
		if n := len(e.target.requests()); n != 1 {
			t.Fatalf("a %s collection ran its job (%d requests)", state, n)
		}
	}
	if err := e.store.SetCollectionState(e.ctx, e.coll.ID, "Enabled"); err != nil {
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
	attemptID, err := e.engine.RunNow(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	e.drain()
	got := e.target.requests()
	if len(got) != 1 || got[0].Tag != strconv.FormatInt(attemptID, 10) {
		t.Fatalf("requests %+v, want one with tag %d", got, attemptID)
	}
	j := e.job(id)
	if j.State != "enabled" || !j.NextRunAt.Equal(start) {
		t.Errorf("run now changed the schedule: state %s next %v", j.State, j.NextRunAt)
	}
	// Run now does not use up recurrence.count: the scheduled occurrence runs.
	e.clock.Set(start)
	e.drain()
	if n := len(e.target.requests()); n != 2 {
		t.Errorf("scheduled occurrence after run now: %d requests, want 2", n)
	}
	if j := e.job(id); j.State != "completed" {
		t.Errorf("state %s", j.State)
	}
	if _, err := e.engine.RunNow(e.ctx, id); !errors.Is(err, models.ErrJobFinished) {
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

func TestExpiredLeaseIsRecordedInterruptedAndRetried(t *testing.T) {
	e := newEnv(t, nil)
	id := e.put("lost", `{"action":`+e.action("/l", `"timeout":"PT10S","retryPolicy":{"retryType":"fixed","retryInterval":"PT15S","retryCount":3}`)+`}`)
	// Another engine claims the occurrence and dies without a word.
	ghost := e.engine.claimRequest(e.clock.Now(), 10)
	ghost.Owner = "ghost"
	if _, err := e.store.ClaimDue(e.ctx, ghost); err != nil {
		t.Fatal(err)
	}
	// Schedule first, then claim: the ghost's claim only scheduled.
	if _, err := e.store.ClaimDue(e.ctx, ghost); err != nil {
		t.Fatal(err)
	}
	att := e.attempts(id)
	if len(att) != 1 || att[0].Status != "running" || *att[0].LeaseOwner != "ghost" {
		t.Fatalf("attempts %+v", att)
	}
	// Lease: timeout 10 s + margin 30 s.
	e.clock.Add(39 * time.Second)
	e.drain()
	if e.attempts(id)[0].Status != "running" {
		t.Fatal("interrupted before the lease expired")
	}
	e.clock.Add(2 * time.Second)
	e.drain()
	h := e.history(id)
	wantLines(t, historyLines(h), "MainAction Failed retry=0 repeat=1")
	if !strings.Contains(h[0].Message, "interrupted") {
		t.Errorf("message %q", h[0].Message)
	}
	e.clock.Add(15 * time.Second)
	e.drain()
	wantLines(t, historyLines(e.history(id)), "MainAction Failed retry=0 repeat=1", "MainAction Completed retry=1 repeat=1")
	e.counters(id, 2, 1, 0)
	if n := len(e.target.requests()); n != 1 {
		t.Errorf("target got %d requests, want 1 (the retry)", n)
	}
}

func TestRetentionDeletesOldHistoryAndFinishedJobs(t *testing.T) {
	e := newEnv(t, nil)
	keep := e.put("keep", `{"action":`+e.action("/k", "")+`,"recurrence":{"frequency":"day"}}`)
	done := e.put("done", `{"action":`+e.action("/d", "")+`}`)
	e.drain()
	now := e.clock.Now()
	for i := range 5 {
		at := now.Add(-time.Duration(i) * time.Hour)
		if err := e.store.AddHistory(e.ctx, &models.HistoryEntry{JobID: keep, StartTime: at, ExpectedExecutionTime: at,
			ActionName: "MainAction", Status: "Completed"}); err != nil {
			t.Fatal(err)
		}
	}
	old := now.Add(-61 * 24 * time.Hour)
	if err := e.store.AddHistory(e.ctx, &models.HistoryEntry{JobID: keep, StartTime: old, ExpectedExecutionTime: old,
		ActionName: "MainAction", Status: "Completed"}); err != nil {
		t.Fatal(err)
	}
	e.engine.cfg.HistoryPerJob = 4
	st, err := e.engine.prune(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.history(keep)); n != 4 || st.History != 3 {
		t.Errorf("kept %d entries (deleted %d), want the newest 4", n, st.History)
	}
	if st.Jobs != 0 {
		t.Errorf("deleted %d jobs that ended now", st.Jobs)
	}
	e.clock.Add(61 * 24 * time.Hour)
	st, err = e.engine.prune(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.JobByID(e.ctx, done); !errors.Is(err, models.ErrNotFound) || st.Jobs != 1 || st.Attempts < 1 {
		t.Errorf("finished job 61 days later: %v (stats %+v)", err, st)
	}
}

func TestMetricsCountAttemptsLatenessAndBacklog(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.WriteHeader(http.StatusNotFound)
		}
	})
	reg := prometheus.NewRegistry()
	eng, err := New(allowLoopback(Config{InstanceID: "metrics"}), Deps{Store: e.store, Clock: e.clock, Logger: quietLogger(), Metrics: NewMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	e.engine = eng
	e.put("good", `{"action":`+e.action("/good", "")+`}`)
	e.put("bad", `{"action":`+e.action("/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	// Scheduled but not run yet: two due occurrences.
	if _, err := e.store.ClaimDue(e.ctx, eng.claimRequest(e.clock.Now(), 0)); err != nil {
		t.Fatal(err)
	}
	if got := gaugeValue(t, reg, "sked_engine_due_backlog"); got != 2 {
		t.Errorf("backlog %v, want 2", got)
	}
	e.drain()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := ""
			for _, l := range m.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + " "
			}
			switch {
			case m.GetCounter() != nil:
				seen[f.GetName()+" "+labels] = fmt.Sprint(m.GetCounter().GetValue())
			case m.GetHistogram() != nil:
				seen[f.GetName()+" "+labels] = fmt.Sprint(m.GetHistogram().GetSampleCount())
			}
		}
	}
	for k, v := range map[string]string{
		"sked_engine_attempts_total action=MainAction status=Completed ": "1",
		"sked_engine_attempts_total action=MainAction status=Failed ":    "1",
		"sked_engine_start_lateness_seconds ":                            "2",
		"sked_engine_http_duration_seconds class=2xx ":                   "1",
		"sked_engine_http_duration_seconds class=4xx ":                   "1",
	} {
		if seen[k] != v {
			t.Errorf("%s= %q, want %s (all: %v)", k, seen[k], v, seen)
		}
	}
	if seen["sked_engine_claim_duration_seconds "] != "0" {
		t.Errorf("claim durations %q: runDue does not observe them", seen["sked_engine_claim_duration_seconds "])
	}
}

// gaugeValue gathers reg and returns the value of the gauge name.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}

func TestTargetFaultsAreFailedAttemptsWithBoundedMessages(t *testing.T) {
	big := strings.Repeat("é", 5<<20) // 10 MB of two-byte runes
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang":
			<-r.Context().Done()
		case "/500":
			http.Error(w, "nope\x00", http.StatusInternalServerError)
		case "/reset":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case "/big":
			io.WriteString(w, big)
		}
	})
	none := `"retryPolicy":{"retryType":"none"}`
	ids := map[string]int64{}
	for _, p := range []string{"hang", "500", "reset", "big"} {
		ids[p] = e.put(p, `{"action":`+e.action("/"+p, none+`,"timeout":"PT1S"`)+`}`)
	}
	e.drain()
	msg := func(p string) models.HistoryEntry {
		h := e.history(ids[p])
		if len(h) != 1 {
			t.Fatalf("%s: %d history entries", p, len(h))
		}
		return h[0]
	}
	if h := msg("hang"); h.Status != "Failed" || h.Message != "timed out after 1s" {
		t.Errorf("hang: %s %q", h.Status, h.Message)
	}
	if h := msg("500"); h.Status != "Failed" || !strings.HasPrefix(h.Message, "HTTP 500 Internal Server Error\nnope") {
		t.Errorf("500: %s %q", h.Status, h.Message)
	}
	if h := msg("reset"); h.Status != "Failed" || !strings.HasPrefix(h.Message, "request failed: ") {
		t.Errorf("reset: %s %q", h.Status, h.Message)
	}
	if h := msg("big"); h.Status != "Completed" || len(h.Message) != len("HTTP 200 OK\n")+2048 {
		t.Errorf("10 MB body: %s, message of %d bytes", h.Status, len(h.Message))
	}
	for p, id := range ids {
		if j := e.job(id); (p == "big") != (j.State == "completed") {
			t.Errorf("%s: state %s", p, j.State)
		}
	}
}

func TestJobCreatedWhileNoEngineRanIsScheduledFromWhenAnEngineSeesIt(t *testing.T) {
	e := newEnv(t, nil)
	once := e.put("once", `{"action":`+e.action("/o", "")+`}`)
	every := e.put("every", `{"action":`+e.action("/e", "")+`,"recurrence":{"frequency":"hour"}}`)
	// The engine starts ten minutes later.
	now := e.clock.Add(10 * time.Minute)
	e.drain()
	for _, id := range []int64{once, every} {
		h := e.history(id)
		if len(h) != 1 || h[0].Status != "Completed" || !h[0].ExpectedExecutionTime.Equal(now) {
			t.Errorf("job %d: history %v, want one run now (%v)", id, historyLines(h), now)
		}
	}
	if j := e.job(every); j.NextRunAt == nil || !j.NextRunAt.Equal(now.Add(time.Hour)) {
		t.Errorf("next run %v, want an hour after the engine saw the job", j.NextRunAt)
	}
}
