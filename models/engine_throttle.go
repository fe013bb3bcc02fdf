package models

import (
	"encoding/json"
	"fmt"
	"time"

	"sked/models/notifydef"

	"gorm.io/gorm"
)

// throttle stores the notification w of a rule m with a minInterval
// (SPEC §13.3: one rule per job; events inside it are counted and sent as
// one digest when it ends), in tx, under the lock of the rule's window for
// the job (notification_throttles): see throttleIn.
func throttle(tx *gorm.DB, m *ruleMatch, w NotificationWrite) error {
	return throttleIn(tx, jobWindows, m.RuleID, w.JobID, time.Duration(m.MinIntervalMs)*time.Millisecond, w)
}

// windowTable is where the minInterval windows of rules are kept for one
// kind of subject: a table keyed by (rule_id, column).
type windowTable struct{ table, column string }

// The windows of jobs, and of heartbeat monitors (migration 0040).
var (
	jobWindows     = windowTable{"notification_throttles", "job_id"}
	monitorWindows = windowTable{"monitor_throttles", "monitor_id"}
)

// throttleIn stores the notification w of rule ruleID about subject (a
// job or a monitor, as wt says) with a minInterval of interval, in tx,
// under the lock of the rule's window for the subject:
//
//   - outside a window (none yet, or it is over at the event's time): w
//     is stored due at once and opens a window of minInterval;
//   - inside a window whose digest is still waiting (never tried): the
//     digest counts one more and carries the latest event (its id stays);
//   - inside a window without a waiting digest: w becomes the digest (count
//     1), due when the window ends, and the next window follows it.
func throttleIn(tx *gorm.DB, wt windowTable, ruleID, subject int64, interval time.Duration, w NotificationWrite) error {
	at := w.NotBefore
	if err := tx.Exec(`INSERT INTO `+wt.table+` (rule_id, `+wt.column+`, window_until) VALUES (?, ?, 'epoch')
		ON CONFLICT (rule_id, `+wt.column+`) DO NOTHING`, ruleID, subject).Error; err != nil {
		return fmt.Errorf("throttle rule %d: %w", ruleID, err)
	}
	var win struct {
		WindowUntil time.Time
		DigestID    *int64
	}
	if err := tx.Raw(`SELECT window_until, digest_id FROM `+wt.table+` WHERE rule_id = ? AND `+wt.column+` = ? FOR UPDATE`,
		ruleID, subject).Scan(&win).Error; err != nil {
		return fmt.Errorf("throttle rule %d: %w", ruleID, err)
	}
	if !win.WindowUntil.After(at) {
		if _, err := enqueueNotification(tx, w); err != nil {
			return err
		}
		return setWindow(tx, wt, ruleID, subject, at.Add(interval), nil)
	}
	if win.DigestID != nil {
		var counted []int64
		err := tx.Raw(`UPDATE notifications
			SET event = jsonb_set(jsonb_set(?::jsonb, '{id}', to_jsonb(event_id)), '{count}',
			                      to_jsonb(coalesce((event->>'count')::int, 1) + 1)),
			    event_type = ?, updated_at = ?
			WHERE id = ? AND status = ? AND attempts = 0 AND next_attempt_at > ? RETURNING id`,
			string(w.Event), w.EventType, at, *win.DigestID, NotificationPending, at).Scan(&counted).Error
		if err != nil {
			return fmt.Errorf("count into digest %d: %w", *win.DigestID, err)
		}
		if len(counted) == 1 {
			return nil
		}
	}
	digest, err := asDigest(w)
	if err != nil {
		return err
	}
	digest.NotBefore = win.WindowUntil
	id, err := enqueueNotification(tx, digest)
	if err != nil {
		return err
	}
	return setWindow(tx, wt, ruleID, subject, win.WindowUntil.Add(interval), &id)
}

// asDigest returns w as a digest of one event (count 1).
func asDigest(w NotificationWrite) (NotificationWrite, error) {
	var ev notifydef.Event
	if err := json.Unmarshal(w.Event, &ev); err != nil {
		return w, fmt.Errorf("digest of %s: %w", w.EventID, err)
	}
	ev.Count = 1
	out, err := json.Marshal(&ev)
	if err != nil {
		return w, fmt.Errorf("digest of %s: %w", w.EventID, err)
	}
	w.Event = out
	return w, nil
}

// setWindow sets a rule's window for a subject and its waiting digest.
func setWindow(tx *gorm.DB, wt windowTable, ruleID, subject int64, until time.Time, digestID *int64) error {
	err := tx.Exec(`UPDATE `+wt.table+` SET window_until = ?, digest_id = ? WHERE rule_id = ? AND `+wt.column+` = ?`,
		until, digestID, ruleID, subject).Error
	if err != nil {
		return fmt.Errorf("throttle rule %d: %w", ruleID, err)
	}
	return nil
}
