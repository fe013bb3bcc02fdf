package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/handlers"
	"sked/models/testdb"
)

// TestReadyzTellsTheTruth: /readyz answers 503 with the reason while the
// database is read-only (a demoted primary) or stopped, and 200 again once
// writes work; an API write refused by the read-only server is a 503 that
// says to try again, not a 500.
func TestReadyzTellsTheTruth(t *testing.T) {
	t.Parallel()
	p := testdb.PrivateCluster(t)
	store := p.Store(t)
	a := newApp(t, false, func(d *handlers.Deps) { d.Store = store })
	a.store = store
	a.withToken()
	ready := func(want int, reason string) {
		t.Helper()
		r := a.get("/readyz")
		var body map[string]string
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("/readyz: %v: %s", err, r.body)
		}
		if r.StatusCode != want || !strings.Contains(body["reason"], reason) {
			t.Errorf("/readyz = %d %s, want %d with a reason containing %q", r.StatusCode, r.body, want, reason)
		}
	}
	ready(http.StatusOK, "")

	p.SetReadOnly(t, true)
	ready(http.StatusServiceUnavailable, "read-only (transaction_read_only is on)")
	r := a.api(http.MethodPut, rgPath("rg")+"/c1"+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"standard"}}}`)
	wantStatus(t, r, http.StatusServiceUnavailable)
	if e := decode[apiErr](t, r); !strings.Contains(e.Error.Message, "try again") {
		t.Errorf("the 503's message %q does not say to try again", e.Error.Message)
	}
	p.SetReadOnly(t, false)
	ready(http.StatusOK, "")
	wantStatus(t, a.api(http.MethodPut, rgPath("rg")+"/c1"+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"standard"}}}`), http.StatusCreated)

	p.Halt()
	ready(http.StatusServiceUnavailable, "unreachable")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ready(http.StatusOK, "")
}
