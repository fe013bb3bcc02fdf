package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// NotificationTry is the result of one try of a claimed notification, for
// FinishNotifications.
type NotificationTry struct {
	// ID is the notification.
	ID int64
	// Result is what the try did (see FinishNotification).
	Result DeliveryResult
}

// FinishNotifications records, in one statement, the tries of
// notifications claimed by owner, each as FinishNotification does:
// delivered, pending again, or failed. It returns the ids of those no
// longer held by owner (their lease expired and another instance took
// them): nothing was written for them. Texts are stored as valid UTF-8
// without NUL.
func (s *Store) FinishNotifications(ctx context.Context, owner string, tries []NotificationTry) (conflicts []int64, err error) {
	if len(tries) == 0 {
		return nil, nil
	}
	type wire struct {
		ID       int64      `json:"id"`
		Status   string     `json:"status"`
		Next     *time.Time `json:"next"`
		Code     int        `json:"code"`
		Answer   string     `json:"answer"`
		Error    string     `json:"error"`
		Now      time.Time  `json:"now"`
		Finished *time.Time `json:"finished"`
	}
	ws := make([]wire, len(tries))
	for i, t := range tries {
		r := t.Result
		w := wire{ID: t.ID, Status: NotificationFailed, Code: r.StatusCode, Answer: cleanText(r.Answer),
			Error: cleanText(r.Error), Now: r.Now, Finished: &tries[i].Result.Now}
		switch {
		case r.Delivered:
			w.Status = NotificationDelivered
		case r.RetryAt != nil:
			w.Status, w.Next, w.Finished = NotificationPending, r.RetryAt, nil
		}
		ws[i] = w
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return nil, fmt.Errorf("models: finish %d notifications: %w", len(tries), err)
	}
	var done []int64
	err = s.db.WithContext(ctx).Raw(`
		UPDATE notifications n
		SET status = t.status, next_attempt_at = coalesce(t.next, n.next_attempt_at), lease_owner = NULL,
		    lease_expires_at = NULL, last_status_code = t.code, last_answer = t.answer, last_error = t.error,
		    updated_at = t.now, finished_at = t.finished
		FROM json_to_recordset(?::json) AS t(id bigint, status text, next timestamptz, code int, answer text,
			error text, now timestamptz, finished timestamptz)
		WHERE n.id = t.id AND n.status = ? AND n.lease_owner = ?
		RETURNING n.id`, string(data), NotificationSending, owner).Scan(&done).Error
	if err != nil {
		return nil, translate(fmt.Sprintf("models: finish %d notifications", len(tries)), err)
	}
	if len(done) == len(tries) {
		return nil, nil
	}
	got := make(map[int64]bool, len(done))
	for _, id := range done {
		got[id] = true
	}
	for _, t := range tries {
		if !got[t.ID] {
			conflicts = append(conflicts, t.ID)
		}
	}
	return conflicts, nil
}
