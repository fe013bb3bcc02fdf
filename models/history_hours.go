package models

import (
	"context"
	"fmt"
	"time"
)

// hourlyBuckets is ExecutionBuckets for hour-wide buckets starting on a
// whole hour (p.From), read from history_hours (its slots added up),
// which every history write keeps up to date (models/rollups.go), the
// current hour included.
// workspaces are those the user sees (p.UserID and p.Now are not read).
func (s *Store) hourlyBuckets(ctx context.Context, workspaces []string, p ExecutionBucketsParams) ([]HistoryBucket, error) {
	var out []HistoryBucket
	err := s.db.WithContext(ctx).Raw(`
		SELECT floor(extract(epoch FROM (hour - ?::timestamptz)) / 3600)::int AS bucket, status,
		       sum(count)::bigint AS count, max(max_lateness_ms) AS max_lateness_ms
		FROM history_hours
		WHERE workspace_id IN ? AND hour >= ? AND hour < ?
		GROUP BY 1, 2
		HAVING sum(count) > 0
		ORDER BY 1, 2`, p.From, workspaces, p.From, p.To).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("hourly buckets: %w", err)
	}
	return out, nil
}

// ExecutionBucketsParams selects the history of ExecutionBuckets: the
// entries that started in [From, To) in the workspaces UserID belongs to
// (only in Workspace when it is set; "" is all of them), Now being the
// clock.
type ExecutionBucketsParams struct {
	UserID        int64
	Workspace     string
	From, To, Now time.Time
}

// ExecutionBuckets counts, per hour and per status, the history entries
// that started in [p.From, p.To) across every job of the workspaces
// p.UserID belongs to (the dashboard's picture of the last 24 hours);
// bucket i is the hour p.From + i h, p.From being taken to its whole hour.
// The counts are read from history_hours, kept on write (p.Now is not
// read).
// It is a read model for the dashboard.
func (s *Store) ExecutionBuckets(ctx context.Context, p ExecutionBucketsParams) ([]HistoryBucket, error) {
	wss, err := s.WorkspacesOf(ctx, p.UserID)
	if err != nil {
		return nil, translate("models: execution buckets", err)
	}
	if len(wss) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(wss))
	for _, w := range wss {
		if p.Workspace == "" || w.ID == p.Workspace {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	p.From = p.From.Truncate(time.Hour)
	out, err := s.hourlyBuckets(ctx, ids, p)
	if err != nil {
		return nil, translate("models: execution buckets", err)
	}
	return mergeBuckets(out), nil
}

// mergeBuckets adds up buckets of the same bucket and status.
func mergeBuckets(in []HistoryBucket) []HistoryBucket {
	type key struct {
		bucket int
		status HistoryStatus
	}
	index := map[key]int{}
	var out []HistoryBucket
	for _, b := range in {
		k := key{b.Bucket, b.Status}
		i, ok := index[k]
		if !ok {
			index[k] = len(out)
			out = append(out, b)
			continue
		}
		out[i].Count += b.Count
		if b.MaxLatenessMs != nil && (out[i].MaxLatenessMs == nil || *b.MaxLatenessMs > *out[i].MaxLatenessMs) {
			out[i].MaxLatenessMs = b.MaxLatenessMs
		}
	}
	return out
}
