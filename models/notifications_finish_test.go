package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"sked/models"
)

// TestFinishNotificationsInOneStatement records the tries of several
// claimed notifications at once: delivered, pending again until the retry
// (texts cleaned of NUL and invalid UTF-8), failed; a try of a
// notification held by another owner is returned as a conflict and
// changes nothing.
func TestFinishNotificationsInOneStatement(t *testing.T) {
	store := notifyStore(t)
	ctx := context.Background()
	if _, err := store.PutChannel(ctx, models.ChannelWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "ops", Type: "webhook",
		Config: []byte(`{"url":"https://example.com"}`)}); err != nil {
		t.Fatal(err)
	}
	ch, _ := store.ChannelByName(ctx, models.DefaultWorkspaceID, "ops")
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 4 {
		if _, err := store.EnqueueNotification(ctx, models.NotificationWrite{WorkspaceID: models.DefaultWorkspaceID,
			ChannelID: ch.ID, ChannelName: ch.Name, EventID: fmt.Sprintf("evt_%d", i), EventType: "occurrenceFaulted",
			Event: []byte(`{"type":"occurrenceFaulted"}`), NotBefore: now.Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	mine, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "me", Now: now, Lease: time.Minute, Limit: 3})
	if err != nil || len(mine) != 3 {
		t.Fatalf("claim: %d %v", len(mine), err)
	}
	theirs, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "them", Now: now, Lease: time.Hour, Limit: 3})
	if err != nil || len(theirs) != 1 {
		t.Fatalf("claim by another: %d %v", len(theirs), err)
	}
	retry := now.Add(time.Minute)
	later := now.Add(time.Second)
	tries := []models.NotificationTry{
		{ID: mine[0].ID, Result: models.DeliveryResult{Delivered: true, StatusCode: 204, Now: later}},
		{ID: mine[1].ID, Result: models.DeliveryResult{StatusCode: 500, Answer: "bo\x00om\xff", Error: "HTTP 500", RetryAt: &retry, Now: later}},
		{ID: mine[2].ID, Result: models.DeliveryResult{Error: "refused", Now: later}},
		{ID: theirs[0].ID, Result: models.DeliveryResult{Delivered: true, Now: later}},
	}
	conflicts, err := store.FinishNotifications(ctx, "me", tries)
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 1 || conflicts[0] != theirs[0].ID {
		t.Errorf("conflicts %v, want [%d]", conflicts, theirs[0].ID)
	}
	log, err := store.Deliveries(ctx, models.DeliveryFilter{WorkspaceID: models.DefaultWorkspaceID, Limit: 10})
	if err != nil || len(log) != 4 {
		t.Fatalf("log: %d %v", len(log), err)
	}
	byID := map[int64]models.Notification{}
	for _, n := range log {
		byID[n.ID] = n
	}
	check := func(id int64, status string, code int, answer, errText string, next time.Time, finished bool) {
		t.Helper()
		n := byID[id]
		if n.Status != status || n.LastStatusCode != code || n.LastAnswer != answer || n.LastError != errText ||
			!n.NextAttemptAt.Equal(next) || (n.FinishedAt != nil) != finished || n.LeaseOwner != nil && status != models.NotificationSending {
			t.Errorf("notification %d: %s %d %q %q next %s finished %v owner %v", id, n.Status, n.LastStatusCode, n.LastAnswer,
				n.LastError, n.NextAttemptAt, n.FinishedAt, n.LeaseOwner)
		}
		if finished && !n.FinishedAt.Equal(later) {
			t.Errorf("notification %d finished at %s, want %s", id, n.FinishedAt, later)
		}
	}
	check(mine[0].ID, models.NotificationDelivered, 204, "", "", mine[0].NextAttemptAt, true)
	check(mine[1].ID, models.NotificationPending, 500, "boom\uFFFD", "HTTP 500", retry, false)
	check(mine[2].ID, models.NotificationFailed, 0, "", "refused", mine[2].NextAttemptAt, true)
	check(theirs[0].ID, models.NotificationSending, 0, "", "", theirs[0].NextAttemptAt, false)
	// The retried one comes back when due.
	got, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "me", Now: retry, Lease: time.Minute, Limit: 10})
	if err != nil || len(got) != 1 || got[0].ID != mine[1].ID || got[0].Attempts != 2 {
		t.Fatalf("retry: %+v %v", got, err)
	}
	if c, err := store.FinishNotifications(ctx, "me", nil); err != nil || c != nil {
		t.Errorf("no tries: %v %v", c, err)
	}
}
