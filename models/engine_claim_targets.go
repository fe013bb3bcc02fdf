package models

import (
	"encoding/json"
	"fmt"
	"time"

	"sked/models/jobdef"

	"gorm.io/gorm"
)

// Target limits in the claim (SPEC §16.2, migration 0037).
//
// A claim reads the limits of every workspace first (one small query;
// none: the claim is what it was without limits). An attempt to a limited
// host that the claim would start (a due occurrence, a due pending
// attempt) is instead held: stored or left pending, tagged with its host
// (job_attempts.target_workspace, target_host) and the moment it was first
// held (limit_held_at). The claim's last pass, startLimited, starts the
// held attempts of each host in due-time order while the host has room:
// fewer running tagged attempts than max_concurrent, fewer starts in the
// current second of the database's clock than max_per_second (counted in
// the limit's row; none in its last 200 ms, perSecondGuard). The passes over untagged attempts never see the held
// ones, so that a full host holds up nothing else.
//
// Locks: the limit rows come after the jobs and attempts the claim has
// locked (models/locks.go). Tagging holds the rows of its limits FOR KEY
// SHARE (waiting only for a DeleteTargetLimit of that row, which takes no
// other lock before it), so that a deleted limit's attempts are never
// tagged after the delete untagged them; startLimited locks a host's row
// FOR NO KEY UPDATE SKIP LOCKED (one engine at a time starts a host's
// attempts: the count it reads, in a statement after the lock, is final)
// and then that host's attempts.

// targetKey is a limited host of a workspace.
type targetKey struct {
	WS   string `json:"ws"`
	Host string `json:"host"`
}

// claimLimits are the limits a claim found at its start.
type claimLimits map[targetKey]bool

// readLimits reads the keys of every target limit (no lock).
func readLimits(tx *gorm.DB) (claimLimits, error) {
	var keys []struct {
		WorkspaceID string
		Host        string
	}
	if err := tx.Raw(`SELECT workspace_id, host FROM target_limits`).Scan(&keys).Error; err != nil {
		return nil, fmt.Errorf("read target limits: %w", err)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	out := make(claimLimits, len(keys))
	for _, k := range keys {
		out[targetKey{k.WorkspaceID, k.Host}] = true
	}
	return out, nil
}

// collectionWorkspaces returns the workspace of each collection of ids.
func collectionWorkspaces(tx *gorm.DB, ids map[int64]bool) (map[int64]string, error) {
	list := make([]int64, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	var rows []struct {
		ID          int64
		WorkspaceID string
	}
	if err := tx.Raw(`SELECT c.id, g.workspace_id FROM job_collections c JOIN resource_groups g ON g.id = c.resource_group_id
		WHERE c.id IN ?`, list).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("workspaces of collections: %w", err)
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.WorkspaceID
	}
	return out, nil
}

// targetItem is one attempt the claim would start: its job's collection,
// definition and action, for limitedTargets.
type targetItem struct {
	jobID, collection int64
	def               json.RawMessage
	secrets           jobdef.Secrets
	action            ActionName
}

// limitedTargets returns, for each item, the limited host it counts
// under (nil: none), with the limit's row held FOR KEY SHARE (a limit
// deleted meanwhile holds nothing). Without limits or req.Target it
// returns nil.
func limitedTargets(tx *gorm.DB, req ClaimRequest, limits claimLimits, items []targetItem) ([]*targetKey, error) {
	if len(limits) == 0 || req.Target == nil || len(items) == 0 {
		return nil, nil
	}
	cols := map[int64]bool{}
	for _, it := range items {
		cols[it.collection] = true
	}
	wsOf, err := collectionWorkspaces(tx, cols)
	if err != nil {
		return nil, err
	}
	out := make([]*targetKey, len(items))
	var want []targetKey
	seen := map[targetKey]bool{}
	for i, it := range items {
		ws := wsOf[it.collection]
		host := req.Target(it.jobID, it.def, it.secrets, it.action)
		k := targetKey{ws, host}
		if host == "" || !limits[k] {
			continue
		}
		out[i] = &k
		if !seen[k] {
			seen[k] = true
			want = append(want, k)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	held, err := holdForLimits(tx, want)
	if err != nil {
		return nil, err
	}
	for i, k := range out {
		if k != nil && !held[*k] {
			out[i] = nil
		}
	}
	return out, nil
}

// holdForLimits locks the limit rows of keys FOR KEY SHARE, in key order,
// and returns those that exist.
func holdForLimits(tx *gorm.DB, keys []targetKey) (map[targetKey]bool, error) {
	data, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("hold target limits: %w", err)
	}
	var rows []struct {
		WorkspaceID string
		Host        string
	}
	if err := tx.Raw(`SELECT t.workspace_id, t.host FROM target_limits t
		JOIN json_to_recordset(?::json) AS k(ws text, host text) ON t.workspace_id = k.ws AND t.host = k.host
		ORDER BY t.workspace_id, t.host FOR KEY SHARE OF t`, string(data)).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("hold target limits: %w", err)
	}
	out := make(map[targetKey]bool, len(rows))
	for _, r := range rows {
		out[targetKey{r.WorkspaceID, r.Host}] = true
	}
	return out, nil
}

// tagAttempts holds the pending attempts ids (locked by the claim) for
// their hosts' limits.
func tagAttempts(tx *gorm.DB, req ClaimRequest, ids []int64, keys []targetKey) error {
	type tag struct {
		ID int64 `json:"id"`
		targetKey
	}
	tags := make([]tag, len(ids))
	for i := range ids {
		tags[i] = tag{ids[i], keys[i]}
	}
	data, err := json.Marshal(tags)
	if err != nil {
		return fmt.Errorf("hold attempts for target limits: %w", err)
	}
	err = tx.Exec(`UPDATE job_attempts a SET target_workspace = k.ws, target_host = k.host,
			limit_held_at = coalesce(a.limit_held_at, ?::timestamptz)
		FROM json_to_recordset(?::json) AS k(id bigint, ws text, host text) WHERE a.id = k.id`, req.Now, string(data)).Error
	if err != nil {
		return fmt.Errorf("hold attempts for target limits: %w", err)
	}
	return nil
}

// perSecondGuard is the end of each second (by the database's clock) in
// which no attempt to a host with a per-second limit starts: a request
// started just before a second ends reaches its target only after the
// claim's commit and the engine's dispatch, and would count, as the
// target sees it, in the next second with that second's whole budget.
// Starting them in the first 800 ms of a second keeps up to 200 ms of
// such delay inside the second.
const perSecondGuard = 200 * time.Millisecond

// lockedLimit is a limit startLimited locked, with the host's running
// attempts and the starts of the database's current second.
type lockedLimit struct {
	WorkspaceID   string
	Host          string
	MaxConcurrent *int
	MaxPerSecond  *int
	SecondAt      *time.Time
	SecondStarts  int
	// DBNow is the database's clock after the lock.
	DBNow         time.Time
	Running       int
	LongestWaitMs *int64
	LongestWaitAt *time.Time
}

// startLimited starts up to limit held attempts of limited hosts that
// have room, per host in due-time order (due_at, then id), and counts
// them in their limits' rows. A host locked by another claim is left to
// it.
func (s *Store) startLimited(tx *gorm.DB, req ClaimRequest, limit int) ([]ClaimedAttempt, error) {
	var keys []targetKey
	if err := tx.Raw(`SELECT t.workspace_id AS ws, t.host FROM target_limits t
		WHERE EXISTS (SELECT 1 FROM job_attempts a WHERE a.target_workspace = t.workspace_id AND a.target_host = t.host
		              AND a.status = 'pending' AND a.due_at <= ?)
		ORDER BY t.workspace_id, t.host FOR NO KEY UPDATE OF t SKIP LOCKED`, req.Now).Scan(&keys).Error; err != nil {
		return nil, fmt.Errorf("lock target limits: %w", err)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	data, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("lock target limits: %w", err)
	}
	// A statement of its own, after the locks: its snapshot sees what the
	// claim that held a row before committed.
	var locked []lockedLimit
	if err := tx.Raw(`SELECT t.workspace_id, t.host, t.max_concurrent, t.max_per_second, t.second_at, t.second_starts,
			clock_timestamp() AS db_now, t.longest_wait_ms, t.longest_wait_at,
			(SELECT count(*) FROM job_attempts r WHERE r.target_workspace = t.workspace_id AND r.target_host = t.host
			  AND r.status = 'running') AS running
		FROM target_limits t JOIN json_to_recordset(?::json) AS k(ws text, host text) ON t.workspace_id = k.ws AND t.host = k.host
		ORDER BY t.workspace_id, t.host`, string(data)).Scan(&locked).Error; err != nil {
		return nil, fmt.Errorf("count target limits: %w", err)
	}
	var out []ClaimedAttempt
	for _, l := range locked {
		if limit <= 0 {
			break
		}
		room := limit
		if l.MaxConcurrent != nil {
			room = min(room, *l.MaxConcurrent-l.Running)
		}
		second := l.DBNow.Truncate(time.Second)
		starts := 0
		if l.SecondAt != nil && l.SecondAt.Equal(second) {
			starts = l.SecondStarts
		}
		if l.MaxPerSecond != nil {
			room = min(room, *l.MaxPerSecond-starts)
			if l.DBNow.Sub(second) >= time.Second-perSecondGuard {
				room = 0 // the next second (NextWake)
			}
		}
		if room <= 0 {
			continue
		}
		due, err := scanAll(tx, (*ClaimedAttempt).pendingFields, pendingAttemptColumns+`
			WHERE a.target_workspace = ? AND a.target_host = ? AND a.status = 'pending' AND a.due_at <= ?
			  AND j.state = 'enabled' AND c.state = 'Enabled'
			ORDER BY a.due_at, a.id LIMIT ? FOR UPDATE OF a SKIP LOCKED`, l.WorkspaceID, l.Host, req.Now, room)
		if err != nil {
			return nil, fmt.Errorf("select held attempts: %w", err)
		}
		if len(due) == 0 {
			continue
		}
		if err := s.startAttempts(tx, req, due); err != nil {
			return nil, err
		}
		longest, at := l.LongestWaitMs, l.LongestWaitAt
		for i := range due {
			due[i].TargetHost = l.Host
			w := due[i].LimitWaitMs
			if w == nil {
				continue
			}
			if longest == nil || at == nil || at.Before(second.Add(-time.Hour)) || *w > *longest {
				v, t := *w, second
				longest, at = &v, &t
			}
		}
		if err := tx.Exec(`UPDATE target_limits SET second_at = ?, second_starts = ?, longest_wait_ms = ?, longest_wait_at = ?
			WHERE workspace_id = ? AND host = ?`, second, starts+len(due), longest, at, l.WorkspaceID, l.Host).Error; err != nil {
			return nil, fmt.Errorf("count target starts: %w", err)
		}
		out = append(out, due...)
		limit -= len(due)
	}
	return out, nil
}
