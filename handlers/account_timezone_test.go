package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestAccountTimeZone(t *testing.T) {
	a := newApp(t, false)
	admin := a.setupAdmin("ada", "password123")
	a.signIn("ada", "password123")
	zoneOf := func() string {
		u, err := a.store.UserByID(context.Background(), admin.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.TimeZone
	}

	r := a.get("/account")
	wantStatus(t, r, http.StatusOK)
	if v, _ := r.doc.Find("form#time-zone-form input#time_zone").Attr("value"); v != "UTC" {
		t.Errorf("time zone field = %q, want UTC", v)
	}
	if r.doc.Find("datalist#time-zone-choices option[value='Europe/Berlin']").Length() != 1 {
		t.Error("the time zone field does not suggest Europe/Berlin")
	}

	tok := a.csrf("/account")
	r = a.do(a.client, http.MethodPost, "/account/time-zone", url.Values{"csrf_token": {tok}, "time_zone": {"Europe/Berlin"}}, nil)
	wantStatus(t, r, http.StatusSeeOther)
	if got := r.Header.Get("Location"); got != "/account?time-zone=changed" {
		t.Errorf("Location = %q", got)
	}
	if z := zoneOf(); z != "Europe/Berlin" {
		t.Errorf("stored zone = %q, want Europe/Berlin", z)
	}
	r = a.get("/account?time-zone=changed")
	if v, _ := r.doc.Find("input#time_zone").Attr("value"); v != "Europe/Berlin" {
		t.Errorf("time zone field after saving = %q", v)
	}
	if got := r.doc.Find("#time-zone-message").Text(); !strings.Contains(got, "Time zone saved") {
		t.Errorf("#time-zone-message = %q", got)
	}

	const want = `Time zone: "Mars/Olympus" is not a known IANA or Windows time zone`
	r = a.do(a.client, http.MethodPost, "/account/time-zone", url.Values{"csrf_token": {tok}, "time_zone": {"Mars/Olympus"}}, nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#time_zone-error").Text(); !strings.Contains(got, want) {
		t.Errorf("#time_zone-error = %q, want %q", got, want)
	}
	if v, _ := r.doc.Find("input#time_zone").Attr("value"); v != "Mars/Olympus" {
		t.Errorf("the refused zone is not kept in the field: %q", v)
	}
	if r.doc.Find("section#sessions").Length() != 1 {
		t.Error("the page re-rendered without its sessions section")
	}

	hx := http.Header{"Hx-Request": {"true"}, "X-Csrf-Token": {tok}}
	r = a.do(a.client, http.MethodPost, "/account/time-zone", url.Values{"time_zone": {"Mars/Olympus"}}, hx)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if strings.Contains(r.body, "<html") || r.doc.Find("section#time-zone-section").Length() != 1 {
		t.Fatalf("htmx error answer is not the time zone section alone:\n%s", r.body)
	}
	if got := r.doc.Find("#time_zone-error").Text(); !strings.Contains(got, want) {
		t.Errorf("htmx #time_zone-error = %q", got)
	}
	if z := zoneOf(); z != "Europe/Berlin" {
		t.Errorf("a refused zone changed the stored one: %q", z)
	}

	r = a.do(a.client, http.MethodPost, "/account/time-zone", url.Values{"time_zone": {"W. Europe Standard Time"}}, hx)
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#time-zone-message").Text(); !strings.Contains(got, "Time zone saved") {
		t.Errorf("htmx #time-zone-message = %q", got)
	}
	if z := zoneOf(); z != "W. Europe Standard Time" {
		t.Errorf("stored zone = %q, want the Windows name", z)
	}
}
