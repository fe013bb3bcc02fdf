package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCronAPIPutJob puts a job with recurrence.cron (both JSON shapes) and
// gets back the recurrence it converts to, without cron; a line the
// recurrence cannot express is a 400 naming recurrence.cron, with the
// database unchanged.
func TestCronAPIPutJob(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"standard"}}}`), http.StatusCreated)

	const action = `"action":{"type":"http","request":{"uri":"https://example.com/hook","method":"POST"}}`
	want := `"recurrence":{"frequency":"week","interval":1,"schedule":{"minutes":[15],"hours":[5],"weekDays":["monday","tuesday","wednesday","thursday","friday"]},"timeZone":"Europe/Berlin"}`
	for name, body := range map[string]string{
		"arm":  `{"properties":{` + action + `,"recurrence":{"cron":"15 5 * * 1-5","timeZone":"Europe/Berlin"}}}`,
		"flat": `{` + action + `,"recurrence":{"cron":"15 5 * * MON-FRI","timeZone":"Europe/Berlin"}}`,
	} {
		r := a.api(http.MethodPut, coll+"/jobs/"+name+apiVersion, body)
		wantStatus(t, r, http.StatusCreated)
		if !strings.Contains(r.body, want) || strings.Contains(r.body, "cron") {
			t.Errorf("%s: answer %s\nwant %s", name, r.body, want)
		}
		r = a.api(http.MethodGet, coll+"/jobs/"+name+apiVersion, "")
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(r.body, want) {
			t.Errorf("%s: stored %s", name, r.body)
		}
	}

	before := a.fingerprint()
	for _, rec := range []string{
		`{"cron":"0 0 1 * 1"}`,
		`{"cron":"0 0 0 * * *"}`,
		`{"cron":"15 5 * * 1-5","frequency":"day"}`,
	} {
		r := a.api(http.MethodPut, coll+"/jobs/arm"+apiVersion, `{"properties":{`+action+`,"recurrence":`+rec+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		if e := decode[apiErr](t, r); e.Error.Code != "BadRequest" || !strings.Contains(r.body, "recurrence.cron: ") {
			t.Errorf("%s: %s", rec, r.body)
		}
		if !strings.Contains(rec, "frequency") && !strings.Contains(r.body, "OR") && !strings.Contains(r.body, "seconds") {
			t.Errorf("%s: no reason in %s", rec, r.body)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused cron line changed the database")
	}
}

// TestJobFormCron pastes cron lines into the builder: a line fills
// frequency, schedule and zone (the rest of the form stays) and the
// preview follows; a refused line re-renders the form with the reason
// under the field (422) and nothing saved.
func TestJobFormCron(t *testing.T) {
	a, base := signedInWithCollection(t)
	csrf := a.csrf(base + "/jobs/new")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := lastFridayForm(csrf)
	form.Set("switch", "cron")
	form.Set("cron", "CRON_TZ=America/Chicago 30 8 * * MON-FRI")
	r := a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find(`#frequency option[selected]`).AttrOr("value", ""); v != "week" {
		t.Errorf("frequency %q", v)
	}
	checked := func(name, value string) bool {
		_, ok := r.doc.Find(`input[name="` + name + `"][value="` + value + `"]`).Attr("checked")
		return ok
	}
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday"} {
		if !checked("week_days", d) {
			t.Errorf("%s not checked", d)
		}
	}
	if checked("week_days", "sunday") || !checked("minutes", "30") || checked("minutes", "15") || !checked("hours", "8") || checked("hours", "5") {
		t.Error("minutes/hours/week days not those of the line")
	}
	if v := r.doc.Find("#time_zone").AttrOr("value", ""); v != "America/Chicago" {
		t.Errorf("zone %q", v)
	}
	if v := r.doc.Find("#uri").AttrOr("value", ""); v != "https://example.com/month-end" {
		t.Errorf("the action was lost: %q", v)
	}
	if d := r.doc.Find("#preview").Text(); !strings.Contains(d, "Monday to Friday") {
		t.Errorf("preview does not follow: %s", d)
	}
	first := r.doc.Find("#preview time[datetime]").First().AttrOr("datetime", "")
	if !strings.HasSuffix(first, "T08:30:00-06:00") {
		t.Errorf("first preview occurrence %q", first)
	}

	for line, reason := range map[string]string{
		"0 0 1 * 1":    "day-of-month OR day-of-week",
		"0 0 0 * * *":  "seconds",
		"0 6 L-2 * *":  "JSON tab",
		"*/61 * * * X": "day-of-week",
	} {
		form.Set("cron", line)
		r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if slot := r.doc.Find("#err-cron").Text(); !strings.HasPrefix(slot, "cron: ") || !strings.Contains(slot, reason) {
			t.Errorf("%q: error slot %q", line, slot)
		}
		if v := r.doc.Find("#cron").AttrOr("value", ""); v != line {
			t.Errorf("%q: the field lost the line: %q", line, v)
		}
	}
	// Without a start time, the builder starts the job today at 00:00, so
	// that it does not also run when saved.
	form.Set("start_time", "")
	form.Set("cron", "@daily")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#start_time").AttrOr("value", ""); !strings.HasSuffix(v, "T00:00") {
		t.Errorf("start time %q", v)
	}
	if first := r.doc.Find("#preview time[datetime]").First().AttrOr("datetime", ""); !strings.Contains(first, "T00:00:00") {
		t.Errorf("first run %q, want a midnight (no run at creation)", first)
	}
	// Every minute shows as frequency hour with every minute checked.
	form.Set("cron", "* * * * *")
	r = a.do(a.client, http.MethodPost, base+"/jobs/new", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find(`#frequency option[selected]`).AttrOr("value", ""); v != "hour" || r.doc.Find(`input[name="minutes"][checked]`).Length() != 60 {
		t.Errorf("every minute: frequency %q, %d minutes", v, r.doc.Find(`input[name="minutes"][checked]`).Length())
	}
}

// TestImportAPICrontab posts a crontab file to POST /api/v1/import: without
// a target collection it is a 400 saying one is needed; with one, the dry
// run reports each line (the refused cron line invalid) and writes nothing.
func TestImportAPICrontab(t *testing.T) {
	a := newApp(t, false).withToken()
	file := "# ops\nCRON_TZ=Europe/Berlin\n15 5 * * 1-5 https://example.com/report\n0 0 1 * 1 POST https://example.com/or\n"
	before := a.fingerprint()
	r := a.api("POST", "/api/v1/import", file)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "file: a crontab file names no collection") {
		t.Errorf("no target: %s", r.body)
	}
	r = a.do(a.client, "POST", "/api/v1/import?resourceGroup=rg&jobCollection=jc", nil,
		http.Header{"Authorization": {"Bearer " + a.token}, "Content-Type": {"text/plain"}}, strings.NewReader(file))
	wantStatus(t, r, http.StatusOK)
	rep := decode[importReport](t, r)
	if rep.Summary.Jobs != 2 || rep.Summary.New != 1 || rep.Summary.Invalid != 1 || rep.Jobs[0].Name != "line-3-example-com" ||
		!strings.HasPrefix(strings.Join(rep.Jobs[1].Problems, ""), "recurrence.cron: standard cron runs when day-of-month OR day-of-week matches") {
		t.Errorf("report: %s", r.body)
	}
	if a.fingerprint() != before {
		t.Error("a dry run wrote")
	}
}

// TestImportPageCrontab pastes a crontab into the import page: without a
// collection the page says one is needed (422); with one, the dry run lists
// the lines' jobs.
func TestImportPageCrontab(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	csrf := a.csrf("/import")
	h := http.Header{"HX-Request": {"true"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	form := url.Values{"csrf_token": {csrf}, "text": {"# ops\n15 5 * * 1-5 https://example.com/report\n"},
		"on_conflict": {"replace"}, "step": {"check"}}
	r := a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(r.doc.Find("#import-problems").Text(), "a crontab file names no collection") {
		t.Errorf("no collection: %s", r.doc.Find("#import-problems").Text())
	}
	form.Set("resource_group", "ops")
	form.Set("collection", "nightly")
	r = a.do(a.client, http.MethodPost, "/import", nil, h, strings.NewReader(form.Encode()))
	wantStatus(t, r, http.StatusOK)
	if row := r.doc.Find(`tr[data-job="line-2-example-com"]`).Text(); !strings.Contains(row, "new") || !strings.Contains(row, "Monday to Friday") {
		t.Errorf("dry-run row: %q", row)
	}
}
