package engine

import (
	"context"
	"sked/models"
	"time"
)

// retention prunes history, ended backfills, finished jobs, attempts, the
// audit log and the delivery log every RetentionInterval, starting one minute after Start.
func (e *Engine) retention() {
	e.every(min(time.Minute, e.cfg.RetentionInterval), e.cfg.RetentionInterval, func() {
		if _, err := e.prune(e.bgCtx); err != nil && e.bgCtx.Err() == nil {
			e.logger.Warn("engine: retention failed", "err", err)
		}
	})
}

// every runs run after first (at once when first is zero), then every
// interval, on the engine's clock, until the engine stops. It returns when
// it does.
func (e *Engine) every(first, interval time.Duration, run func()) {
	for wait := first; ; wait = interval {
		if wait > 0 {
			t := e.clock.NewTimer(wait)
			select {
			case <-e.bgCtx.Done():
				t.Stop()
				return
			case <-t.C():
			}
		} else if e.bgCtx.Err() != nil {
			return
		}
		run()
	}
}

// prune applies the retention settings once.
func (e *Engine) prune(ctx context.Context) (models.PruneStats, error) {
	r := models.Retention{
		HistoryMaxAge: e.cfg.HistoryMaxAge, HistoryPerJob: e.cfg.HistoryPerJob,
		FinishedJobMaxAge: e.cfg.FinishedJobMaxAge,
		InstanceMaxAge:    deadInstanceMaxAge, AuditMaxAge: e.cfg.AuditMaxAge,
		NotificationMaxAge: e.cfg.NotificationMaxAge,
	}
	st, err := e.store.Prune(ctx, e.clock.Now(), r)
	if err != nil {
		return st, err
	}
	if st.History+st.Jobs+st.Instances+st.Audit+st.Notifications+st.Backfills > 0 {
		e.logger.Info("engine: retention", "history_deleted", st.History, "history_rewritten", st.HistoryRewritten, "jobs_deleted", st.Jobs,
			"instances_deleted", st.Instances, "audit_deleted", st.Audit, "notifications_deleted", st.Notifications,
			"backfills_deleted", st.Backfills)
	}
	return st, nil
}

// historyPartitionInterval is how often an engine makes sure the
// history's partitions of the coming days exist (at its start, then every
// hour): days ahead of need (models.HistoryDaysAhead), so that an engine
// that was stopped for days, or a day's partition that could not be
// created (a lock not granted in time), is caught up long before its day.
const historyPartitionInterval = time.Hour

// historyPartitions creates the history's coming day partitions at Start
// and every historyPartitionInterval until the engine stops.
func (e *Engine) historyPartitions() {
	e.every(0, historyPartitionInterval, func() {
		n, err := e.store.EnsureHistoryPartitions(e.bgCtx, e.clock.Now())
		switch {
		case err != nil && e.bgCtx.Err() == nil:
			e.logger.Warn("engine: history partitions", "err", err)
		case n > 0:
			e.logger.Info("engine: history partitions created", "partitions", n)
		}
	})
}
