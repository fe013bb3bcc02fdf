package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"sked/models"
)

// TestJobFormRunsAfter saves a job in the form's "Runs after" mode: a job
// the workspace lacks is shown under the field with nothing saved; a valid
// one is stored as a trigger without a recurrence, and its edit page shows
// the mode again.
func TestJobFormRunsAfter(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	coll, _ := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})
	r := a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(lastFridayForm(csrf).Encode()))
	wantStatus(t, r, http.StatusOK)

	form := lastFridayForm(csrf)
	form.Set("name", "report")
	form.Set("frequency", "after")
	form.Set("trigger_after", "rg/jc/month-end\nrg/jc/nope\n")
	form.Set("trigger_on", "finished")
	form.Set("trigger_within", "PT2H")
	before := a.fingerprint()
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := r.doc.Find("#err-trigger_after").Text(); got != "Runs after: there is no job rg/jc/nope in this workspace" {
		t.Errorf("field error %q (page problems %q)", got, r.doc.Find("#form-problems").Text())
	}
	if a.fingerprint() != before {
		t.Fatal("a refused job changed the database")
	}
	form.Set("trigger_after", "rg/jc/month-end")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	j, err := a.store.JobByName(context.Background(), coll.ID, "report")
	if err != nil {
		t.Fatal(err)
	}
	def := string(j.Definition)
	if !strings.Contains(def, `"trigger":{"after":["rg/jc/month-end"],"on":"finished","within":"PT2H"}`) || strings.Contains(def, `"recurrence"`) {
		t.Errorf("stored %s", def)
	}
	r = a.get(base + "/jobs/report/edit")
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#frequency option[selected]").AttrOr("value", ""); v != "after" {
		t.Errorf("edit page frequency %q", v)
	}
	if v := strings.TrimSpace(r.doc.Find("#trigger_after").Text()); v != "rg/jc/month-end" {
		t.Errorf("edit page upstreams %q", v)
	}
	if v := r.doc.Find("#trigger_within").AttrOr("value", ""); v != "PT2H" {
		t.Errorf("edit page within %q", v)
	}
}
