package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// hourSettled is how long after its end an hour's history can still grow:
// an entry is written when its attempt ends (at most the 10-minute action
// timeout plus the lease margin after it started). Older hours are
// counted once and kept in history_hours.
const hourSettled = 15 * time.Minute

// hourlyBuckets is ExecutionBuckets for hour-wide buckets starting on a
// whole hour (p.From): settled hours come from history_hours (counted now
// when missing), the rest is counted live. workspaces are those the user
// sees (p.UserID is not read).
func (s *Store) hourlyBuckets(ctx context.Context, workspaces []string, p ExecutionBucketsParams) ([]HistoryBucket, error) {
	from, to, now := p.From, p.To, p.Now
	settledEnd := now.Add(-hourSettled).Truncate(time.Hour)
	if settledEnd.After(to) {
		settledEnd = to
	}
	if settledEnd.Before(from) {
		settledEnd = from
	}
	if settledEnd.After(from) {
		if err := s.countHours(ctx, workspaces, from, settledEnd); err != nil {
			return nil, err
		}
	}
	var out []HistoryBucket
	err := s.db.WithContext(ctx).Raw(`
		SELECT floor(extract(epoch FROM (hour - ?::timestamptz)) / 3600)::int AS bucket, status,
		       sum(count)::bigint AS count, max(max_lateness_ms) AS max_lateness_ms
		FROM history_hours
		WHERE workspace_id IN ? AND hour >= ? AND hour < ?
		GROUP BY 1, 2
		UNION ALL
		SELECT floor(extract(epoch FROM (h.start_time - ?::timestamptz)) / 3600)::int, h.status, count(*), max(h.lateness_ms)
		FROM job_history h
		JOIN jobs j ON j.id = h.job_id
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE h.start_time >= ? AND h.start_time < ? AND rg.workspace_id IN ?
		GROUP BY 1, 2
		ORDER BY 1, 2`, from, workspaces, from, settledEnd, from, settledEnd, to, workspaces).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("hourly buckets: %w", err)
	}
	return out, nil
}

// countHours counts, into history_hours, the hours in [from, to) of the
// workspaces that are not counted yet. Two instances counting at once
// write the same numbers; the second insert is ignored.
func (s *Store) countHours(ctx context.Context, workspaces []string, from, to time.Time) error {
	var missing []struct {
		WorkspaceID string
		Hour        time.Time
	}
	err := s.db.WithContext(ctx).Raw(`
		SELECT w.id AS workspace_id, g.hour
		FROM unnest(?::text[]) AS w(id)
		CROSS JOIN generate_series(?::timestamptz, ?::timestamptz - interval '1 hour', interval '1 hour') AS g(hour)
		WHERE NOT EXISTS (SELECT 1 FROM history_hours_done d WHERE d.workspace_id = w.id AND d.hour = g.hour)`,
		pgTextArray(workspaces), from, to).Scan(&missing).Error
	if err != nil || len(missing) == 0 {
		return err
	}
	first, last := missing[0].Hour, missing[0].Hour
	ws := map[string]bool{}
	for _, m := range missing {
		if m.Hour.Before(first) {
			first = m.Hour
		}
		if m.Hour.After(last) {
			last = m.Hour
		}
		ws[m.WorkspaceID] = true
	}
	names := make([]string, 0, len(ws))
	for w := range ws {
		names = append(names, w)
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Exec(`
			INSERT INTO history_hours (workspace_id, hour, status, count, max_lateness_ms)
			SELECT rg.workspace_id, date_trunc('hour', h.start_time), h.status, count(*), max(h.lateness_ms)
			FROM job_history h
			JOIN jobs j ON j.id = h.job_id
			JOIN job_collections c ON c.id = j.job_collection_id
			JOIN resource_groups rg ON rg.id = c.resource_group_id
			WHERE h.start_time >= ? AND h.start_time < ? AND rg.workspace_id IN ?
			  AND NOT EXISTS (SELECT 1 FROM history_hours_done d
			                  WHERE d.workspace_id = rg.workspace_id AND d.hour = date_trunc('hour', h.start_time))
			GROUP BY 1, 2, 3
			ON CONFLICT DO NOTHING`, first, last.Add(time.Hour), names).Error
		if err != nil {
			return err
		}
		return tx.Exec(`
			INSERT INTO history_hours_done (workspace_id, hour)
			SELECT w.id, g.hour
			FROM unnest(?::text[]) AS w(id)
			CROSS JOIN generate_series(?::timestamptz, ?::timestamptz, interval '1 hour') AS g(hour)
			ON CONFLICT DO NOTHING`, pgTextArray(names), first, last).Error
	})
}

// pgTextArray writes a PostgreSQL text[] literal.
func pgTextArray(values []string) string {
	out := "{"
	for i, v := range values {
		if i > 0 {
			out += ","
		}
		out += `"`
		for _, r := range v {
			if r == '"' || r == '\\' {
				out += `\`
			}
			out += string(r)
		}
		out += `"`
	}
	return out + "}"
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
// Settled hours are read from history_hours (counted there the first
// time), the rest is counted live. p.Now is the clock.
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

// mergeBuckets adds up buckets of the same bucket and status (the cached
// and the live part of one hour).
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
