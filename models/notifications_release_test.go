package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"sked/models"
)

func TestReleaseNotificationsPutsBackUntriedClaims(t *testing.T) {
	store := notifyStore(t)
	ctx := context.Background()
	if _, err := store.PutChannel(ctx, models.ChannelWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "ops", Type: "webhook",
		Config: []byte(`{"url":"https://example.com"}`)}); err != nil {
		t.Fatal(err)
	}
	ch, _ := store.ChannelByName(ctx, models.DefaultWorkspaceID, "ops")
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 3 {
		if _, err := store.EnqueueNotification(ctx, models.NotificationWrite{WorkspaceID: models.DefaultWorkspaceID,
			ChannelID: ch.ID, ChannelName: ch.Name, EventID: fmt.Sprintf("evt_%d", i), EventType: "occurrenceFaulted",
			Event: []byte(`{"type":"occurrenceFaulted"}`), NotBefore: now.Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "e", Now: now, Lease: time.Minute, Limit: 3})
	if err != nil || len(got) != 3 {
		t.Fatalf("claim: %d %v", len(got), err)
	}
	ids := []int64{got[1].ID, got[2].ID}
	// Another owner releases nothing.
	if n, err := store.ReleaseNotifications(ctx, "f", ids, now); err != nil || n != 0 {
		t.Fatalf("release by another owner: %d %v", n, err)
	}
	if n, err := store.ReleaseNotifications(ctx, "e", ids, now); err != nil || n != 2 {
		t.Fatalf("release: %d %v", n, err)
	}
	// Pending again, due at once, the claim's try undone, no lease; the
	// first one is still held by e.
	again, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "f", Now: now, Lease: time.Minute, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 2 {
		t.Fatalf("claimed again %d rows, want the 2 released", len(again))
	}
	for _, n := range again {
		if n.ID == got[0].ID || n.Attempts != 1 || n.Status != models.NotificationSending || *n.LeaseOwner != "f" {
			t.Errorf("claimed again: id %d attempts %d status %s owner %v", n.ID, n.Attempts, n.Status, *n.LeaseOwner)
		}
	}
	if n, err := store.ReleaseNotifications(ctx, "e", nil, now); err != nil || n != 0 {
		t.Errorf("release none: %d %v", n, err)
	}
}
