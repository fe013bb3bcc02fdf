package handlers_test

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"sked/models"
)

// TestJobFormDeadline saves a deadline from the builder ("Must succeed
// within", "Alert if a run takes longer than"), shows it on the edit page
// and in the job page's description; bad values are refused under their
// fields with nothing saved.
func TestJobFormDeadline(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	coll, _ := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})

	bad := lastFridayForm(csrf)
	bad.Set("succeed_within", "PT10S")
	bad.Set("max_duration", "PT2M")
	before := a.fingerprint()
	r := a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(bad.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.HasPrefix(r.doc.Find("#err-succeed_within").Text(), "Must succeed within: ") ||
		!strings.HasPrefix(r.doc.Find("#err-max_duration").Text(), "Alert if a run takes longer than: ") || a.fingerprint() != before {
		t.Fatalf("field errors: %q, %q", r.doc.Find("#err-succeed_within").Text(), r.doc.Find("#err-max_duration").Text())
	}

	form := lastFridayForm(csrf)
	form.Set("succeed_within", "PT2H")
	form.Set("max_duration", "PT45S")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	j, err := a.store.JobByName(context.Background(), coll.ID, "month-end")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j.Definition), `"deadline":{"succeedWithin":"PT2H","maxDuration":"PT45S"}`) {
		t.Errorf("stored %s", j.Definition)
	}
	r = a.get(base + "/jobs/month-end/edit")
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#succeed_within").AttrOr("value", ""); v != "PT2H" {
		t.Errorf("edit page succeed_within %q", v)
	}
	if v := r.doc.Find("#max_duration").AttrOr("value", ""); v != "PT45S" {
		t.Errorf("edit page max_duration %q", v)
	}
	r = a.get(base + "/jobs/month-end")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#job-description").Text(), "must succeed within 2 hours") {
		t.Error("the job page's description does not say the deadline")
	}
	if got := r.doc.Find("#job-deadline").Text(); !strings.Contains(got, "Must succeed within 2 h") || !strings.Contains(got, "No deadline missed") {
		t.Errorf("the job page's deadline block: %q", got)
	}
	frag := base + "/jobs/month-end/deadline"
	if got := r.doc.Find("#job-deadline").AttrOr("hx-get", ""); !strings.HasSuffix(frag, got) || got == "" {
		t.Errorf("the deadline block refreshes from %q, want %s", got, frag)
	}

	// The block alone, for its refresh: it shows an event the engine
	// raised since the page was loaded (a deadline missed is decided at
	// its moment, with no new history entry).
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO job_deadlines (job_id, expected_time, due_at, deadline_at, decided_at, missed)
		VALUES ($1, $2::timestamptz, $2::timestamptz, $2::timestamptz + interval '2 hours', $2::timestamptz + interval '2 hours', true)`,
		j.ID, a.clock.Now().Add(-3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	r = a.do(a.client, http.MethodGet, frag, nil, http.Header{"HX-Request": {"true"}})
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("#job-deadline li[data-event=deadlineMissed]").Length(); got != 1 || r.doc.Find("html").Length() != 1 ||
		r.doc.Find("nav").Length() != 0 {
		t.Errorf("the deadline fragment: %d deadlineMissed events, body %q", got, r.body)
	}
	// A plain GET goes to the job page.
	r = a.get(frag)
	if loc := r.Header.Get("Location"); r.StatusCode/100 != 3 || !strings.HasSuffix(loc, "/jobs/month-end") {
		t.Errorf("a plain GET of the fragment: %d to %q", r.StatusCode, loc)
	}
}
