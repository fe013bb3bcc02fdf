package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
)

// TestMonitorPages creates a monitor through the form (a refused one
// first: the problems on their fields, 422), sees it on the list and its
// page with its ping URL, and checks that a reader sees neither the URL
// nor the editing controls.
func TestMonitorPages(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("ada", "correct horse battery")
	a.signIn("ada", "correct horse battery")

	form := url.Values{"csrf_token": {a.csrf("/w/default/monitors/new")}, "name": {"backup"}, "frequency": {"day"},
		"interval": {"1"}, "hours": {"25"}, "minutes": {"0"}, "grace": {"P3D"}}
	r := a.post("/w/default/monitors/new", form)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.doc.Find("#hours-error").Length() != 1 || r.doc.Find("#grace-error").Length() != 1 {
		t.Errorf("the refused form shows no field errors:\n%s", r.body)
	}
	form.Set("hours", "2")
	form.Set("grace", "PT10M")
	r = a.post("/w/default/monitors/new", form)
	wantRedirect(t, r, "/w/default/monitors/backup")

	r = a.get("/w/default/monitors/backup")
	wantStatus(t, r, http.StatusOK)
	pingURL, _ := r.doc.Find("#monitor-ping-url").Attr("value")
	if !strings.Contains(pingURL, "/ping/hb_") || r.doc.Find("#monitor-rotate").Length() != 1 {
		t.Fatalf("the monitor page has no ping URL or rotate form")
	}
	r = a.get("/w/default/monitors")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find(`[data-monitor="backup"]`).Text(), "New") {
		t.Errorf("list row: %q", r.doc.Find(`[data-monitor="backup"]`).Text())
	}
	// Rotating through the page changes the URL.
	r = a.post("/w/default/monitors/backup/rotate", url.Values{"csrf_token": {a.csrf("/w/default/monitors/backup")}})
	wantRedirect(t, r, "/w/default/monitors/backup")
	r = a.get("/w/default/monitors/backup")
	if again, _ := r.doc.Find("#monitor-ping-url").Attr("value"); again == pingURL || again == "" {
		t.Errorf("rotate kept the URL")
	}

	// A reader.
	ctx := context.Background()
	u, err := a.store.CreateUser(ctx, models.NewUser{Username: "reed", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.SetMemberRole(ctx, "default", u.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}
	a.client = newClient()
	a.signIn("reed", "correct horse battery")
	for _, path := range []string{"/w/default/monitors", "/w/default/monitors/backup"} {
		r = a.get(path)
		wantStatus(t, r, http.StatusOK)
		if strings.Contains(r.body, "/ping/hb_") || r.doc.Find("#monitor-rotate, #monitor-delete, #monitor-edit-link, #monitor-new-link").Length() > 0 {
			t.Errorf("%s shows a reader the ping URL or editing controls", path)
		}
	}
}
