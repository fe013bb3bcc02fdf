package models

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"sked/models/jobdef"
	"sked/models/notifydef"

	"gorm.io/gorm"
)

// Monitor is a stored heartbeat monitor of a workspace (SPEC §17.3,
// migration 0038): its definition (the canonical JSON of
// models/monitordef), its ping token (opened from its sealed copy; "" when
// the store cannot open it), and the engine's progress.
type Monitor struct {
	ID          int64
	WorkspaceID string
	Name        string
	Definition  json.RawMessage `gorm:"type:jsonb"`
	TokenHash   []byte
	TokenSealed []byte
	Token       string `gorm:"-"`
	// Anchor is the schedule's DTSTART: when it was last set.
	Anchor time.Time
	// CheckedThrough: every occurrence at or before it is decided.
	CheckedThrough time.Time
	// Status is MonitorNew, MonitorUp or MonitorDown (paused and late are
	// derived by the presenters).
	Status       string
	StatusSince  time.Time
	LastPingAt   *time.Time
	LastPingKind *string
	// LastSuccessAt is the last success ping's time.
	LastSuccessAt *time.Time
	// StartedAt is the open start ping; SlowRaisedFor the start whose
	// slowRun was raised.
	StartedAt     *time.Time
	SlowRaisedFor *time.Time
	Version       int64
	CreatedAt     time.Time
	UpdatedAt     time.Time
	CreatedBy     *int64
	UpdatedBy     *int64
}

// TableName tells GORM the table.
func (Monitor) TableName() string { return "monitors" }

// The stored states of a monitor (monitors.status).
const (
	MonitorNew  = "new"
	MonitorUp   = "up"
	MonitorDown = "down"
)

// MonitorTokenHash is the key a ping token is found by.
func MonitorTokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// MonitorWrite is what PutMonitor writes.
type MonitorWrite struct {
	WorkspaceID string
	// Name is the monitor's name; an existing monitor is found without
	// regard to case and keeps its spelling.
	Name string
	// Definition is the canonical JSON of models/monitordef.
	Definition json.RawMessage
	// Token is the ping token of a monitor PutMonitor creates (unused
	// when it replaces one).
	Token string
	// Restart, for a replaced monitor, starts its evaluation again at Now
	// (its schedule or grace changed, or it was resumed): anchor and
	// checked_through become Now, its state new.
	Restart bool
	// Now is the writer's clock: the anchor of a new monitor.
	Now time.Time
	// UserID (0: none) is recorded as creator or last editor.
	UserID int64
}

// PutMonitor creates the monitor w.Name of w.WorkspaceID or replaces the
// definition of the one of that name. It reports whether it was created;
// an unknown workspace is ErrNotFound. Writing without a secret key is
// ErrNoSecretKey (the token is sealed).
func (s *Store) PutMonitor(ctx context.Context, w MonitorWrite) (created bool, err error) {
	sealed, err := s.box.seal(jobdef.Secrets{"token": w.Token})
	if err != nil {
		return false, fmt.Errorf("models: put monitor: %w", err)
	}
	var by *int64
	if w.UserID != 0 {
		by = &w.UserID
	}
	now := w.Now.UTC()
	var rows []struct{ Inserted bool }
	err = s.db.WithContext(ctx).Raw(`
		INSERT INTO monitors (workspace_id, name, definition, token_hash, token_sealed, anchor, checked_through,
			status_since, created_at, updated_at, created_by, updated_by)
		VALUES (?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, lower(name)) DO UPDATE
		SET definition = EXCLUDED.definition,
		    version = monitors.version + CASE WHEN monitors.definition = EXCLUDED.definition THEN 0 ELSE 1 END,
		    anchor = CASE WHEN ? THEN EXCLUDED.anchor ELSE monitors.anchor END,
		    checked_through = CASE WHEN ? THEN EXCLUDED.checked_through ELSE monitors.checked_through END,
		    status = CASE WHEN ? THEN 'new' ELSE monitors.status END,
		    status_since = CASE WHEN ? THEN EXCLUDED.status_since ELSE monitors.status_since END,
		    updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
		RETURNING (xmax = 0) AS inserted`,
		w.WorkspaceID, w.Name, string(w.Definition), MonitorTokenHash(w.Token), sealed, now, now, now, now, now, by, by,
		w.Restart, w.Restart, w.Restart, w.Restart).Scan(&rows).Error
	if err != nil {
		return false, translate("models: put monitor", err)
	}
	if err := s.notifyEngines(ctx); err != nil {
		return false, err
	}
	return len(rows) == 1 && rows[0].Inserted, nil
}

// notifyEngines tells every engine to look again (at commit): a
// monitor's schedule changed.
func (s *Store) notifyEngines(ctx context.Context) error {
	if err := s.db.WithContext(ctx).Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error; err != nil {
		return translate("models: notify engines", err)
	}
	return nil
}

// open fills m.Token from its sealed copy ("" when it cannot be opened).
func (s *Store) openMonitor(m *Monitor) {
	sec, err := s.box.open(m.TokenSealed)
	if err == nil {
		m.Token = sec["token"]
	}
}

// MonitorByName returns the monitor name of workspaceID
// (case-insensitive) with its token opened, or ErrNotFound.
func (s *Store) MonitorByName(ctx context.Context, workspaceID, name string) (*Monitor, error) {
	var m Monitor
	err := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Take(&m).Error
	if err != nil {
		return nil, translate("models: monitor", err)
	}
	s.openMonitor(&m)
	return &m, nil
}

// MonitorsOf returns the monitors of workspaceID in name order, with their
// tokens opened.
func (s *Store) MonitorsOf(ctx context.Context, workspaceID string) ([]Monitor, error) {
	var out []Monitor
	err := s.db.WithContext(ctx).
		Where("workspace_id = ?", workspaceID).
		Order("lower(name)").
		Find(&out).Error
	if err != nil {
		return nil, translate("models: monitors of workspace", err)
	}
	for i := range out {
		s.openMonitor(&out[i])
	}
	return out, nil
}

// DeleteMonitor deletes the monitor name of workspaceID (with its pings
// and occurrences), or returns ErrNotFound.
func (s *Store) DeleteMonitor(ctx context.Context, workspaceID, name string) error {
	res := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Delete(&Monitor{})
	if res.Error != nil {
		return translate("models: delete monitor", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete monitor", ErrNotFound)
	}
	return nil
}

// RotateMonitorToken gives the monitor name of workspaceID the ping token
// token (the old one stops working at commit), or returns ErrNotFound.
func (s *Store) RotateMonitorToken(ctx context.Context, workspaceID, name, token string, now time.Time, userID int64) error {
	sealed, err := s.box.seal(jobdef.Secrets{"token": token})
	if err != nil {
		return fmt.Errorf("models: rotate monitor token: %w", err)
	}
	var by *int64
	if userID != 0 {
		by = &userID
	}
	res := s.db.WithContext(ctx).Exec(`
		UPDATE monitors SET token_hash = ?, token_sealed = ?, updated_at = ?, updated_by = ?
		WHERE workspace_id = ? AND lower(name) = lower(?)`,
		MonitorTokenHash(token), sealed, now.UTC(), by, workspaceID, name)
	if res.Error != nil {
		return translate("models: rotate monitor token", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: rotate monitor token", ErrNotFound)
	}
	return nil
}

// MonitorsUsingCalendar returns the names of the monitors of workspaceID
// whose schedule excludes the calendar name (case-insensitive), in name
// order.
func (s *Store) MonitorsUsingCalendar(ctx context.Context, workspaceID, name string) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Raw(`
		SELECT m.name FROM monitors m
		WHERE m.workspace_id = ? AND EXISTS (
			SELECT 1 FROM jsonb_array_elements_text(coalesce(m.definition->'schedule'->'calendars'->'exclude', '[]'::jsonb)) e
			WHERE lower(e) = lower(?))
		ORDER BY lower(m.name)`, workspaceID, name).Scan(&out).Error
	if err != nil {
		return nil, translate("models: monitors using calendar", err)
	}
	return out, nil
}

// MonitorPing is one received ping.
type MonitorPing struct {
	ID        int64
	MonitorID int64
	Kind      string
	At        time.Time
	Message   string
}

// TableName tells GORM the table.
func (MonitorPing) TableName() string { return "monitor_pings" }

// MonitorOccurrence is one decided occurrence of a monitor: met (MetAt
// set) or missed.
type MonitorOccurrence struct {
	MonitorID  int64
	ExpectedAt time.Time
	MetAt      *time.Time
	DecidedAt  time.Time
}

// TableName tells GORM the table.
func (MonitorOccurrence) TableName() string { return "monitor_occurrences" }

// MonitorPings returns the pings of monitor id at or after since, newest
// first, at most limit.
func (s *Store) MonitorPings(ctx context.Context, id int64, since time.Time, limit int) ([]MonitorPing, error) {
	var out []MonitorPing
	err := s.db.WithContext(ctx).Where("monitor_id = ? AND at >= ?", id, since).
		Order("at DESC, id DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, translate("models: monitor pings", err)
	}
	return out, nil
}

// MonitorOccurrences returns the decided occurrences of monitor id
// expected at or after since, newest first, at most limit.
func (s *Store) MonitorOccurrences(ctx context.Context, id int64, since time.Time, limit int) ([]MonitorOccurrence, error) {
	var out []MonitorOccurrence
	err := s.db.WithContext(ctx).Where("monitor_id = ? AND expected_at >= ?", id, since).
		Order("expected_at DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, translate("models: monitor occurrences", err)
	}
	return out, nil
}

// PingRecorded is what RecordPing did.
type PingRecorded struct {
	MonitorID   int64
	WorkspaceID string
	Name        string
	// Events is how many notifications the ping stored.
	Events int
}

// RecordPing records a ping of kind (success, start, fail) with message
// at at (the receiving instance's clock) for the monitor whose token has
// hash tokenHash, in one transaction: the ping's row, the monitor's last
// ping, its open start (set by a start, cleared by a success), its state
// (a fail makes it down, a success up) and, unless it is paused, the
// events: monitorFailed for a fail, monitorRecovered for a success that
// ends a down state. An unknown token is ErrNotFound.
//
// The common ping (a success on a monitor that is not down, a start) is
// one statement without a transaction of its own; a ping that may raise
// an event takes a transaction.
func (s *Store) RecordPing(ctx context.Context, tokenHash []byte, kind string, at time.Time, message string) (PingRecorded, error) {
	if kind != "fail" {
		out, done, err := s.recordQuietPing(ctx, tokenHash, kind, at, message)
		if err != nil || done {
			return out, err
		}
	}
	return s.recordPingTx(ctx, tokenHash, kind, at, message)
}

// recordQuietPing records a success or start ping in one statement when it
// raises no event (done); a success on a monitor that is down (a
// recovery) is left to recordPingTx (done false). A start ping tells the
// engines (they arm its slowRun timer).
func (s *Store) recordQuietPing(ctx context.Context, tokenHash []byte, kind string, at time.Time, message string) (PingRecorded, bool, error) {
	var rows []struct {
		ID          int64
		WorkspaceID string
		Name        string
		Done        int
		Told        int
	}
	at = at.UTC()
	err := s.db.WithContext(ctx).Raw(`
		WITH m AS (
			SELECT id, workspace_id, name, status, coalesce((definition->>'paused')::boolean, false) AS paused
			FROM monitors WHERE token_hash = ? FOR NO KEY UPDATE),
		ok AS (SELECT id FROM m WHERE NOT (? = 'success' AND status = 'down' AND NOT paused)),
		p AS (INSERT INTO monitor_pings (monitor_id, kind, at, message) SELECT id, ?, ?, ? FROM ok),
		u AS (UPDATE monitors SET last_ping_at = ?, last_ping_kind = ?,
				last_success_at = CASE WHEN ? = 'success' THEN ? ELSE monitors.last_success_at END,
				started_at = CASE ? WHEN 'start' THEN ? WHEN 'success' THEN NULL ELSE monitors.started_at END
			FROM ok WHERE monitors.id = ok.id),
		n AS (SELECT pg_notify(?, '') FROM ok WHERE ? = 'start')
		SELECT m.id, m.workspace_id, m.name, (SELECT count(*) FROM ok) AS done, (SELECT count(*) FROM n) AS told FROM m`,
		tokenHash, kind, kind, at, message, at, kind, kind, at, kind, at, NotifyChannel, kind).Scan(&rows).Error
	if err != nil {
		return PingRecorded{}, false, translate("models: record ping", err)
	}
	if len(rows) == 0 {
		return PingRecorded{}, false, fmt.Errorf("models: record ping: %w", ErrNotFound)
	}
	r := rows[0]
	return PingRecorded{MonitorID: r.ID, WorkspaceID: r.WorkspaceID, Name: r.Name}, r.Done > 0, nil
}

// recordPingTx is RecordPing in a transaction, with the events.
func (s *Store) recordPingTx(ctx context.Context, tokenHash []byte, kind string, at time.Time, message string) (PingRecorded, error) {
	var out PingRecorded
	err := s.inTx(ctx, "models: record ping", func(tx *gorm.DB) error {
		var rows []struct {
			ID          int64
			WorkspaceID string
			Name        string
			OldStatus   string
			Paused      bool
		}
		err := tx.Raw(`
			WITH m AS (
				SELECT id, workspace_id, name, status, coalesce((definition->>'paused')::boolean, false) AS paused
				FROM monitors WHERE token_hash = ? FOR NO KEY UPDATE),
			p AS (INSERT INTO monitor_pings (monitor_id, kind, at, message) SELECT id, ?, ?, ? FROM m),
			u AS (UPDATE monitors SET last_ping_at = ?, last_ping_kind = ?,
					last_success_at = CASE WHEN ? = 'success' THEN ? ELSE monitors.last_success_at END,
					status = CASE WHEN ? = 'fail' THEN 'down' WHEN ? = 'success' AND monitors.status = 'down' THEN 'up'
						ELSE monitors.status END,
					status_since = CASE WHEN (? = 'fail' AND monitors.status <> 'down')
						OR (? = 'success' AND monitors.status = 'down') THEN ? ELSE monitors.status_since END,
					started_at = CASE ? WHEN 'start' THEN ? WHEN 'success' THEN NULL ELSE monitors.started_at END
				FROM m WHERE monitors.id = m.id)
			SELECT id, workspace_id, name, status AS old_status, paused FROM m`,
			tokenHash, kind, at.UTC(), message,
			at.UTC(), kind, kind, at.UTC(), kind, kind, kind, kind, at.UTC(), kind, at.UTC()).Scan(&rows).Error
		if err != nil {
			return translate("models: record ping", err)
		}
		if len(rows) == 0 {
			return fmt.Errorf("models: record ping: %w", ErrNotFound)
		}
		r := rows[0]
		out = PingRecorded{MonitorID: r.ID, WorkspaceID: r.WorkspaceID, Name: r.Name}
		var evs []monitorEvent
		switch {
		case r.Paused:
		case kind == "fail":
			evs = append(evs, monitorEvent{typ: notifydef.MonitorFailed, at: at, message: message})
		case kind == "success" && r.OldStatus == MonitorDown:
			evs = append(evs, monitorEvent{typ: notifydef.MonitorRecovered, at: at})
		}
		n, err := enqueueMonitorEvents(tx, r.ID, evs)
		if err != nil {
			return translate("models: record ping", err)
		}
		out.Events = n
		if kind == "start" {
			// The engines arm a slowRun timer for the new start.
			if err := tx.Exec(`SELECT pg_notify(?, '')`, NotifyChannel).Error; err != nil {
				return translate("models: record ping", err)
			}
		}
		return nil
	})
	return out, err
}
