package models_test

import (
	"context"
	"errors"
	"testing"

	"sked/models"
	"sked/models/problem"
	"sked/models/testdb"
)

func TestSetUserTimeZone(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		got, err := store.UserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.TimeZone
	}
	if z := read(); z != "UTC" {
		t.Errorf("a new user's time zone = %q, want UTC", z)
	}
	for _, zone := range []string{"Europe/Berlin", "W. Europe Standard Time"} {
		if err := store.SetUserTimeZone(ctx, u.ID, zone); err != nil {
			t.Fatalf("SetUserTimeZone(%q): %v", zone, err)
		}
		if z := read(); z != zone {
			t.Errorf("time zone after setting %q = %q", zone, z)
		}
	}
	err = store.SetUserTimeZone(ctx, u.ID, "Mars/Olympus")
	if v := problem.As(err); v == nil || len(v.Problems) != 1 || v.Problems[0].Path != "time_zone" {
		t.Errorf("SetUserTimeZone(Mars/Olympus) = %v, want a problem on time_zone", err)
	}
	if z := read(); z != "W. Europe Standard Time" {
		t.Errorf("a refused zone was stored: %q", z)
	}
	if err := store.SetUserTimeZone(ctx, u.ID+1000, "UTC"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("SetUserTimeZone of an unknown user = %v, want ErrNotFound", err)
	}
}
