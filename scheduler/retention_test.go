package scheduler

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
