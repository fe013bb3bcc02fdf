package models_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

func TestDuePayload(t *testing.T) {
	at := time.Date(2026, 11, 22, 21, 0, 15, 123456789, time.FixedZone("CET", 3600))
	got, ok := models.ParseDuePayload(models.DuePayload(at))
	if !ok || !got.Equal(at) {
		t.Errorf("round trip of %s: %s, %v", at, got, ok)
	}
	if got, ok := models.ParseDuePayload("1795381215123"); !ok || !got.Equal(time.UnixMilli(1795381215123)) {
		t.Errorf("unix ms: %s, %v", got, ok)
	}
	for _, p := range []string{"", "soon", "2026-11-22"} {
		if _, ok := models.ParseDuePayload(p); ok {
			t.Errorf("%q read as a due time", p)
		}
	}
}

// TestListenerDeliversDueTimesAndWakeUps: a notification carrying a due
// time arrives on Due, one without payload (or an unreadable one) on C.
func TestListenerDeliversDueTimesAndWakeUps(t *testing.T) {
	store := testdb.Store(t)
	ctx, cancel := context.WithCancel(context.Background())
	l := models.NewListener(store.DSN(), nil)
	done := make(chan error)
	go func() { done <- l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case <-l.C(): // connected
	case <-time.After(10 * time.Second):
		t.Fatal("no wake-up on connecting")
	}
	at := time.Now().Add(15 * time.Second).Truncate(time.Microsecond)
	db, err := sql.Open("pgx", store.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, p := range []string{models.DuePayload(at), "", "garbage"} {
		if _, err := db.Exec(`SELECT pg_notify($1, $2)`, models.NotifyChannel, p); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-l.Due():
			if p != models.DuePayload(at) || !got.Equal(at) {
				t.Errorf("payload %q delivered as due time %s", p, got)
			}
		case <-l.C():
			if p == models.DuePayload(at) {
				t.Errorf("payload %q delivered as a wake-up", p)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("payload %q not delivered", p)
		}
	}
}
