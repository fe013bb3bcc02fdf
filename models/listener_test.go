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

// startListener runs l until the test ends and waits for its first
// connection.
func startListener(t *testing.T, l *models.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitWake(t, l, "on connecting")
}

// waitWake waits for a wake-up on l.C.
func waitWake(t *testing.T, l *models.Listener, when string) {
	t.Helper()
	select {
	case <-l.C():
	case <-time.After(time.Minute):
		t.Fatalf("no wake-up %s", when)
	}
}

// wantDue sends a due time on dsn's database, again every 100 ms (one
// sent while the listener is between two connections is lost), until l
// delivers it.
func wantDue(t *testing.T, l *models.Listener, dsn string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Now().Truncate(time.Microsecond)
	deadline := time.After(time.Minute)
	for {
		if _, err := db.Exec(`SELECT pg_notify($1, $2)`, models.NotifyChannel, models.DuePayload(at)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-l.Due():
			if !got.Equal(at) {
				t.Errorf("due time %s delivered as %s", at, got)
			}
			return
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("notifications sent after the reconnection were not delivered")
		}
	}
}

// TestListenerComesBackAfterARestart: when the server restarts, the
// listener reconnects, says so with a wake-up (the engine then claims
// everything due), and receives notifications again.
func TestListenerComesBackAfterARestart(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	l := models.NewListener(p.DSN(), nil)
	startListener(t, l)
	p.Halt()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitWake(t, l, "after the server restarted")
	wantDue(t, l, p.DSN())
}

// TestListenerNoticesASilentServer: a connection whose server stops
// answering without closing it (its host died, the network was cut) is
// given up after IdleCheck without notifications and a ping without
// answer, and the listener connects again.
func TestListenerNoticesASilentServer(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	proxy := p.Proxy(t)
	l := models.NewListener(proxy.DSN("sked"), nil)
	l.IdleCheck = 100 * time.Millisecond
	startListener(t, l)
	proxy.Freeze()
	select {
	case <-proxy.Waiting(1):
	case <-time.After(time.Minute):
		t.Fatal("the listener did not give up its silent connection")
	}
	proxy.Release()
	waitWake(t, l, "after reconnecting")
	wantDue(t, l, p.DSN())
}

// TestListenerLeavesAReadOnlyServer: a listener whose server turns
// read-only (an old primary demoted but still up, whose notifications
// would never come again) leaves it and connects again through the URL.
func TestListenerLeavesAReadOnlyServer(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	l := models.NewListener(p.DSN(), nil)
	l.IdleCheck = 100 * time.Millisecond
	startListener(t, l)
	p.SetReadOnly(t, true)
	waitWake(t, l, "after leaving the read-only server")
	p.SetReadOnly(t, false)
	wantDue(t, l, p.DSN())
}
