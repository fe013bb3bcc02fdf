package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestFleetPagesRefuseAnotherWorkspace opens each page of the fleet UI
// (issue 16) for a workspace the user is not a member of: every one is
// refused with an error page and shows none of its jobs; a bulk action
// on its job changes nothing.
func TestFleetPagesRefuseAnotherWorkspace(t *testing.T) {
	f := newPGFixture(t)
	other := f.otherWorkspace()
	x, err := f.store.JobDetail(t.Context(), other.ID, "x")
	if err != nil {
		t.Fatal(err)
	}
	e := f.addHistory(x.ID, f.clock.Now().Add(-time.Hour), "Failed", "MainAction", 0, "HTTP 500")
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/w/other/running", http.StatusNotFound},
		{"/w/other/audit", http.StatusNotFound},
		{"/w/other/channels", http.StatusNotFound},
		{"/c/other/rg/theirs/jobs/x", http.StatusNotFound},
		{fmt.Sprintf("/c/other/rg/theirs/jobs/x/history/%d", e.ID), http.StatusNotFound},
		{"/jobs?ws=other", http.StatusBadRequest},
	} {
		r := f.get(tc.path)
		pgWantErrorPage(t, r, tc.status)
		if r.doc.Find(`[data-job="x"], #job-trends, #execution-request`).Length() != 0 {
			t.Errorf("%s shows the other workspace's job", tc.path)
		}
	}
	before := f.fingerprint()
	r := f.formPost("/jobs/bulk", url.Values{"action": {"disable"}, "id": {fmt.Sprint(x.ID)}, "note": {"mine now"}})
	if r.StatusCode < 400 || r.StatusCode >= 500 {
		t.Errorf("a bulk disable of another workspace's job answered %d", r.StatusCode)
	}
	if f.fingerprint() != before {
		t.Error("a bulk disable of another workspace's job changed it")
	}
	if got, _ := f.store.JobDetail(t.Context(), other.ID, "x"); got.State != "enabled" {
		t.Errorf("the other workspace's job is %s", got.State)
	}
}
