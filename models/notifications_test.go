package models_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"sked/models"
	"sked/models/testdb"
)

// notifyStore returns a store and a second workspace "other".
func notifyStore(t *testing.T) *models.Store {
	t.Helper()
	dsn := testdb.DSN(t)
	store, err := models.Open(context.Background(), dsn, models.Options{PasswordCost: bcrypt.MinCost, MaxOpenConns: 5,
		SecretKeys: [][]byte{testdb.SecretKey}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO workspaces (id) VALUES ('default'), ('other') ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestChannelsStore(t *testing.T) {
	store := notifyStore(t)
	ctx := context.Background()
	w := models.ChannelWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "Ops", Type: "webhook",
		Config: []byte(`{"url":"https://example.com/hook"}`), Secrets: map[string]string{"signingSecret": "whsec_abc"}}
	if created, err := store.PutChannel(ctx, w); err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	w.Name, w.Description = "OPS", "changed"
	if created, err := store.PutChannel(ctx, w); err != nil || created {
		t.Fatalf("replace: %v %v", created, err)
	}
	c, err := store.ChannelByName(ctx, models.DefaultWorkspaceID, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Ops" || c.Description != "changed" || c.Secrets["signingSecret"] != "whsec_abc" || strings.Contains(string(c.Sealed), "whsec") {
		t.Errorf("stored %+v", c)
	}
	if _, err := store.ChannelByName(ctx, "other", "ops"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("other workspace: %v", err)
	}
	list, err := store.ChannelsOf(ctx, models.DefaultWorkspaceID)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	if err := store.DeleteChannel(ctx, models.DefaultWorkspaceID, "nope"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("delete unknown: %v", err)
	}
	if err := store.DeleteChannel(ctx, models.DefaultWorkspaceID, "OPS"); err != nil {
		t.Errorf("delete: %v", err)
	}
}

func TestAlertRulesStore(t *testing.T) {
	store := notifyStore(t)
	ctx := context.Background()
	for _, ws := range []string{models.DefaultWorkspaceID, "other"} {
		if _, err := store.PutChannel(ctx, models.ChannelWrite{WorkspaceID: ws, Name: "ops", Type: "slack",
			Config: []byte(`{"urlHost":"hooks.slack.com"}`), Secrets: map[string]string{"url": "https://hooks.slack.com/x"}}); err != nil {
			t.Fatal(err)
		}
	}
	mine, _ := store.ChannelByName(ctx, models.DefaultWorkspaceID, "ops")
	theirs, _ := store.ChannelByName(ctx, "other", "ops")
	w := models.AlertRuleWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "faults", ChannelID: mine.ID,
		ScopeResourceGroup: "rg", ScopeCollection: "jc", Events: []byte(`["occurrenceFaulted","consecutiveFailures"]`),
		Threshold: 3, MinInterval: 15 * time.Minute}
	if created, err := store.PutAlertRule(ctx, w); err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	bad := w
	bad.Name, bad.ChannelID = "theirs", theirs.ID
	if _, err := store.PutAlertRule(ctx, bad); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("another workspace's channel: %v", err)
	}
	bad = w
	bad.Name, bad.Threshold = "nothreshold", 0
	if _, err := store.PutAlertRule(ctx, bad); err == nil {
		t.Error("consecutiveFailures without threshold stored")
	}
	r, err := store.AlertRuleByName(ctx, models.DefaultWorkspaceID, "FAULTS")
	if err != nil {
		t.Fatal(err)
	}
	if r.ChannelName != "ops" || r.MinInterval() != 15*time.Minute || r.Threshold != 3 || r.ScopeCollection != "jc" {
		t.Errorf("rule %+v", r)
	}
	for _, tt := range []struct {
		rg, jc, job, event string
		want               int
	}{
		{"RG", "JC", "any", "occurrenceFaulted", 1},
		{"rg", "jc", "j", "missed", 0},
		{"rg", "other", "j", "occurrenceFaulted", 0},
	} {
		got, err := store.AlertRulesForJob(ctx, models.DefaultWorkspaceID, tt.rg, tt.jc, tt.job, tt.event)
		if err != nil || len(got) != tt.want {
			t.Errorf("rules for %s/%s/%s %s: %d %v, want %d", tt.rg, tt.jc, tt.job, tt.event, len(got), err, tt.want)
		}
	}
	if err := store.DeleteChannel(ctx, models.DefaultWorkspaceID, "ops"); !errors.Is(err, models.ErrConflict) {
		t.Errorf("delete a channel with rules: %v", err)
	}
	if rules, _ := store.AlertRulesOfChannel(ctx, mine.ID); len(rules) != 1 {
		t.Errorf("rules of channel: %v", rules)
	}
	if err := store.DeleteAlertRule(ctx, models.DefaultWorkspaceID, "faults"); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteAlertRule(ctx, models.DefaultWorkspaceID, "faults"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("delete twice: %v", err)
	}
}

func TestNotificationsQueue(t *testing.T) {
	store := notifyStore(t)
	ctx := context.Background()
	if _, err := store.PutChannel(ctx, models.ChannelWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "ops", Type: "webhook",
		Config: []byte(`{"url":"https://example.com"}`)}); err != nil {
		t.Fatal(err)
	}
	ch, _ := store.ChannelByName(ctx, models.DefaultWorkspaceID, "ops")
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 20 {
		if _, err := store.EnqueueNotification(ctx, models.NotificationWrite{WorkspaceID: models.DefaultWorkspaceID,
			ChannelID: ch.ID, ChannelName: ch.Name, EventID: fmt.Sprintf("evt_%d", i), EventType: "occurrenceFaulted",
			Event: []byte(`{"type":"occurrenceFaulted"}`), NotBefore: now.Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.EnqueueNotification(ctx, models.NotificationWrite{WorkspaceID: models.DefaultWorkspaceID,
		ChannelID: ch.ID, ChannelName: ch.Name, EventID: "evt_0", EventType: "missed", Event: []byte(`{}`)}); !errors.Is(err, models.ErrConflict) {
		t.Errorf("same event id twice: %v", err)
	}
	// Four claimers at once take every row exactly once.
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			owner := fmt.Sprintf("engine-%d", i)
			for {
				got, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: owner, Now: now, Lease: time.Minute, Limit: 3})
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, n := range got {
					if prev, dup := seen[n.ID]; dup {
						t.Errorf("notification %d claimed by %s and %s", n.ID, prev, owner)
					}
					seen[n.ID] = owner
					if n.Status != models.NotificationSending || n.Attempts != 1 {
						t.Errorf("claimed %+v", n)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 20 {
		t.Fatalf("claimed %d of 20", len(seen))
	}
	i := 0
	for id, owner := range seen {
		var r models.DeliveryResult
		switch i % 3 {
		case 0:
			r = models.DeliveryResult{Delivered: true, StatusCode: 200, Now: now}
		case 1:
			retry := now.Add(time.Minute)
			r = models.DeliveryResult{StatusCode: 500, Answer: "boom", Error: "HTTP 500", RetryAt: &retry, Now: now}
		default:
			r = models.DeliveryResult{Error: "refused", Now: now}
		}
		if err := store.FinishNotification(ctx, id, "someone-else", r); !errors.Is(err, models.ErrConflict) {
			t.Errorf("finish by a stranger: %v", err)
		}
		if err := store.FinishNotification(ctx, id, owner, r); err != nil {
			t.Fatal(err)
		}
		i++
	}
	// The retried ones come back when due, with their second try counted.
	got, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "e", Now: now.Add(2 * time.Minute), Lease: time.Minute, Limit: 50})
	if err != nil || len(got) != 7 || got[0].Attempts != 2 || got[0].LastAnswer != "boom" {
		t.Fatalf("retries: %d %v", len(got), err)
	}
	// An expired lease is taken again.
	again, err := store.ClaimNotifications(ctx, models.ClaimParams{Owner: "f", Now: now.Add(4 * time.Minute), Lease: time.Minute, Limit: 50})
	if err != nil || len(again) != 7 || again[0].Attempts != 3 {
		t.Fatalf("expired leases: %d %v", len(again), err)
	}
	log, err := store.Deliveries(ctx, models.DeliveryFilter{WorkspaceID: models.DefaultWorkspaceID, Channel: "OPS", Status: models.NotificationDelivered})
	if err != nil || len(log) != 7 || log[0].ID < log[1].ID {
		t.Errorf("log: %d %v", len(log), err)
	}
	id, err := store.LogDelivery(ctx, models.NotificationWrite{WorkspaceID: models.DefaultWorkspaceID, ChannelID: ch.ID,
		ChannelName: ch.Name, EventID: "test_1", EventType: "test", Event: []byte(`{"type":"test"}`)},
		models.DeliveryResult{Delivered: true, StatusCode: 204, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// Deleting the channel keeps its log.
	if err := store.DeleteChannel(ctx, models.DefaultWorkspaceID, "ops"); err != nil {
		t.Fatal(err)
	}
	log, err = store.Deliveries(ctx, models.DeliveryFilter{WorkspaceID: models.DefaultWorkspaceID, Channel: "ops", Limit: 1})
	if err != nil || len(log) != 1 || log[0].ID != id || log[0].ChannelID != nil || log[0].Status != models.NotificationDelivered {
		t.Errorf("log after delete: %+v %v", log, err)
	}
}

func TestResealChannelSecrets(t *testing.T) {
	dsn := testdb.DSN(t)
	oldKey, newKey := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	ctx := context.Background()
	old, err := models.Open(ctx, dsn, models.Options{SecretKeys: [][]byte{oldKey}})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	newCollection(t, old, "rg", "jc") // creates the default workspace
	if _, err := old.PutChannel(ctx, models.ChannelWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "mail", Type: "email",
		Config: []byte(`{}`), Secrets: map[string]string{"password": "pw"}}); err != nil {
		t.Fatal(err)
	}
	rotated, err := models.Open(ctx, dsn, models.Options{SecretKeys: [][]byte{newKey, oldKey}})
	if err != nil {
		t.Fatal(err)
	}
	defer rotated.Close()
	if n, err := rotated.ResealSecrets(ctx); err != nil || n != 1 {
		t.Fatalf("reseal: %d %v", n, err)
	}
	onlyNew, err := models.Open(ctx, dsn, models.Options{SecretKeys: [][]byte{newKey}})
	if err != nil {
		t.Fatal(err)
	}
	defer onlyNew.Close()
	if c, err := onlyNew.ChannelByName(ctx, models.DefaultWorkspaceID, "mail"); err != nil || c.Secrets["password"] != "pw" {
		t.Errorf("after dropping the old key: %+v %v", c, err)
	}
}
