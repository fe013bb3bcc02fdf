package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
)

// lastFridayForm is the builder filled in for "last Friday of every month
// at 05:15, Europe/Berlin".
func lastFridayForm(csrf string) url.Values {
	return url.Values{
		"csrf_token": {csrf}, "mode": {"form"}, "name": {"month-end"},
		"action_type": {"https"}, "method": {"POST"}, "uri": {"https://example.com/month-end"},
		"headers": {"X-Team: finance\nX-Run: monthly"}, "body": {"close the books"},
		"start_time": {"2026-11-01T00:00"}, "time_zone": {"Europe/Berlin"},
		"frequency": {"month"}, "interval": {"1"}, "end": {"never"},
		"minutes": {"15"}, "hours": {"5"}, "occurrences": {"-1:friday"},
		"retry_type": {"fixed"}, "retry_interval": {"PT1M"}, "retry_count": {"2"},
		"state": {"enabled"}, "misfire": {"skip"}, "concurrency": {"allow"}, "preview_n": {"10"},
	}
}

// signedInWithCollection signs a user in and creates a collection.
func signedInWithCollection(t *testing.T) (*app, string) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	_, err := a.store.PutCollection(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"},
		&models.JobCollection{SKU: "Standard", State: models.CollectionEnabled})
	if err != nil {
		t.Fatal(err)
	}
	return a, "/c/default/rg/jc"
}

func TestJobFormPageHasLabelsAndPreview(t *testing.T) {
	a, base := signedInWithCollection(t)
	r := a.get(base + "/jobs/new")
	wantStatus(t, r, http.StatusOK)
	pv := r.doc.Find(`[data-testid="preview"]`)
	if pv.Length() != 1 || pv.AttrOr("aria-live", "") != "polite" {
		t.Fatalf("preview region missing: %d", pv.Length())
	}
	if pv.Find("time[datetime]").Length() != 10 {
		t.Errorf("initial preview occurrences: %d", pv.Find("time[datetime]").Length())
	}
	// Every control has a visible label: a label[for] or a wrapping label.
	r.doc.Find("#job-form input, #job-form select, #job-form textarea").Each(func(_ int, s *goquery.Selection) {
		if typ, _ := s.Attr("type"); typ == "hidden" {
			return
		}
		id := s.AttrOr("id", "")
		if id != "" && r.doc.Find(`label[for="`+id+`"]`).Length() == 1 {
			return
		}
		if s.ParentsFiltered("label").Length() > 0 {
			return
		}
		t.Errorf("control %s (%s) has no label", id, s.AttrOr("name", ""))
	})
	// Unknown collection: 404.
	wantStatus(t, a.get("/c/default/rg/nope/jobs/new"), http.StatusNotFound)
	wantStatus(t, a.get("/c/other/rg/jc/jobs/new"), http.StatusNotFound)
}

func TestJobFormLivePreview(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := lastFridayForm(csrf)
	r := a.do(a.client, http.MethodPost, base+"/jobs/preview", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	var times []string
	r.doc.Find("time[datetime]").Each(func(_ int, s *goquery.Selection) { times = append(times, s.AttrOr("datetime", "")) })
	// Last Fridays at 05:15 Berlin time: 27 Nov 2026 … 26 Mar 2027 in CET
	// (UTC+1), 30 Apr 2027 in CEST (UTC+2).
	want := []string{"2026-11-27T05:15:00+01:00", "2026-12-25T05:15:00+01:00", "2027-01-29T05:15:00+01:00", "2027-02-26T05:15:00+01:00", "2027-03-26T05:15:00+01:00", "2027-04-30T05:15:00+02:00"}
	if len(times) != 10 || strings.Join(times[:6], ",") != strings.Join(want, ",") {
		t.Errorf("occurrences %v", times)
	}
	if d := r.doc.Find("#preview-description").Text(); !strings.Contains(strings.ToLower(d), "last friday") {
		t.Errorf("description %q", d)
	}
	if r.doc.Find(`#preview-calendar [data-runs="1"]`).Length() < 1 {
		t.Error("calendar strip marks no day")
	}
	// An invalid field: the error comes back out of band in its slot.
	form.Set("interval", "40")
	r = a.do(a.client, http.MethodPost, base+"/jobs/preview", nil, h, strings.NewReader(form.Encode()))
	if slot := r.doc.Find(`#err-interval[hx-swap-oob]`).Text(); !strings.Contains(slot, "over the maximum of 18") {
		t.Errorf("interval error slot %q in %s", slot, r.body)
	}
	if r.doc.Find("time[datetime]").Length() != 0 {
		t.Error("a job with an invalid schedule is previewed")
	}
	// An incomplete action still previews the schedule, and says what is
	// missing.
	form.Set("interval", "1")
	form.Set("uri", "")
	r = a.do(a.client, http.MethodPost, base+"/jobs/preview", nil, h, strings.NewReader(form.Encode()))
	if r.doc.Find("time[datetime]").Length() != 10 || !strings.Contains(r.doc.Find("#preview-problems").Text(), "URL: is required") {
		t.Errorf("incomplete action: %s", r.body)
	}
}

func TestJobFormTabsRoundTrip(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := lastFridayForm(csrf)
	form.Set("switch", "json")
	r := a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	js := r.doc.Find("textarea#json").Text()
	for _, want := range []string{`"monthlyOccurrences"`, `"occurrence": -1`, `"timeZone": "Europe/Berlin"`, `"X-Team": "finance"`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON tab lacks %s:\n%s", want, js)
		}
	}
	// Edit the JSON (every second month) and switch back: the builder follows.
	back := url.Values{"csrf_token": {csrf}, "mode": {"json"}, "name": {"month-end"}, "switch": {"form"},
		"json": {strings.Replace(js, `"interval": 1`, `"interval": 2`, 1)}}
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(back.Encode()))
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#interval").AttrOr("value", ""); v != "2" {
		t.Errorf("interval after the JSON edit: %q", v)
	}
	if _, ok := r.doc.Find(`input[name="occurrences"][value="-1:friday"]`).Attr("checked"); !ok {
		t.Error("last Friday is not checked after the round trip")
	}
	if v := r.doc.Find("#time_zone").AttrOr("value", ""); v != "Europe/Berlin" {
		t.Errorf("time zone %q", v)
	}
	// Broken JSON stays on the JSON tab and says why.
	back.Set("json", `{"action":`)
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(back.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.doc.Find("textarea#json").Length() != 1 || !strings.Contains(r.body, "not valid JSON") {
		t.Errorf("broken JSON: %s", r.body)
	}
}

func TestJobFormSave(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	coll, _ := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})

	bad := lastFridayForm(csrf)
	bad.Set("uri", "not a url")
	bad.Set("interval", "99")
	before := a.fingerprint()
	r := a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(bad.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.HasPrefix(r.doc.Find("#err-uri").Text(), "URL: ") || !strings.HasPrefix(r.doc.Find("#err-interval").Text(), "Interval: ") {
		t.Errorf("field errors: uri %q interval %q", r.doc.Find("#err-uri").Text(), r.doc.Find("#err-interval").Text())
	}
	if a.fingerprint() != before {
		t.Fatal("an invalid job changed the database")
	}
	// Without the CSRF token nothing is saved.
	noCSRF := lastFridayForm("")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader(noCSRF.Encode()))
	wantStatus(t, r, http.StatusForbidden)

	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(lastFridayForm(csrf).Encode()))
	wantStatus(t, r, http.StatusOK)
	if got := r.Header.Get("HX-Redirect"); got != base+"/jobs/month-end" {
		t.Errorf("redirect %q", got)
	}
	j, err := a.store.JobByName(context.Background(), coll.ID, "month-end")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j.Definition), `"monthlyOccurrences":[{"day":"friday","occurrence":-1}]`) {
		t.Errorf("stored %s", j.Definition)
	}
	// The same name again, in any case, is refused under the name (the
	// catalog's CreateJob) and changes nothing; the edit page shows the
	// job.
	before = a.fingerprint()
	again := lastFridayForm(csrf)
	again.Set("name", "Month-End")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(again.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got, want := r.doc.Find("#err-name").Text(), `Job name: a job named "Month-End" already exists in this collection: edit it instead`; got != want {
		t.Errorf("name error %q, want %q", got, want)
	}
	if r.doc.Find("#form-problems").Length() != 0 {
		t.Errorf("a taken name is listed above the form too: %q", r.doc.Find("#form-problems").Text())
	}
	if a.fingerprint() != before {
		t.Fatal("a taken name changed the database")
	}
	r = a.get(base + "/jobs/month-end/edit")
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#uri").AttrOr("value", ""); v != "https://example.com/month-end" {
		t.Errorf("edit page uri %q", v)
	}
	if _, ok := r.doc.Find(`input[name="hours"][value="5"]`).Attr("checked"); !ok {
		t.Error("edit page: hour 5 not checked")
	}
}

// TestJobFormExponentialRetries saves an exponential retry policy from the
// builder and shows it again on the edit page; a cap below the interval is
// refused under the retry fields with nothing saved.
func TestJobFormExponentialRetries(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	coll, _ := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"})

	bad := lastFridayForm(csrf)
	bad.Set("retry_type", "exponential")
	bad.Set("retry_interval", "PT10M")
	bad.Set("max_retry_interval", "PT1M")
	before := a.fingerprint()
	r := a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(bad.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.HasPrefix(r.doc.Find("#err-retry").Text(), "Longest wait: ") || a.fingerprint() != before {
		t.Fatalf("refused cap: %q", r.doc.Find("#err-retry").Text())
	}

	form := lastFridayForm(csrf)
	form.Set("retry_type", "exponential")
	form.Set("retry_interval", "PT1M")
	form.Set("retry_count", "5")
	form.Set("max_retry_interval", "PT10M")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	j, err := a.store.JobByName(context.Background(), coll.ID, "month-end")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j.Definition), `"retryType":"exponential"`) || !strings.Contains(string(j.Definition), `"maxRetryInterval":"PT10M"`) ||
		!strings.Contains(string(j.Definition), `"retryCount":5`) {
		t.Errorf("stored %s", j.Definition)
	}
	r = a.get(base + "/jobs/month-end/edit")
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#max_retry_interval").AttrOr("value", ""); v != "PT10M" {
		t.Errorf("edit page max_retry_interval %q", v)
	}
	if v := r.doc.Find("#retry_count").AttrOr("value", ""); v != "5" {
		t.Errorf("edit page retry_count %q", v)
	}
	if _, ok := r.doc.Find(`#retry_type option[value="exponential"]`).Attr("selected"); !ok {
		t.Error("edit page: exponential not selected")
	}
}
