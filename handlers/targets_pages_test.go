package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
)

const targetsPage = "/w/default/targets"

// TestTargetsPage: an editor adds a limit through the form (the table
// lists it with nothing in flight or waiting), a bad value comes back with
// the field's error (422, nothing stored); a second one is removed; a reader sees
// the limits without the form or buttons.
func TestTargetsPage(t *testing.T) {
	f := newNotifyFixture(t)
	r := f.get(targetsPage)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#targets-empty").Length() != 1 || r.doc.Find("#target-form").Length() != 1 {
		t.Fatalf("empty page: %s", r.body)
	}
	tok := f.csrf(targetsPage)
	r = f.post(targetsPage, url.Values{"csrf_token": {tok}, "host": {"API.example.com"}, "maxConcurrent": {"4"}, "maxPerSecond": {""}})
	wantStatus(t, r, http.StatusOK)
	row := r.doc.Find("#target-table .target-row")
	if row.Length() != 1 || row.Find(".target-host").Text() != "api.example.com" || row.Find(".target-concurrent").Text() != "4" ||
		row.Find(".target-per-second").Text() != "—" || strings.TrimSpace(row.Find(".target-waiting").Text()) != "0" {
		t.Fatalf("after adding: %s", r.body)
	}
	r = f.post(targetsPage, url.Values{"csrf_token": {tok}, "host": {"api.example.com"}, "maxPerSecond": {"fast"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#err-maxPerSecond").Text(); !strings.Contains(msg, "whole number") {
		t.Errorf("the refused form says %q for maxPerSecond: %s", msg, r.body)
	}
	r = f.post(targetsPage, url.Values{"csrf_token": {tok}, "host": {"http://x/y"}, "maxPerSecond": {"3"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#err-host").Text(); !strings.Contains(msg, "host") {
		t.Errorf("the refused form says %q for host", msg)
	}
	if got := f.get(targetsPage).doc.Find(".target-concurrent").Text(); got != "4" {
		t.Errorf("a refused form changed the limit: %q", got)
	}
	wantStatus(t, f.post(targetsPage, url.Values{"csrf_token": {tok}, "host": {"b.example.com"}, "maxPerSecond": {"9"}}), http.StatusOK)
	r = f.post(targetsPage+"/b.example.com/delete", url.Values{"csrf_token": {tok}})
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find(".target-row").Length() != 1 || !strings.Contains(r.doc.Find("#targets-message").Text(), "removed") {
		t.Errorf("after removing b.example.com: %s", r.body)
	}
	f.asMember("reader1", models.RoleReader)
	r = f.get(targetsPage)
	if r.doc.Find(".target-row").Length() != 1 || r.doc.Find("#target-form").Length() != 0 || strings.Contains(r.body, "Remove") {
		t.Errorf("a reader's page: %s", r.body)
	}
	wantStatus(t, f.post(targetsPage, url.Values{"csrf_token": {f.csrf(targetsPage)}, "host": {"b.example.com"}, "maxConcurrent": {"1"}}),
		http.StatusForbidden)
}
