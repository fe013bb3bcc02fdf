package models

import (
	"context"
	"time"
)

// Reads of the trigger graph and of what triggered what (SPEC §17.1), for
// the API and the pages.

// TriggerJob is a job of the trigger graph: its id and its path.
type TriggerJob struct {
	ID            int64
	WorkspaceID   string
	ResourceGroup string
	Collection    string
	Name          string
}

// Path is the job's rg/jc/name.
func (j TriggerJob) Path() string { return j.ResourceGroup + "/" + j.Collection + "/" + j.Name }

// triggerJobSelect selects TriggerJob's columns from jobs j, job_collections
// c and resource_groups g.
const triggerJobSelect = `j.id, g.workspace_id, g.name AS resource_group, c.name AS collection, j.name`

// TriggerLinks returns the jobs job id runs after (upstream, in the order
// of its trigger.after) and the jobs that run after it (downstream, by
// path).
func (s *Store) TriggerLinks(ctx context.Context, id int64) (upstream, downstream []TriggerJob, err error) {
	db := s.db.WithContext(ctx)
	err = db.Raw(`SELECT `+triggerJobSelect+` FROM job_trigger_upstreams e JOIN jobs j ON j.id = e.upstream_id
		JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups g ON g.id = c.resource_group_id
		WHERE e.downstream_id = ? ORDER BY e.position`, id).Scan(&upstream).Error
	if err != nil {
		return nil, nil, translate("models: trigger links", err)
	}
	err = db.Raw(`SELECT `+triggerJobSelect+` FROM job_trigger_upstreams e JOIN jobs j ON j.id = e.downstream_id
		JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups g ON g.id = c.resource_group_id
		WHERE e.upstream_id = ? ORDER BY g.name, c.name, j.name`, id).Scan(&downstream).Error
	if err != nil {
		return nil, nil, translate("models: trigger links", err)
	}
	return upstream, downstream, nil
}

// TriggerCause is an upstream occurrence's end that triggered a run.
type TriggerCause struct {
	// ExpectedTime is the triggered run's (its history entries').
	ExpectedTime time.Time
	// Upstream is the upstream job; its Name is "" when it was deleted.
	Upstream TriggerJob
	// HistoryID is the upstream's history entry of the attempt that
	// ended its occurrence, EndedAt that attempt's end.
	HistoryID int64
	EndedAt   time.Time
}

// TriggerCauses returns the upstream ends that triggered the runs of job
// id expected at expected (its history entries' expected times), by
// expected time (UTC, as time.Time keys compare) in the order of the job's
// trigger.after.
func (s *Store) TriggerCauses(ctx context.Context, id int64, expected []time.Time) (map[time.Time][]TriggerCause, error) {
	out := map[time.Time][]TriggerCause{}
	if len(expected) == 0 {
		return out, nil
	}
	var rows []struct {
		ExpectedTime      time.Time
		UpstreamID        int64
		UpstreamHistoryID int64
		UpstreamEndedAt   time.Time
		WorkspaceID       *string
		ResourceGroup     *string
		Collection        *string
		Name              *string
	}
	err := s.db.WithContext(ctx).Raw(`SELECT k.expected_time, k.upstream_id, k.upstream_history_id, k.upstream_ended_at,
			g.workspace_id, g.name AS resource_group, c.name AS collection, j.name
		FROM job_trigger_causes k
		LEFT JOIN jobs j ON j.id = k.upstream_id
		LEFT JOIN job_collections c ON c.id = j.job_collection_id LEFT JOIN resource_groups g ON g.id = c.resource_group_id
		LEFT JOIN job_trigger_upstreams e ON e.downstream_id = k.downstream_id AND e.upstream_id = k.upstream_id
		WHERE k.downstream_id = ? AND k.expected_time IN ?
		ORDER BY k.expected_time, e.position NULLS LAST, k.upstream_id`, id, expected).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: trigger causes", err)
	}
	for _, r := range rows {
		c := TriggerCause{ExpectedTime: r.ExpectedTime.UTC(), HistoryID: r.UpstreamHistoryID, EndedAt: r.UpstreamEndedAt,
			Upstream: TriggerJob{ID: r.UpstreamID}}
		if r.Name != nil {
			c.Upstream.WorkspaceID, c.Upstream.ResourceGroup, c.Upstream.Collection, c.Upstream.Name = *r.WorkspaceID, *r.ResourceGroup, *r.Collection, *r.Name
		}
		out[c.ExpectedTime] = append(out[c.ExpectedTime], c)
	}
	return out, nil
}

// TriggeredRun is a run of a downstream job that an upstream's end
// triggered.
type TriggeredRun struct {
	// UpstreamHistoryID is the upstream's history entry that caused it.
	UpstreamHistoryID int64
	Downstream        TriggerJob
	ExpectedTime      time.Time
}

// TriggeredRuns returns the runs that the upstream history entries
// historyIDs triggered, by history id, in the downstreams' path order.
func (s *Store) TriggeredRuns(ctx context.Context, historyIDs []int64) (map[int64][]TriggeredRun, error) {
	out := map[int64][]TriggeredRun{}
	if len(historyIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		UpstreamHistoryID int64
		ExpectedTime      time.Time
		TriggerJob
	}
	err := s.db.WithContext(ctx).Raw(`SELECT k.upstream_history_id, k.expected_time, `+triggerJobSelect+`
		FROM job_trigger_causes k JOIN jobs j ON j.id = k.downstream_id
		JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups g ON g.id = c.resource_group_id
		WHERE k.upstream_history_id IN ?
		ORDER BY k.upstream_history_id, g.name, c.name, j.name, k.expected_time`, historyIDs).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: triggered runs", err)
	}
	for _, r := range rows {
		out[r.UpstreamHistoryID] = append(out[r.UpstreamHistoryID],
			TriggeredRun{UpstreamHistoryID: r.UpstreamHistoryID, Downstream: r.TriggerJob, ExpectedTime: r.ExpectedTime.UTC()})
	}
	return out, nil
}

// UpstreamJobs returns the ids of the jobs that other jobs run after (the
// engine records their results without lingering).
func (s *Store) UpstreamJobs(ctx context.Context) ([]int64, error) {
	var ids []int64
	if err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT upstream_id FROM job_trigger_upstreams`).Scan(&ids).Error; err != nil {
		return nil, translate("models: upstream jobs", err)
	}
	return ids, nil
}
