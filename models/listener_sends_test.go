package models_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// TestListenerDeliversSendWakeUpsApart: "a notification was stored"
// (NotifySendPayload) arrives on Sends, never on C or Due.
func TestListenerDeliversSendWakeUpsApart(t *testing.T) {
	store := testdb.Store(t)
	ctx, cancel := context.WithCancel(context.Background())
	l := models.NewListener(store.DSN(), nil)
	done := make(chan error)
	go func() { done <- l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for _, c := range []<-chan struct{}{l.C(), l.Sends()} {
		select {
		case <-c: // connected
		case <-time.After(10 * time.Second):
			t.Fatal("no wake-up on connecting")
		}
	}
	db, err := sql.Open("pgx", store.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`SELECT pg_notify($1, $2)`, models.NotifyChannel, models.NotifySendPayload); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Sends():
	case <-l.C():
		t.Fatal("a stored notification woke the claim loop")
	case <-l.Due():
		t.Fatal("a stored notification was read as a due time")
	case <-time.After(10 * time.Second):
		t.Fatal("no wake-up on Sends")
	}
}
