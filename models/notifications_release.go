package models

import (
	"context"
	"time"
)

// ReleaseNotifications puts back, in one statement, notifications that
// owner claimed but did not try (a sender that claimed more than it could
// send in time, or that stopped first): pending again, due at once, their
// lease and the try the claim counted undone. Rows no longer held by owner
// are left alone. It returns how many it released.
func (s *Store) ReleaseNotifications(ctx context.Context, owner string, ids []int64, now time.Time) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res := s.db.WithContext(ctx).Exec(`
		UPDATE notifications
		SET status = ?, lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0), updated_at = ?
		WHERE id IN ? AND status = ? AND lease_owner = ?`,
		NotificationPending, now, ids, NotificationSending, owner)
	if res.Error != nil {
		return 0, translate("models: release notifications", res.Error)
	}
	return res.RowsAffected, nil
}
