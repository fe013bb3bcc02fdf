package models_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/problem"
	"sked/models/testdb"
)

var sessionT0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newTestSession(t *testing.T, store *models.Store, userID int64, now time.Time) (*models.Session, string) {
	t.Helper()
	sess, token, err := store.CreateSession(context.Background(), models.NewSession{
		UserID: userID, CSRFToken: strings.Repeat("c", 43), RemoteAddr: "192.0.2.7",
		UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", Now: now, MaxAge: 14 * 24 * time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sess, token
}

func TestSessionStoresOnlyTheTokenHash(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	sess, token := newTestSession(t, store, u.ID, sessionT0)
	if len(token) != 43 {
		t.Errorf("token %q: want 43 base64url characters", token)
	}
	sum := sha256.Sum256([]byte(token))
	if string(sess.TokenHash) != string(sum[:]) {
		t.Error("the stored hash is not the token's SHA-256")
	}
	got, user, err := store.UseSession(ctx, token, models.SessionUse{Now: sessionT0.Add(time.Second), IdleTimeout: time.Hour})
	if err != nil || got.ID != sess.ID || user.ID != u.ID {
		t.Fatalf("UseSession = %v, %v, %v", got, user, err)
	}
	if _, _, err := store.UseSession(ctx, string(sum[:]), models.SessionUse{Now: sessionT0, IdleTimeout: time.Hour}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("UseSession with the hash instead of the token = %v, want ErrNotFound", err)
	}
}

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	idle := 12 * time.Hour
	use := func(token string, at time.Time) error {
		_, _, err := store.UseSession(ctx, token, models.SessionUse{Now: at, IdleTimeout: idle, RemoteAddr: "198.51.100.1", UserAgent: "curl/8"})
		return err
	}

	// Used every 11 hours, a session lives until its absolute end.
	_, token := newTestSession(t, store, u.ID, sessionT0)
	at := sessionT0
	for at.Add(11 * time.Hour).Before(sessionT0.Add(14 * 24 * time.Hour)) {
		at = at.Add(11 * time.Hour)
		if err := use(token, at); err != nil {
			t.Fatalf("use at %v: %v", at, err)
		}
	}
	if err := use(token, sessionT0.Add(14*24*time.Hour)); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("use at the absolute end = %v, want ErrNotFound", err)
	}

	// Idle for 12 hours, a session ends; the last use moved its start.
	_, token = newTestSession(t, store, u.ID, sessionT0)
	if err := use(token, sessionT0.Add(11*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := use(token, sessionT0.Add(23*time.Hour)); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("use after 12 idle hours = %v, want ErrNotFound", err)
	}
	// The ended session was deleted on the way.
	list, err := store.SessionsOf(ctx, u.ID, sessionT0, 0)
	if err != nil || len(list) != 0 {
		t.Errorf("sessions left: %v, %v", list, err)
	}
}

func TestSessionLastSeenIsWrittenAtMostOnceAMinute(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	_, token := newTestSession(t, store, u.ID, sessionT0)
	seen := func() models.Session {
		list, err := store.SessionsOf(ctx, u.ID, sessionT0, 0)
		if err != nil || len(list) != 1 {
			t.Fatalf("SessionsOf = %v, %v", list, err)
		}
		return list[0]
	}
	for _, tc := range []struct {
		after    time.Duration
		addr     string
		wantSeen time.Duration
	}{
		{30 * time.Second, "203.0.113.1", 0},
		{59 * time.Second, "203.0.113.2", 0},
		{60 * time.Second, "203.0.113.3", 60 * time.Second},
		{90 * time.Second, "203.0.113.4", 60 * time.Second},
		{121 * time.Second, "203.0.113.5", 121 * time.Second},
	} {
		_, _, err := store.UseSession(ctx, token, models.SessionUse{Now: sessionT0.Add(tc.after), IdleTimeout: time.Hour, RemoteAddr: tc.addr, UserAgent: "x\x00y\xff"})
		if err != nil {
			t.Fatal(err)
		}
		s := seen()
		if !s.LastSeenAt.Equal(sessionT0.Add(tc.wantSeen)) {
			t.Errorf("after %v: last seen %v, want %v", tc.after, s.LastSeenAt, sessionT0.Add(tc.wantSeen))
		}
		if tc.wantSeen == tc.after && (s.RemoteAddr != tc.addr || s.UserAgent != "xy") {
			t.Errorf("after %v: address %q, browser %q", tc.after, s.RemoteAddr, s.UserAgent)
		}
	}
}

func TestSessionsEndTogether(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.CreateUser(ctx, models.NewUser{Username: "bob", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	count := func(id int64) int {
		list, err := store.SessionsOf(ctx, id, sessionT0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	three := func() []*models.Session {
		var out []*models.Session
		for range 3 {
			s, _ := newTestSession(t, store, u.ID, sessionT0)
			out = append(out, s)
		}
		return out
	}
	newTestSession(t, store, other.ID, sessionT0)

	ss := three()
	if err := store.EndSession(ctx, other.ID, ss[0].ID); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("ending another user's session = %v, want ErrNotFound", err)
	}
	if err := store.EndSession(ctx, u.ID, ss[0].ID); err != nil || count(u.ID) != 2 {
		t.Fatalf("EndSession: %v, %d left", err, count(u.ID))
	}
	if n, err := store.EndSessionsOf(ctx, u.ID, ss[1].ID); err != nil || n != 1 || count(u.ID) != 1 {
		t.Fatalf("EndSessionsOf except one: %d ended, %v, %d left", n, err, count(u.ID))
	}
	if n, err := store.EndSessionsOf(ctx, u.ID, 0); err != nil || n != 1 || count(u.ID) != 0 {
		t.Fatalf("EndSessionsOf all: %d ended, %v, %d left", n, err, count(u.ID))
	}

	three()
	if err := store.ChangePassword(ctx, u.ID, "wrong-password", "new password 1"); err == nil || !strings.Contains(err.Error(), "current: is wrong") {
		t.Errorf("ChangePassword with a wrong current password = %v", err)
	}
	if count(u.ID) != 3 {
		t.Fatal("a refused password change ended sessions")
	}
	if err := store.ChangePassword(ctx, u.ID, "password123", "new password 1"); err != nil || count(u.ID) != 0 {
		t.Fatalf("ChangePassword: %v, %d sessions left", err, count(u.ID))
	}
	if _, err := store.Authenticate(ctx, "ada", "new password 1"); err != nil {
		t.Errorf("the new password does not work: %v", err)
	}

	three()
	if err := store.ResetPassword(ctx, u.ID, "new password 2"); err != nil || count(u.ID) != 0 {
		t.Fatalf("ResetPassword: %v, %d sessions left", err, count(u.ID))
	}
	three()
	if err := store.SetUserDisabled(ctx, u.ID, true); err != nil || count(u.ID) != 0 {
		t.Fatalf("SetUserDisabled: %v, %d sessions left", err, count(u.ID))
	}
	if count(other.ID) != 1 {
		t.Error("another user's session ended too")
	}
}

func TestPurgeSessions(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	newTestSession(t, store, u.ID, sessionT0)                       // idle from T0
	newTestSession(t, store, u.ID, sessionT0.Add(-14*24*time.Hour)) // over at T0
	_, fresh := newTestSession(t, store, u.ID, sessionT0.Add(-time.Hour))
	if _, _, err := store.UseSession(ctx, fresh, models.SessionUse{Now: sessionT0.Add(10 * time.Hour), IdleTimeout: 12 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	n, err := store.PurgeSessions(ctx, sessionT0.Add(12*time.Hour), 12*time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("PurgeSessions = %d, %v; want 2 deleted", n, err)
	}
	if list, _ := store.SessionsOf(ctx, u.ID, sessionT0.Add(12*time.Hour), 12*time.Hour); len(list) != 1 {
		t.Errorf("%d sessions left, want the recently used one", len(list))
	}
}

func TestSetupCode(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	code, ok, err := store.NewSetupCode(ctx, sessionT0)
	if err != nil || !ok || len(code) != 14 || strings.Count(code, "-") != 2 {
		t.Fatalf("NewSetupCode = %q, %v, %v", code, ok, err)
	}
	// A second instance prints its own code; both are accepted.
	other, _, err := store.NewSetupCode(ctx, sessionT0)
	if err != nil || other == code {
		t.Fatalf("second code %q (%v)", other, err)
	}
	admin := models.NewUser{Username: "admin", Password: "password123"}
	for _, bad := range []string{"", "AAAA-BBBB-CCCC", code + "X"} {
		_, err := store.CompleteSetupWithCode(ctx, bad, admin)
		var ve *problem.List
		if !errors.As(err, &ve) || ve.Problems[0].Path != "setup_code" {
			t.Errorf("setup with code %q = %v, want a setup_code problem", bad, err)
		}
	}
	// Every problem at once.
	_, err = store.CompleteSetupWithCode(ctx, "nope", models.NewUser{Username: "bad name", Password: "x"})
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("setup with a wrong code and bad fields = %v, want three problems", err)
	}
	if needs, _ := store.NeedsSetup(ctx); !needs {
		t.Fatal("a refused setup created the administrator")
	}
	lower := strings.ToLower(strings.ReplaceAll(other, "-", " "))
	if _, err := store.CompleteSetupWithCode(ctx, lower, admin); err != nil {
		t.Fatalf("setup with the other instance's code in lower case: %v", err)
	}
	if _, err := store.CompleteSetupWithCode(ctx, code, models.NewUser{Username: "second", Password: "password123"}); !errors.Is(err, models.ErrSetupDone) {
		t.Errorf("second setup = %v, want ErrSetupDone", err)
	}
	if c, ok, err := store.NewSetupCode(ctx, sessionT0); err != nil || ok || c != "" {
		t.Errorf("NewSetupCode after setup = %q, %v, %v", c, ok, err)
	}
}
