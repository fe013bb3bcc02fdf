package models

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxTargetLimit is the largest value of a target limit (maxConcurrent,
// maxPerSecond; the table's CHECK).
const MaxTargetLimit = 100_000

// TargetLimit is a workspace's limit of what its jobs send to one host
// (SPEC §16.2, migration 0037): at most MaxConcurrent attempts in flight
// across all engines and at most MaxPerSecond starts in any second (by the
// database's clock). A nil limit is no limit of that kind; at least one is
// set.
type TargetLimit struct {
	WorkspaceID   string
	Host          string
	MaxConcurrent *int
	MaxPerSecond  *int
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// TargetStatus is a limit with what the engines do under it now.
type TargetStatus struct {
	TargetLimit
	// InFlight counts the running attempts counted under the limit;
	// Waiting the attempts due and held for it.
	InFlight int64
	Waiting  int64
	// LongestWaitMs is the longest wait for the limit of an attempt
	// started within the last hour (nil: none).
	LongestWaitMs *int64
}

// TableName tells GORM the table.
func (TargetLimit) TableName() string { return "target_limits" }

// NormalizeTargetHost returns s as a target limit's key: the host or
// host:port of a request URI, lower case, an IPv6 address in brackets, a
// default port (80, 443) dropped. It refuses anything else (a scheme, a
// path, user info, a bad name or port) with an error that says why.
func NormalizeTargetHost(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", fmt.Errorf("is empty")
	}
	if len(s) > 261 || strings.ContainsAny(s, "/?#@ \t") {
		return "", fmt.Errorf("%q is not a host or host:port (no scheme, path or user)", s)
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	} else if strings.Count(s, ":") > 0 {
		return "", fmt.Errorf("%q is not a host or host:port", s)
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return "", fmt.Errorf("%q has no valid port (1–65535)", s)
		}
		if n == 80 || n == 443 {
			port = ""
		}
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.To4() == nil {
			host = "[" + ip.String() + "]"
		} else {
			host = ip.String()
		}
	} else if !validHostName(host) {
		return "", fmt.Errorf("%q is not a host name (letters, digits, '-', '_' and dots)", s)
	}
	if port != "" {
		return host + ":" + port, nil
	}
	return host, nil
}

// validHostName reports whether h is a DNS name: dot-separated labels of
// 1–63 letters, digits, '-' or '_', not starting or ending with '-'.
func validHostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// TargetHostOfURL returns the target limit's key of an absolute URL (its
// host or host:port, as NormalizeTargetHost makes it; the scheme's default
// port dropped), "" when it has none.
func TargetHostOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	h, err := NormalizeTargetHost(u.Host)
	if err != nil {
		return ""
	}
	return h
}

// TargetLimitWrite is what PutTargetLimit writes.
type TargetLimitWrite struct {
	WorkspaceID string
	// Host is normalised (NormalizeTargetHost).
	Host                        string
	MaxConcurrent, MaxPerSecond *int
	Now                         time.Time
}

// PutTargetLimit creates or replaces the limit of w.Host in
// w.WorkspaceID and wakes the engines (a raised limit lets waiting
// attempts start). It reports whether the limit was created; an unknown
// workspace is ErrNotFound.
func (s *Store) PutTargetLimit(ctx context.Context, w TargetLimitWrite) (created bool, err error) {
	var rows []struct{ Inserted bool }
	err = s.db.WithContext(ctx).Raw(`
		INSERT INTO target_limits (workspace_id, host, max_concurrent, max_per_second, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, host) DO UPDATE
		SET max_concurrent = EXCLUDED.max_concurrent, max_per_second = EXCLUDED.max_per_second,
		    updated_at = EXCLUDED.updated_at
		RETURNING (xmax = 0) AS inserted`,
		w.WorkspaceID, w.Host, w.MaxConcurrent, w.MaxPerSecond, w.Now, w.Now).Scan(&rows).Error
	if err == nil {
		err = s.db.WithContext(ctx).Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	}
	if err != nil {
		return false, translate("models: put target limit", err)
	}
	return len(rows) == 1 && rows[0].Inserted, nil
}

// DeleteTargetLimit deletes the limit of host in workspaceID (ErrNotFound
// when there is none). It takes effect at once: the attempts waiting for
// it lose their host (their wait so far is kept, limit_held_at) and the
// engines are woken to start them.
func (s *Store) DeleteTargetLimit(ctx context.Context, workspaceID, host string) error {
	db := s.db.WithContext(ctx)
	res := db.Exec(`DELETE FROM target_limits WHERE workspace_id = ? AND host = ?`, workspaceID, host)
	if res.Error != nil {
		return translate("models: delete target limit", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	// A claim that tags an attempt holds the limit's row FOR KEY SHARE
	// (holdForLimits), which the delete above waited for: this statement's
	// snapshot sees every attempt tagged for the limit.
	err := db.Exec(`UPDATE job_attempts SET target_workspace = NULL, target_host = NULL
		WHERE target_workspace = ? AND target_host = ? AND status = 'pending'`, workspaceID, host).Error
	if err == nil {
		err = db.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error
	}
	if err != nil {
		return translate("models: delete target limit", err)
	}
	return nil
}

// TargetLimit returns the limit of host in workspaceID, or ErrNotFound.
func (s *Store) TargetLimit(ctx context.Context, workspaceID, host string) (*TargetLimit, error) {
	var t TargetLimit
	err := s.db.WithContext(ctx).Where("workspace_id = ? AND host = ?", workspaceID, host).Take(&t).Error
	if err != nil {
		return nil, translate("models: target limit", err)
	}
	return &t, nil
}

// TargetStatuses returns the limits of workspaceID by host, each with
// its attempts in flight and waiting now and its longest wait in the last
// hour (by the database's clock).
func (s *Store) TargetStatuses(ctx context.Context, workspaceID string) ([]TargetStatus, error) {
	var rows []struct {
		TargetLimit
		InFlight      int64
		Waiting       int64
		LongestWaitMs *int64
	}
	err := s.db.WithContext(ctx).Raw(`
		SELECT t.workspace_id, t.host, t.max_concurrent, t.max_per_second, t.created_at, t.updated_at,
		       (SELECT count(*) FROM job_attempts a WHERE a.target_workspace = t.workspace_id AND a.target_host = t.host
		         AND a.status = 'running') AS in_flight,
		       (SELECT count(*) FROM job_attempts a WHERE a.target_workspace = t.workspace_id AND a.target_host = t.host
		         AND a.status = 'pending') AS waiting,
		       CASE WHEN t.longest_wait_at > now() - interval '1 hour' THEN t.longest_wait_ms END AS longest_wait_ms
		FROM target_limits t WHERE t.workspace_id = ? ORDER BY t.host`, workspaceID).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: target limits", err)
	}
	out := make([]TargetStatus, len(rows))
	for i, r := range rows {
		out[i] = TargetStatus{TargetLimit: r.TargetLimit, InFlight: r.InFlight, Waiting: r.Waiting, LongestWaitMs: r.LongestWaitMs}
	}
	return out, nil
}

// TargetGauge is one limited host's attempts in flight and waiting, for
// the metrics (every workspace; Host alone labels it).
type TargetGauge struct {
	WorkspaceID string
	Host        string
	InFlight    int64
	Waiting     int64
}

// TargetGauges returns every limited host's attempts in flight and
// waiting, across the instances (the database's view).
func (s *Store) TargetGauges(ctx context.Context) ([]TargetGauge, error) {
	var out []TargetGauge
	err := s.db.WithContext(ctx).Raw(`
		SELECT t.workspace_id, t.host,
		       count(*) FILTER (WHERE a.status = 'running') AS in_flight,
		       count(*) FILTER (WHERE a.status = 'pending') AS waiting
		FROM target_limits t LEFT JOIN job_attempts a ON a.target_workspace = t.workspace_id AND a.target_host = t.host
		GROUP BY t.workspace_id, t.host ORDER BY t.workspace_id, t.host`).Scan(&out).Error
	if err != nil {
		return nil, translate("models: target gauges", err)
	}
	return out, nil
}
