package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The states of a notification (notifications.status).
const (
	NotificationPending   = "pending"   // waiting for its next try
	NotificationSending   = "sending"   // claimed by an engine (leased)
	NotificationDelivered = "delivered" // the channel accepted it
	NotificationFailed    = "failed"    // given up
)

// Notification is one event for one channel (SPEC §13.3,
// migrations/0010): a row of the queue the engine sends from and of the
// delivery log. ChannelName and RuleName stay when the channel or rule
// is deleted (ChannelID, RuleID then nil).
type Notification struct {
	ID             int64
	WorkspaceID    string
	ChannelID      *int64
	ChannelName    string
	RuleID         *int64
	RuleName       string
	JobID          *int64
	EventID        string
	EventType      string
	Event          json.RawMessage `gorm:"type:jsonb"`
	Status         string
	Attempts       int
	NextAttemptAt  time.Time
	LeaseOwner     *string
	LeaseExpiresAt *time.Time
	LastStatusCode int
	LastAnswer     string
	LastError      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     *time.Time
}

// TableName tells GORM the table.
func (Notification) TableName() string { return "notifications" }

// NotificationWrite is a notification to store.
type NotificationWrite struct {
	WorkspaceID string
	ChannelID   int64
	ChannelName string
	// RuleID (0: none, as for a test event) and RuleName name the rule
	// that sent it.
	RuleID   int64
	RuleName string
	// JobID is the job the event is about (0: none).
	JobID int64
	// MonitorID is the heartbeat monitor the event is about (0: none).
	MonitorID int64
	// EventID is the event's id (webhook-id); unique.
	EventID   string
	EventType string
	Event     json.RawMessage
	// NotBefore is when it may first be sent (the zero time: now).
	NotBefore time.Time
}

// row returns w as a pending row.
func (w NotificationWrite) row() *Notification {
	n := &Notification{
		WorkspaceID: w.WorkspaceID, ChannelName: w.ChannelName, RuleName: w.RuleName,
		EventID: w.EventID, EventType: w.EventType, Event: w.Event, Status: NotificationPending,
		NextAttemptAt: w.NotBefore,
	}
	if w.ChannelID != 0 {
		n.ChannelID = &w.ChannelID
	}
	if w.RuleID != 0 {
		n.RuleID = &w.RuleID
	}
	if w.JobID != 0 {
		n.JobID = &w.JobID
	}
	if n.NextAttemptAt.IsZero() {
		n.NextAttemptAt = time.Now().UTC()
	}
	return n
}

// EnqueueNotification stores a pending notification and returns its id.
// The engine's store methods are to call enqueueNotification instead, in
// the transaction that writes the history entry causing it.
func (s *Store) EnqueueNotification(ctx context.Context, w NotificationWrite) (int64, error) {
	return enqueueNotification(s.db.WithContext(ctx), w)
}

// enqueueNotification is EnqueueNotification on tx (a transaction of the
// store's database).
func enqueueNotification(tx *gorm.DB, w NotificationWrite) (int64, error) {
	n := w.row()
	if err := tx.Omit("ID").Create(n).Error; err != nil {
		return 0, translate("models: enqueue notification", err)
	}
	return n.ID, nil
}

// ClaimParams says which notifications ClaimNotifications takes.
type ClaimParams struct {
	// Owner names the claiming engine instance (lease_owner).
	Owner string
	// Now is the claim's time: rows due at or before it (or DueBy) are
	// taken, and their leases run from it.
	Now time.Time
	// DueBy, when not zero, takes only the pending rows due at or before
	// it instead of Now (a sender that holds new notifications back for
	// a moment); expired leases are still taken at Now.
	DueBy time.Time
	// Lease is how long the claim holds; a row whose lease expired is
	// taken again (its sender crashed).
	Lease time.Duration
	// Limit bounds the rows taken; 0 means 10.
	Limit int
}

// ClaimNotifications takes up to p.Limit due notifications (pending and
// due, or sending with an expired lease), earliest first, marks them
// sending under p.Owner until p.Now+p.Lease and counts the try. Rows
// locked by another claimer are skipped (FOR UPDATE SKIP LOCKED), so
// that each row is sent by one instance at a time.
func (s *Store) ClaimNotifications(ctx context.Context, p ClaimParams) ([]Notification, error) {
	if p.Limit <= 0 {
		p.Limit = 10
	}
	if p.DueBy.IsZero() {
		p.DueBy = p.Now
	}
	// One statement: the rows are locked by the subquery and taken by
	// the update (a row locked by another claimer is skipped).
	var out []Notification
	err := s.db.WithContext(ctx).Raw(`
		UPDATE notifications
		SET status = ?, lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?
		WHERE id IN (
			SELECT id FROM notifications
			WHERE (status = ? AND next_attempt_at <= ?) OR (status = ? AND lease_expires_at <= ?)
			ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
		RETURNING *`,
		NotificationSending, p.Owner, p.Now.Add(p.Lease), p.Now,
		NotificationPending, p.DueBy, NotificationSending, p.Now, p.Limit).Scan(&out).Error
	if err != nil {
		return nil, translate("models: claim notifications", err)
	}
	return out, nil
}

// DeliveryResult is the outcome of one try of a notification.
type DeliveryResult struct {
	// Delivered says that the channel accepted it.
	Delivered bool
	// StatusCode is the HTTP status (0: none, as for SMTP or no answer).
	StatusCode int
	// Answer is the answer's text (an SMTP reply, the start of an HTTP
	// body); Error what went wrong.
	Answer, Error string
	// RetryAt, when not nil and not Delivered, puts the notification back
	// as pending until then; nil gives it up (failed).
	RetryAt *time.Time
	// Now is the time of the result.
	Now time.Time
}

// FinishNotification records the try of notification id claimed by
// owner: delivered, pending again, or failed. A row no longer held by
// owner (its lease expired and another instance took it) is ErrConflict.
func (s *Store) FinishNotification(ctx context.Context, id int64, owner string, r DeliveryResult) error {
	status, next, finished := NotificationFailed, any(gorm.Expr("next_attempt_at")), &r.Now
	switch {
	case r.Delivered:
		status = NotificationDelivered
	case r.RetryAt != nil:
		status, next, finished = NotificationPending, *r.RetryAt, nil
	}
	res := s.db.WithContext(ctx).Exec(`
		UPDATE notifications
		SET status = ?, next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL,
		    last_status_code = ?, last_answer = ?, last_error = ?, updated_at = ?, finished_at = ?
		WHERE id = ? AND status = ? AND lease_owner = ?`,
		status, next, r.StatusCode, r.Answer, r.Error, r.Now, finished, id, NotificationSending, owner)
	if res.Error != nil {
		return translate("models: finish notification", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: finish notification %d: %w", id, ErrConflict)
	}
	return nil
}

// LogDelivery stores a notification that was sent at once (a test
// event): one try with result r, delivered or failed.
func (s *Store) LogDelivery(ctx context.Context, w NotificationWrite, r DeliveryResult) (int64, error) {
	n := w.row()
	n.Attempts, n.LastStatusCode, n.LastAnswer, n.LastError = 1, r.StatusCode, r.Answer, r.Error
	n.Status, n.FinishedAt, n.NextAttemptAt = NotificationFailed, &r.Now, r.Now
	if r.Delivered {
		n.Status = NotificationDelivered
	}
	if err := s.db.WithContext(ctx).Omit("ID").Create(n).Error; err != nil {
		return 0, translate("models: log delivery", err)
	}
	return n.ID, nil
}

// DeliveryFilter selects the delivery log.
type DeliveryFilter struct {
	WorkspaceID string
	// Channel, when not empty, keeps one channel's notifications (by
	// name, case-insensitive; deleted channels' logs too).
	Channel string
	// Status, when not empty, keeps one status.
	Status string
	// EventType, when not empty, keeps one event type.
	EventType string
	// Since, when not zero, keeps notifications created at or after it.
	Since time.Time
	// BeforeID, when not 0, keeps notifications older than that id (the
	// next page).
	BeforeID int64
	// Limit bounds the rows; 0 means 100.
	Limit int
}

// Deliveries returns the delivery log of f.WorkspaceID, newest first.
func (s *Store) Deliveries(ctx context.Context, f DeliveryFilter) ([]Notification, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	q := s.db.WithContext(ctx).Where("workspace_id = ?", f.WorkspaceID)
	if f.Channel != "" {
		q = q.Where("lower(channel_name) = lower(?)", f.Channel)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.EventType != "" {
		q = q.Where("event_type = ?", f.EventType)
	}
	if !f.Since.IsZero() {
		q = q.Where("created_at >= ?", f.Since)
	}
	if f.BeforeID != 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	var out []Notification
	if err := q.Order("id DESC").Limit(f.Limit).Find(&out).Error; err != nil {
		return nil, translate("models: deliveries", err)
	}
	return out, nil
}

// NextNotification returns the earliest moment at which a notification
// is to be sent: a pending one's next try or a sending one's lease end (its
// sender stopped answering). ok is false when there is none.
func (s *Store) NextNotification(ctx context.Context) (at time.Time, ok bool, err error) {
	var row struct{ At *time.Time }
	err = s.db.WithContext(ctx).Raw(`SELECT least(
		(SELECT next_attempt_at FROM notifications WHERE status = ? ORDER BY next_attempt_at LIMIT 1),
		(SELECT lease_expires_at FROM notifications WHERE status = ? ORDER BY lease_expires_at LIMIT 1)) AS at`,
		NotificationPending, NotificationSending).Scan(&row).Error
	if err != nil {
		return time.Time{}, false, translate("models: next notification", err)
	}
	if row.At == nil {
		return time.Time{}, false, nil
	}
	return *row.At, true, nil
}
