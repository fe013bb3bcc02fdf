package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

const basicJob = `{"properties":{"startTime":"2026-01-01T09:00:00Z",
	"action":{"type":"Http","request":{"uri":"https://example.com/hook","method":"post","body":"hi",
		"headers":{"X-One":"1"},"authentication":{"type":"basic","username":"u","password":"hunter2-secret"}},
		"retryPolicy":{"retryType":"Fixed","retryInterval":"PT30S","retryCount":3}},
	"recurrence":{"frequency":"Week","interval":1,"schedule":{"weekDays":["Monday","Friday"],"hours":[9],"minutes":[30]}}}}`

type armJobOut struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Name       string `json:"name"`
	Properties struct {
		StartTime string       `json:"startTime"`
		State     jobdef.State `json:"state"`
		Action    struct {
			Type    string `json:"type"`
			Request struct {
				URI            string            `json:"uri"`
				Method         string            `json:"method"`
				Headers        map[string]string `json:"headers"`
				Authentication map[string]any    `json:"authentication"`
			} `json:"request"`
			RetryPolicy map[string]any `json:"retryPolicy"`
		} `json:"action"`
		Recurrence struct {
			Frequency string `json:"frequency"`
			Schedule  struct {
				WeekDays []string `json:"weekDays"`
			} `json:"schedule"`
		} `json:"recurrence"`
		Status *struct {
			NextExecutionTime string `json:"nextExecutionTime"`
			ExecutionCount    int    `json:"executionCount"`
		} `json:"status"`
	} `json:"properties"`
}

type armListOut[T any] struct {
	Value    []T    `json:"value"`
	NextLink string `json:"nextLink"`
}

func TestARMCollectionAndJobLifecycle(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("Group-1") + "/jc1"

	r := a.api(http.MethodPut, coll+apiVersion, `{"location":"West Europe","tags":{"team":"ops"},"properties":{"sku":{"name":"standard"}}}`)
	wantStatus(t, r, http.StatusCreated)
	if r.Header.Get("x-ms-request-id") == "" {
		t.Error("no x-ms-request-id")
	}
	if !strings.Contains(r.body, `"id":"/subscriptions/default/resourceGroups/Group-1/providers/Microsoft.Scheduler/jobCollections/jc1"`) ||
		!strings.Contains(r.body, `"sku":{"name":"Standard"}`) || !strings.Contains(r.body, `"maxJobCount":50`) {
		t.Errorf("created collection: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"location":"North Europe","properties":{"sku":{"name":"P20Premium"}}}`), http.StatusOK)
	// Path segments are case-insensitive.
	r = a.api(http.MethodGet, strings.ReplaceAll(strings.ToUpper(coll), "JC1", "jc1")+apiVersion, "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"location":"North Europe"`) || !strings.Contains(r.body, `"maxJobCount":1000`) {
		t.Errorf("replaced collection: %s", r.body)
	}
	r = a.api(http.MethodPatch, coll+apiVersion, `{"tags":{"team":"dev"}}`)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"team":"dev"`) || !strings.Contains(r.body, `"P20Premium"`) {
		t.Errorf("patched collection: %s", r.body)
	}

	r = a.api(http.MethodPut, coll+"/jobs/job1"+apiVersion, basicJob)
	wantStatus(t, r, http.StatusCreated)
	j := decode[armJobOut](t, r)
	if j.Name != "jc1/job1" || j.Type != "Microsoft.Scheduler/jobCollections/jobs" || !strings.HasSuffix(j.ID, "/jobCollections/jc1/jobs/job1") {
		t.Errorf("job envelope: %+v", j)
	}
	p := j.Properties
	if p.State != jobdef.Enabled || p.Action.Type != "Http" || p.Action.Request.Method != "POST" || p.Action.Request.Headers["X-One"] != "1" ||
		p.Recurrence.Frequency != "week" || strings.Join(p.Recurrence.Schedule.WeekDays, ",") != "monday,friday" ||
		p.Action.RetryPolicy["retryType"] != "fixed" || p.Status == nil || p.Status.NextExecutionTime != "2026-11-23T09:30:00Z" {
		t.Errorf("job properties: %+v (%s)", p, r.body)
	}
	if p.Action.Request.Authentication["type"] != "Basic" || p.Action.Request.Authentication["username"] != "u" {
		t.Errorf("authentication: %v", p.Action.Request.Authentication)
	}
	if strings.Contains(r.body, "hunter2") {
		t.Errorf("the password is in the response: %s", r.body)
	}
	if raw := a.rawJobColumns("job1"); strings.Contains(raw, "hunter2") {
		t.Errorf("the password is stored in clear: %s", raw)
	}

	// A PUT that leaves the password out keeps it; a PATCH merges.
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/job1"+apiVersion, strings.Replace(basicJob, `,"password":"hunter2-secret"`, "", 1)), http.StatusOK)
	sec := a.secretsOf(coll, "job1")
	if sec["action.request.authentication.password#basic"] != "hunter2-secret" {
		t.Errorf("kept secrets: %v", sec)
	}
	r = a.api(http.MethodPatch, coll+"/jobs/job1"+apiVersion, `{"properties":{"state":"Disabled"}}`)
	wantStatus(t, r, http.StatusOK)
	if j := decode[armJobOut](t, r); j.Properties.State != jobdef.Disabled || j.Properties.Action.Request.URI != "https://example.com/hook" {
		t.Errorf("patched job: %s", r.body)
	}
	r = a.api(http.MethodPatch, coll+"/jobs/job1"+apiVersion, `{"properties":{"state":"enabled","action":{"request":{"authentication":null}}}}`)
	wantStatus(t, r, http.StatusOK)
	if j := decode[armJobOut](t, r); j.Properties.Action.Request.Authentication != nil || j.Properties.State != jobdef.Enabled {
		t.Errorf("authentication not removed: %s", r.body)
	}

	// Run now records an attempt.
	wantStatus(t, a.api(http.MethodPost, coll+"/jobs/job1/run"+apiVersion, ""), http.StatusOK)

	// Lists, filters and paging.
	for i := 2; i <= 7; i++ {
		body := strings.Replace(basicJob, `"startTime"`, `"state":"disabled","startTime"`, 1)
		if i%2 == 0 {
			body = basicJob
		}
		wantStatus(t, a.api(http.MethodPut, fmt.Sprintf("%s/jobs/job%d%s", coll, i, apiVersion), body), http.StatusCreated)
	}
	r = a.api(http.MethodGet, coll+"/jobs"+apiVersion+"&$top=3", "")
	wantStatus(t, r, http.StatusOK)
	page := decode[armListOut[armJobOut]](t, r)
	if len(page.Value) != 3 || page.Value[0].Name != "jc1/job1" || !strings.Contains(page.NextLink, "%24skip=3") {
		t.Fatalf("first page: %d %q", len(page.Value), page.NextLink)
	}
	var names []string
	for next := page.NextLink; next != ""; {
		r = a.api(http.MethodGet, strings.TrimPrefix(next, a.srv.URL), "")
		wantStatus(t, r, http.StatusOK)
		pg := decode[armListOut[armJobOut]](t, r)
		for _, v := range pg.Value {
			names = append(names, v.Name)
		}
		next = pg.NextLink
	}
	if len(names) != 4 {
		t.Errorf("following nextLink: %v", names)
	}
	r = a.api(http.MethodGet, coll+"/jobs"+apiVersion+"&$filter=state+eq+Disabled", "")
	if pg := decode[armListOut[armJobOut]](t, r); len(pg.Value) != 3 {
		t.Errorf("disabled jobs: %s", r.body)
	}
	r = a.api(http.MethodGet, "/subscriptions/default/providers/Microsoft.Scheduler/jobCollections"+apiVersion, "")
	if pg := decode[armListOut[map[string]any]](t, r); len(pg.Value) != 1 {
		t.Errorf("collections by subscription: %s", r.body)
	}

	// History: newest first, filtered on status.
	jobID := a.jobID(coll, "job1")
	for i, st := range []models.HistoryStatus{models.StatusCompleted, models.StatusFailed, models.StatusCompleted} {
		at := a.clock.Now().Add(-time.Duration(3-i) * 10 * time.Minute)
		if err := a.store.AddHistory(context.Background(), &models.HistoryEntry{JobID: jobID, StartTime: at, ExpectedExecutionTime: at,
			ActionName: models.MainAction, Status: st, Message: fmt.Sprintf("entry %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	r = a.api(http.MethodGet, coll+"/jobs/job1/history"+apiVersion, "")
	if !strings.Contains(r.body, `"entry 2"`) || strings.Index(r.body, "entry 2") > strings.Index(r.body, "entry 0") {
		t.Errorf("history not newest first: %s", r.body)
	}
	r = a.api(http.MethodGet, coll+"/jobs/job1/history"+apiVersion+"&$filter=status%20eq%20failed", "")
	if pg := decode[armListOut[map[string]any]](t, r); len(pg.Value) != 1 || !strings.Contains(r.body, "entry 1") {
		t.Errorf("failed history: %s", r.body)
	}

	// Disable and enable the collection; delete a job, then the collection.
	wantStatus(t, a.api(http.MethodPost, coll+"/disable"+apiVersion, ""), http.StatusOK)
	if r = a.api(http.MethodGet, coll+apiVersion, ""); !strings.Contains(r.body, `"state":"Disabled"`) {
		t.Errorf("disabled: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodPost, coll+"/enable"+apiVersion, ""), http.StatusOK)
	wantStatus(t, a.api(http.MethodDelete, coll+"/jobs/job2"+apiVersion, ""), http.StatusOK)
	wantStatus(t, a.api(http.MethodGet, coll+"/jobs/job2"+apiVersion, ""), http.StatusNotFound)
	wantStatus(t, a.api(http.MethodDelete, coll+apiVersion, ""), http.StatusOK)
	r = a.api(http.MethodGet, coll+apiVersion, "")
	wantStatus(t, r, http.StatusNotFound)
	if e := decode[apiErr](t, r); e.Error.Code != "ResourceNotFound" || !strings.Contains(e.Error.Message, `"jc1"`) {
		t.Errorf("404: %s", r.body)
	}
}

func TestARMQuotas(t *testing.T) {
	a := newApp(t, false).withToken()
	free := rgPath("rg") + "/free"
	wantStatus(t, a.api(http.MethodPut, free+apiVersion, `{"properties":{"sku":{"name":"Free"}}}`), http.StatusCreated)
	hourly := `{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour"}}}`
	for i := 1; i <= 5; i++ {
		wantStatus(t, a.api(http.MethodPut, fmt.Sprintf("%s/jobs/j%d%s", free, i, apiVersion), hourly), http.StatusCreated)
	}
	before := a.fingerprint()
	for _, tc := range []struct{ name, path, body, quota string }{
		{"sixth job", free + "/jobs/j6", hourly, "maxJobCount"},
		{"every minute", free + "/jobs/j1", strings.Replace(hourly, `"hour"`, `"minute"`, 1), "maxRecurrence"},
		{"two runs 30 minutes apart", free + "/jobs/j1", strings.Replace(hourly, `"frequency":"hour"`, `"frequency":"day","schedule":{"hours":[9],"minutes":[0,30]}`, 1), "maxRecurrence"},
		{"outbound authentication", free + "/jobs/j1", strings.Replace(hourly, `"method":"GET"`, `"method":"GET","authentication":{"type":"basic","username":"u","password":"p"}`, 1), "outbound authentication"},
	} {
		r := a.api(http.MethodPut, tc.path+apiVersion, tc.body)
		wantStatus(t, r, http.StatusConflict)
		if e := decode[apiErr](t, r); e.Error.Code != "Conflict" || !strings.Contains(e.Error.Message, tc.quota) {
			t.Errorf("%s: %s", tc.name, r.body)
		}
		if a.fingerprint() != before {
			t.Fatalf("%s: the database changed", tc.name)
		}
	}
	// Lowering the quota below the jobs held is refused too.
	r := a.api(http.MethodPatch, free+apiVersion, `{"properties":{"quota":{"maxJobCount":2}}}`)
	wantStatus(t, r, http.StatusConflict)
	// A collection quota above the SKU's is a bad request.
	r = a.api(http.MethodPut, rgPath("rg")+"/std"+apiVersion, `{"properties":{"sku":{"name":"Standard"},"quota":{"maxJobCount":51}}}`)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "properties.quota.maxJobCount") {
		t.Errorf("quota over SKU: %s", r.body)
	}
}

// jobID returns the id of a job by its path.
func (a *app) jobID(coll, name string) int64 {
	a.t.Helper()
	parts := strings.Split(coll, "/")
	c, err := a.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: parts[2], ResourceGroup: parts[4], Name: parts[len(parts)-1]})
	if err != nil {
		a.t.Fatal(err)
	}
	j, err := a.store.JobByName(context.Background(), c.ID, name)
	if err != nil {
		a.t.Fatal(err)
	}
	return j.ID
}

func (a *app) secretsOf(coll, name string) map[string]string {
	a.t.Helper()
	s, err := a.store.JobSecrets(context.Background(), a.jobID(coll, name))
	if err != nil {
		a.t.Fatal(err)
	}
	return s
}

// TestARMJobStateNote puts a job disabled with properties.stateNote (SPEC
// §13.2): the answers carry the note with who set it and when; a patch
// that only changes the note keeps the state; enabling clears the note;
// a bad note is a 400 naming stateNote and changes nothing.
func TestARMJobStateNote(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	jobPath := coll + "/jobs/paused" + apiVersion
	type props struct {
		State          jobdef.State `json:"state"`
		StateNote      *string      `json:"stateNote"`
		StateChangedBy *string      `json:"stateChangedBy"`
		StateChangedAt *string      `json:"stateChangedAt"`
	}
	get := func(r *response) props {
		t.Helper()
		return decode[struct {
			Properties props `json:"properties"`
		}](t, r).Properties
	}
	body := `{"properties":{"state":"Disabled","stateNote":" waiting for the vendor's maintenance ","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour"}}}`
	r := a.api(http.MethodPut, jobPath, body)
	wantStatus(t, r, http.StatusCreated)
	p := get(r)
	if p.State != jobdef.Disabled || p.StateNote == nil || *p.StateNote != "waiting for the vendor's maintenance" ||
		p.StateChangedBy == nil || *p.StateChangedBy != "api" || p.StateChangedAt == nil {
		t.Fatalf("PUT answered %s", r.body)
	}
	if p := get(a.api(http.MethodGet, jobPath, "")); p.StateNote == nil || *p.StateNote != "waiting for the vendor's maintenance" {
		t.Errorf("GET lost the note: %+v", p)
	}
	if strings.Contains(a.rawJobColumns("paused"), "stateNote") {
		t.Errorf("the stored definition holds the note: %s", a.rawJobColumns("paused"))
	}

	r = a.api(http.MethodPatch, jobPath, `{"properties":{"stateNote":"until Monday"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != jobdef.Disabled || *p.StateNote != "until Monday" {
		t.Errorf("PATCH of the note answered %s", r.body)
	}
	// A change of something else keeps the note.
	r = a.api(http.MethodPatch, jobPath, `{"properties":{"recurrence":{"frequency":"hour","interval":2}}}`)
	if p := get(r); *p.StateNote != "until Monday" {
		t.Errorf("PATCH of the recurrence answered %s, want the note kept", r.body)
	}

	before := a.fingerprint()
	for _, bad := range []string{`"` + strings.Repeat("x", 501) + `"`, `"two\nlines"`, `17`} {
		r := a.api(http.MethodPatch, jobPath, `{"properties":{"stateNote":`+bad+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) != 1 || e.Error.Details[0].Target != "stateNote" {
			t.Errorf("bad note %.20s answered %s, want one detail naming stateNote", bad, r.body)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused note changed the database")
	}

	r = a.api(http.MethodPatch, jobPath, `{"properties":{"state":"enabled"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != jobdef.Enabled || p.StateNote != nil || p.StateChangedBy == nil {
		t.Errorf("enabling answered %s, want no note and who enabled it", r.body)
	}
}

// TestARMCollectionStateNote puts a job collection disabled with
// properties.stateNote (SPEC §13.2): the answers carry the note with who
// set it and when; a patch of something else keeps it; a bad note is a
// 400 naming properties.stateNote and changes nothing; enabling clears
// the note; stateChangedBy on input is ignored.
func TestARMCollectionStateNote(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc" + apiVersion
	type props struct {
		State          models.CollectionState `json:"state"`
		StateNote      *string                `json:"stateNote"`
		StateChangedBy *string                `json:"stateChangedBy"`
		StateChangedAt *string                `json:"stateChangedAt"`
	}
	get := func(r *response) props {
		t.Helper()
		return decode[struct {
			Properties props `json:"properties"`
		}](t, r).Properties
	}
	r := a.api(http.MethodPut, coll, `{"properties":{"sku":{"name":"Standard"},"state":"Disabled","stateNote":" vendor maintenance ","stateChangedBy":"mallory"}}`)
	wantStatus(t, r, http.StatusCreated)
	p := get(r)
	if p.State != models.CollectionDisabled || p.StateNote == nil || *p.StateNote != "vendor maintenance" ||
		p.StateChangedBy == nil || *p.StateChangedBy != "api" || p.StateChangedAt == nil {
		t.Fatalf("PUT answered %s", r.body)
	}
	if p := get(a.api(http.MethodGet, coll, "")); p.StateNote == nil || *p.StateNote != "vendor maintenance" || p.StateChangedAt == nil {
		t.Errorf("GET lost the note: %+v", p)
	}
	r = a.api(http.MethodPatch, coll, `{"tags":{"team":"ops"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != models.CollectionDisabled || p.StateNote == nil || *p.StateNote != "vendor maintenance" {
		t.Errorf("PATCH of the tags answered %s, want the note kept", r.body)
	}
	r = a.api(http.MethodPatch, coll, `{"properties":{"stateNote":"until Monday"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != models.CollectionDisabled || p.StateNote == nil || *p.StateNote != "until Monday" {
		t.Errorf("PATCH of the note answered %s", r.body)
	}

	before := a.fingerprint()
	for _, bad := range []string{`"` + strings.Repeat("x", 501) + `"`, `"two\nlines"`, `17`} {
		r := a.api(http.MethodPatch, coll, `{"properties":{"stateNote":`+bad+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || len(e.Error.Details) != 1 || e.Error.Details[0].Target != "properties.stateNote" {
			t.Errorf("bad note %.20s answered %s, want one detail naming properties.stateNote", bad, r.body)
		}
	}
	if a.fingerprint() != before {
		t.Error("a refused note changed the database")
	}

	r = a.api(http.MethodPatch, coll, `{"properties":{"state":"Enabled"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.State != models.CollectionEnabled || p.StateNote != nil || p.StateChangedBy == nil {
		t.Errorf("enabling answered %s, want no note and who enabled it", r.body)
	}
	r = a.api(http.MethodPut, coll, `{"properties":{"sku":{"name":"Standard"},"state":"Enabled","stateNote":"ignored"}}`)
	wantStatus(t, r, http.StatusOK)
	if p := get(r); p.StateNote != nil {
		t.Errorf("an enabled collection kept a note: %s", r.body)
	}
}

// TestARMPatchOfOnlyTheNote pauses a job from its page, then PATCHes only
// properties.stateNote through the API: the note changes (GET and the
// job page show it), the job stays disabled and the change is audited.
func TestARMPatchOfOnlyTheNote(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	f.putJob(f.coll, "daily", pgJobJSON)
	page := "/c/default/rg/jc/jobs/daily"
	wantStatus(t, f.hxPost(page+"/disable", url.Values{"note": {"first reason"}}), http.StatusOK)
	audits := f.auditCount("job.patch") + f.auditCount("job.disable")
	api := rgPath("rg") + "/jc/jobs/daily"
	wantStatus(t, f.arm(http.MethodPatch, api, `{"properties":{"stateNote":"second reason"}}`), http.StatusOK)
	r := f.arm(http.MethodGet, api, "")
	wantStatus(t, r, http.StatusOK)
	got := decode[struct {
		Properties struct {
			State     jobdef.State `json:"state"`
			StateNote string       `json:"stateNote"`
		} `json:"properties"`
	}](t, r).Properties
	if got.State != jobdef.Disabled || got.StateNote != "second reason" {
		t.Errorf("after a PATCH of the note: %s", r.body)
	}
	if n := noteText(f.get(page), "job-state-note"); !strings.HasSuffix(n, ": second reason") {
		t.Errorf("the job page's note %q", n)
	}
	if n := f.auditCount("job.patch") + f.auditCount("job.disable"); n != audits+1 {
		t.Errorf("%d audit entries for the PATCH, want 1", n-audits)
	}
}
