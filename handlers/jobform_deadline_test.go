package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

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
}
