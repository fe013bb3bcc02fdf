package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"sked/models/notifydef"

	"gorm.io/gorm"
)

// WatchedMonitor is what the engine needs of a monitor to evaluate it.
type WatchedMonitor struct {
	ID             int64
	WorkspaceID    string
	Name           string
	Definition     json.RawMessage
	Anchor         time.Time
	CheckedThrough time.Time
	Status         string
	StartedAt      *time.Time
	SlowRaisedFor  *time.Time
	Version        int64
}

// WatchedMonitors returns every monitor that is not paused, for the
// engine's evaluation.
func (s *Store) WatchedMonitors(ctx context.Context) ([]WatchedMonitor, error) {
	var out []WatchedMonitor
	err := s.db.WithContext(ctx).Raw(`
		SELECT id, workspace_id, name, definition, anchor, checked_through, status, started_at, slow_raised_for, version
		FROM monitors WHERE NOT coalesce((definition->>'paused')::boolean, false)
		ORDER BY id`).Scan(&out).Error
	if err != nil {
		return nil, translate("models: watched monitors", err)
	}
	return out, nil
}

// MonitorDecision is the engine's decision of a monitor's occurrences
// whose grace has passed.
type MonitorDecision struct {
	ID int64
	// Version and From are the monitor's version and checked_through the
	// engine read: when either changed since, nothing is decided.
	Version int64
	From    time.Time
	// Expected are the occurrences to decide, in order, each after From.
	Expected []time.Time
	Grace    time.Duration
	// Now is the engine's clock.
	Now time.Time
}

// MonitorDecided is what DecideMonitor did.
type MonitorDecided struct {
	// Decided is false when another engine (or a write) got there first.
	Decided bool
	Met     int
	Missed  int
	// Events is how many notifications it stored.
	Events int
}

// DecideMonitor decides d.Expected in one transaction: each occurrence is
// met by a success ping within its grace, else missed; it is recorded in
// monitor_occurrences (its primary key makes a second decision
// impossible), checked_through moves to the last one, a met occurrence
// makes a new monitor up, and the first missed occurrence of a monitor
// that is not down makes it down and raises monitorMissed (once: a
// monitor already down raises nothing more until a success ping).
func (s *Store) DecideMonitor(ctx context.Context, d MonitorDecision) (MonitorDecided, error) {
	var out MonitorDecided
	if len(d.Expected) == 0 {
		return out, nil
	}
	err := s.inTx(ctx, "models: decide monitor", func(tx *gorm.DB) error {
		var rows []struct{ Status string }
		err := tx.Raw(`SELECT status FROM monitors WHERE id = ? AND version = ? AND checked_through = ? FOR NO KEY UPDATE`,
			d.ID, d.Version, d.From.UTC()).Scan(&rows).Error
		if err != nil {
			return translate("models: decide monitor", err)
		}
		if len(rows) == 0 {
			return nil
		}
		status := rows[0].Status
		type wire struct {
			T time.Time `json:"t"`
		}
		ws := make([]wire, len(d.Expected))
		for i, t := range d.Expected {
			ws[i] = wire{T: t.UTC()}
		}
		data, err := json.Marshal(ws)
		if err != nil {
			return fmt.Errorf("models: decide monitor: %w", err)
		}
		var decided []struct {
			ExpectedAt time.Time
			MetAt      *time.Time
		}
		err = tx.Raw(`
			INSERT INTO monitor_occurrences (monitor_id, expected_at, met_at, decided_at)
			SELECT ?, w.t, (SELECT min(p.at) FROM monitor_pings p WHERE p.monitor_id = ? AND p.kind = 'success'
				AND p.at BETWEEN w.t - make_interval(secs => ?) AND w.t + make_interval(secs => ?)), ?
			FROM json_to_recordset(?::json) AS w(t timestamptz)
			ON CONFLICT (monitor_id, expected_at) DO NOTHING
			RETURNING expected_at, met_at`,
			d.ID, d.ID, d.Grace.Seconds(), d.Grace.Seconds(), d.Now.UTC(), string(data)).Scan(&decided).Error
		if err != nil {
			return translate("models: decide monitor", err)
		}
		out.Decided = true
		var evs []monitorEvent
		for _, o := range decided {
			if o.MetAt != nil {
				out.Met++
				if status == MonitorNew {
					status = MonitorUp
				}
				continue
			}
			out.Missed++
			if status != MonitorDown {
				status = MonitorDown
				evs = append(evs, monitorEvent{typ: notifydef.MonitorMissed, at: d.Now, expected: o.ExpectedAt})
			}
		}
		last := d.Expected[len(d.Expected)-1].UTC()
		err = tx.Exec(`UPDATE monitors SET checked_through = ?, status = ?,
				status_since = CASE WHEN status = ? THEN status_since ELSE ? END
			WHERE id = ?`, last, status, status, d.Now.UTC(), d.ID).Error
		if err != nil {
			return translate("models: decide monitor", err)
		}
		n, err := enqueueMonitorEvents(tx, d.ID, evs)
		if err != nil {
			return translate("models: decide monitor", err)
		}
		out.Events = n
		return nil
	})
	return out, err
}

// RaiseSlowRun raises slowRun for the start ping at startedAt of monitor
// id, once: only while that start is still open and its slowRun not yet
// raised. It reports whether it raised it.
func (s *Store) RaiseSlowRun(ctx context.Context, id int64, startedAt, now time.Time) (bool, error) {
	raised := false
	err := s.inTx(ctx, "models: raise slowRun", func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE monitors SET slow_raised_for = started_at
			WHERE id = ? AND started_at = ? AND slow_raised_for IS DISTINCT FROM started_at
				AND NOT coalesce((definition->>'paused')::boolean, false)`, id, startedAt.UTC())
		if res.Error != nil {
			return translate("models: raise slowRun", res.Error)
		}
		if res.RowsAffected == 0 {
			return nil
		}
		raised = true
		st := startedAt.UTC()
		_, err := enqueueMonitorEvents(tx, id, []monitorEvent{{typ: notifydef.SlowRun, at: now, started: &st}})
		return translate("models: raise slowRun", err)
	})
	return raised, err
}

// monitorEvent is an event of a monitor, which the alert rules of its
// workspace (whole workspace, or scoped to the monitor) may send.
type monitorEvent struct {
	typ      notifydef.EventType
	at       time.Time
	expected time.Time
	started  *time.Time
	message  string
}

// enqueueMonitorEvents stores, in tx, one notification per event of
// monitor monitorID and alert rule that sends it (the whole workspace's
// rules, and those scoped to the monitor; a rule with minInterval holds
// them back per monitor as it does per job: throttleIn), and tells the
// engines' senders.
func enqueueMonitorEvents(tx *gorm.DB, monitorID int64, evs []monitorEvent) (int, error) {
	if len(evs) == 0 {
		return 0, nil
	}
	var matches []struct {
		Monitor     string
		WorkspaceID string
		Description string
		RuleID      int64
		RuleName    string
		ChannelID   int64
		ChannelName string
		Events      json.RawMessage
		// MinIntervalMs is the rule's minInterval (0: none).
		MinIntervalMs int64
	}
	err := tx.Raw(`
		SELECT m.name AS monitor, m.workspace_id, coalesce(m.definition->>'description', '') AS description,
		       r.id AS rule_id, r.name AS rule_name, r.channel_id, c.name AS channel_name, r.events, r.min_interval_ms
		FROM monitors m
		JOIN alert_rules r ON r.workspace_id = m.workspace_id
			AND ((r.scope_monitor = '' AND r.scope_resource_group = '') OR lower(r.scope_monitor) = lower(m.name))
		JOIN channels c ON c.id = r.channel_id
		WHERE m.id = ?
		ORDER BY r.id`, monitorID).Scan(&matches).Error
	if err != nil {
		return 0, fmt.Errorf("alert rules of monitor %d: %w", monitorID, err)
	}
	var rows []NotificationWrite
	n := 0
	for _, ev := range evs {
		for _, m := range matches {
			var types []notifydef.EventType
			if err := json.Unmarshal(m.Events, &types); err != nil {
				continue
			}
			sends := false
			for _, t := range types {
				sends = sends || t == ev.typ
			}
			if !sends {
				continue
			}
			id, err := notifydef.NewEventID()
			if err != nil {
				return 0, err
			}
			e := notifydef.Event{Type: ev.typ, ID: id, Time: ev.at.UTC(), Workspace: m.WorkspaceID, Monitor: m.Monitor,
				MonitorInfo: &notifydef.MonitorInfo{Description: m.Description, Message: strings.ToValidUTF8(ev.message, "")}}
			if !ev.expected.IsZero() {
				e.MonitorInfo.ExpectedTime = ptrTime(ev.expected.UTC())
			}
			if ev.started != nil {
				e.MonitorInfo.StartTime = ev.started
			}
			doc, err := json.Marshal(&e)
			if err != nil {
				return 0, fmt.Errorf("event %s: %w", ev.typ, err)
			}
			w := NotificationWrite{WorkspaceID: m.WorkspaceID, ChannelID: m.ChannelID, ChannelName: m.ChannelName,
				RuleID: m.RuleID, RuleName: m.RuleName, MonitorID: monitorID, EventID: id, EventType: string(ev.typ),
				Event: doc, NotBefore: ev.at.UTC()}
			n++
			if m.MinIntervalMs > 0 {
				if err := throttleIn(tx, monitorWindows, m.RuleID, monitorID, time.Duration(m.MinIntervalMs)*time.Millisecond, w); err != nil {
					return 0, err
				}
				continue
			}
			rows = append(rows, w)
		}
	}
	if err := insertNotifications(tx, rows); err != nil {
		return 0, err
	}
	if n > 0 && len(rows) == 0 {
		// Only digests: insertNotifications told no sender.
		if err := tx.Exec(`SELECT pg_notify(?, ?)`, NotifyChannel, NotifySendPayload).Error; err != nil {
			return 0, fmt.Errorf("notify senders: %w", err)
		}
	}
	return n, nil
}

// ptrTime returns a pointer to t.
func ptrTime(t time.Time) *time.Time { return &t }
