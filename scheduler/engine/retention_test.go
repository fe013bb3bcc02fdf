package engine

import (
	"errors"
	"testing"
	"time"

	"sked/models"
)

func TestRetentionDeletesOldHistoryAndFinishedJobs(t *testing.T) {
	e := newEnv(t, nil)
	keep := e.put("keep", `{"action":`+e.action("/k", "")+`,"recurrence":{"frequency":"day"}}`)
	done := e.put("done", `{"action":`+e.action("/d", "")+`}`)
	e.drain()
	now := e.clock.Now()
	for i := range 5 {
		at := now.Add(-time.Duration(i) * time.Hour)
		if err := e.store.AddHistory(e.ctx, &models.HistoryEntry{JobID: keep, StartTime: at, ExpectedExecutionTime: at,
			ActionName: models.MainAction, Status: models.StatusCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	old := now.Add(-61 * 24 * time.Hour)
	if err := e.store.AddHistory(e.ctx, &models.HistoryEntry{JobID: keep, StartTime: old, ExpectedExecutionTime: old,
		ActionName: models.MainAction, Status: models.StatusCompleted}); err != nil {
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
	if _, err := e.store.JobByID(e.ctx, done); !errors.Is(err, models.ErrNotFound) || st.Jobs != 1 {
		t.Errorf("finished job 61 days later: %v (stats %+v)", err, st)
	}
}

func TestRetentionDeletesTheOldDeliveryLog(t *testing.T) {
	e := newEnv(t, failingPaths)
	h := newHook(t, nil)
	addWebhook(t, e.store, models.DefaultWorkspaceID, "hook", h.URL, h.secret)
	addRule(t, e.store, models.DefaultWorkspaceID, "all", `{"channel":"hook","events":["attemptFailed"],"minInterval":"PT1H"}`)
	start := e.clock.Now().Add(time.Minute)
	e.put("bad", `{"startTime":"`+rfc(start)+`","recurrence":{"frequency":"minute"},"action":`+e.action("/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	e.clock.Set(start)
	e.drain() // sent at once
	e.clock.Add(time.Minute)
	e.drain() // held for the digest, due at start+1h
	e.sendAll()
	e.clock.Add(61 * 24 * time.Hour)
	e.engine.cfg.NotificationMaxAge = 60 * 24 * time.Hour
	st, err := e.engine.prune(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The delivered one is gone, the digest (never sent: pending) stays.
	log := deliveries(t, e.store)
	if st.Notifications != 1 || len(log) != 1 || log[0].Status != models.NotificationPending {
		t.Errorf("deleted %d, kept %+v", st.Notifications, log)
	}
}
