package azuresdk

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest/date"
	"github.com/Azure/go-autorest/autorest/to"
)

const (
	collectionType = "Microsoft.Scheduler/jobCollections"
	jobType        = "Microsoft.Scheduler/jobCollections/jobs"
	historyType    = "Microsoft.Scheduler/jobCollections/jobs/history"
)

func collectionID(rg, jc string) string {
	return "/subscriptions/" + subscriptionID + "/resourceGroups/" + rg + "/providers/Microsoft.Scheduler/jobCollections/" + jc
}

func jobID(rg, jc, job string) string { return collectionID(rg, jc) + "/jobs/" + job }

// skuQuota is SPEC §6: the default quota of each SKU.
var skuQuota = map[scheduler.SkuDefinition]struct {
	maxJobs   int32
	frequency scheduler.RecurrenceFrequency
	interval  int32
}{
	scheduler.Free:       {5, scheduler.Hour, 1},
	scheduler.Standard:   {50, scheduler.Minute, 1},
	scheduler.P10Premium: {50, scheduler.Minute, 1},
	scheduler.P20Premium: {1000, scheduler.Minute, 1},
}

func collectionDef(location string, sku scheduler.SkuDefinition, tags map[string]string) scheduler.JobCollectionDefinition {
	def := scheduler.JobCollectionDefinition{
		Location:   to.StringPtr(location),
		Properties: &scheduler.JobCollectionProperties{Sku: &scheduler.Sku{Name: sku}, State: scheduler.Enabled},
	}
	if tags != nil {
		def.Tags = map[string]*string{}
		for k, v := range tags {
			def.Tags[k] = to.StringPtr(v)
		}
	}
	return def
}

// createCollection PUTs a collection the test needs and stops the test if
// that fails.
func createCollection(t *testing.T, ctx context.Context, rg, jc string, sku scheduler.SkuDefinition) {
	t.Helper()
	cc := collectionsClient()
	def := collectionDef("West Europe", sku, nil)
	def.Name = to.StringPtr(jc)
	if _, err := cc.CreateOrUpdate(ctx, rg, jc, def); err != nil {
		t.Fatalf("create collection %s/%s (%s): %v", rg, jc, sku, err)
	}
}

// simpleJob is an Http GET of uri with a recurrence (nil: one-time) that
// starts at start and does not retry.
func simpleJob(uri string, start time.Time, rec *scheduler.JobRecurrence) scheduler.JobDefinition {
	return scheduler.JobDefinition{Properties: &scheduler.JobProperties{
		StartTime: &date.Time{Time: start},
		Action: &scheduler.JobAction{
			Type:        scheduler.HTTP,
			Request:     &scheduler.HTTPRequest{URI: to.StringPtr(uri), Method: to.StringPtr("GET")},
			RetryPolicy: &scheduler.RetryPolicy{RetryType: scheduler.None},
		},
		Recurrence: rec,
	}}
}

func every(f scheduler.RecurrenceFrequency, n int32) *scheduler.JobRecurrence {
	return &scheduler.JobRecurrence{Frequency: f, Interval: to.Int32Ptr(n)}
}

// listJobNames follows every page of a job list and returns the job names.
func listJobNames(t *testing.T, ctx context.Context, rg, jc string, top *int32, filter string) []string {
	t.Helper()
	jc2 := jobsClient()
	page, err := jc2.List(ctx, rg, jc, top, nil, filter)
	if err != nil {
		t.Fatalf("List(%s, top=%s, filter=%q): %v", jc, i32(top), filter, err)
	}
	var names []string
	for page.NotDone() {
		for _, j := range page.Values() {
			names = append(names, str(j.Name))
		}
		if err := page.NextWithContext(ctx); err != nil {
			t.Fatalf("List(%s) next page: %v", jc, err)
		}
	}
	return names
}

// ---------------------------------------------------------------------------
// Job collections

func TestJobCollections(t *testing.T) {
	ctx := testContext(t, 60*time.Second)
	cc := collectionsClient()
	const rg, jc = "compat-rg", "compat-collection"
	const otherRG, otherJC = "compat-rg-other", "compat-collection-other"

	checkCollection := func(t *testing.T, got scheduler.JobCollectionDefinition, sku scheduler.SkuDefinition, state scheduler.JobCollectionState) {
		t.Helper()
		if str(got.Name) != jc {
			t.Errorf("name %q, want %q", str(got.Name), jc)
		}
		if str(got.ID) != collectionID(rg, jc) {
			t.Errorf("id %q, want %q", str(got.ID), collectionID(rg, jc))
		}
		if str(got.Type) != collectionType {
			t.Errorf("type %q, want %q", str(got.Type), collectionType)
		}
		if str(got.Location) != "West Europe" {
			t.Errorf("location %q, want %q", str(got.Location), "West Europe")
		}
		p := got.Properties
		if p == nil {
			t.Fatal("no properties")
		}
		if p.Sku == nil || !strings.EqualFold(string(p.Sku.Name), string(sku)) {
			t.Errorf("sku %+v, want %s", p.Sku, sku)
		}
		if !strings.EqualFold(string(p.State), string(state)) {
			t.Errorf("state %q, want %q", p.State, state)
		}
		q, want := p.Quota, skuQuota[sku]
		if q == nil {
			t.Fatal("no properties.quota")
		}
		if q.MaxJobCount == nil || *q.MaxJobCount != want.maxJobs {
			t.Errorf("quota.maxJobCount %s, want %d", i32(q.MaxJobCount), want.maxJobs)
		}
		if q.MaxRecurrence == nil || !strings.EqualFold(string(q.MaxRecurrence.Frequency), string(want.frequency)) ||
			q.MaxRecurrence.Interval == nil || *q.MaxRecurrence.Interval != want.interval {
			t.Errorf("quota.maxRecurrence %+v, want %s every %d", q.MaxRecurrence, want.frequency, want.interval)
		}
	}

	created := t.Run("CreateOrUpdate/created", func(t *testing.T) {
		def := collectionDef("West Europe", scheduler.Standard, map[string]string{"env": "test"})
		def.Name = to.StringPtr(jc)
		got, err := cc.CreateOrUpdate(ctx, rg, jc, def)
		if err != nil {
			t.Fatalf("CreateOrUpdate: %v", err)
		}
		if got.StatusCode != http.StatusCreated {
			t.Errorf("status %d, want 201 Created", got.StatusCode)
		}
		if got.Header.Get("x-ms-request-id") == "" {
			t.Error("no x-ms-request-id header")
		}
		checkCollection(t, got, scheduler.Standard, scheduler.Enabled)
		if v := got.Tags["env"]; str(v) != "test" {
			t.Errorf("tags %v, want env=test", got.Tags)
		}
	})
	if !created {
		t.Fatal("cannot go on without the collection")
	}

	t.Run("CreateOrUpdate/replaced", func(t *testing.T) {
		def := collectionDef("West Europe", scheduler.P10Premium, map[string]string{"env": "test"})
		got, err := cc.CreateOrUpdate(ctx, rg, jc, def)
		if err != nil {
			t.Fatalf("CreateOrUpdate: %v", err)
		}
		if got.StatusCode != http.StatusOK {
			t.Errorf("status %d, want 200 OK", got.StatusCode)
		}
		checkCollection(t, got, scheduler.P10Premium, scheduler.Enabled)
	})

	t.Run("Get", func(t *testing.T) {
		got, err := cc.Get(ctx, rg, jc)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got.StatusCode != http.StatusOK {
			t.Errorf("status %d, want 200", got.StatusCode)
		}
		checkCollection(t, got, scheduler.P10Premium, scheduler.Enabled)
	})

	t.Run("Patch", func(t *testing.T) {
		patch := scheduler.JobCollectionDefinition{Tags: map[string]*string{"env": to.StringPtr("prod"), "team": to.StringPtr("compat")}}
		got, err := cc.Patch(ctx, rg, jc, patch)
		if err != nil {
			t.Fatalf("Patch: %v", err)
		}
		check := func(what string, got scheduler.JobCollectionDefinition) {
			if str(got.Tags["env"]) != "prod" || str(got.Tags["team"]) != "compat" || len(got.Tags) != 2 {
				t.Errorf("%s: tags %v, want env=prod team=compat", what, tagString(got.Tags))
			}
			// PATCH merges: what was not sent stays.
			checkCollection(t, got, scheduler.P10Premium, scheduler.Enabled)
		}
		check("Patch answer", got)
		again, err := cc.Get(ctx, rg, jc)
		if err != nil {
			t.Fatalf("Get after Patch: %v", err)
		}
		check("Get after Patch", again)
	})

	t.Run("ListBySubscription", func(t *testing.T) {
		createCollection(t, ctx, otherRG, otherJC, scheduler.Free)
		page, err := cc.ListBySubscription(ctx)
		if err != nil {
			t.Fatalf("ListBySubscription: %v", err)
		}
		ids := map[string]scheduler.JobCollectionDefinition{}
		for page.NotDone() {
			for _, c := range page.Values() {
				ids[str(c.ID)] = c
				if !strings.HasPrefix(str(c.ID), "/subscriptions/"+subscriptionID+"/") {
					t.Errorf("collection %q of another subscription listed", str(c.ID))
				}
			}
			if err := page.NextWithContext(ctx); err != nil {
				t.Fatalf("next page: %v", err)
			}
		}
		for _, id := range []string{collectionID(rg, jc), collectionID(otherRG, otherJC)} {
			if _, ok := ids[id]; !ok {
				t.Errorf("%s not listed; got %v", id, keys(ids))
			}
		}
		if c, ok := ids[collectionID(rg, jc)]; ok && (str(c.Name) != jc || str(c.Type) != collectionType) {
			t.Errorf("listed as name %q type %q", str(c.Name), str(c.Type))
		}
	})

	t.Run("ListByResourceGroup", func(t *testing.T) {
		page, err := cc.ListByResourceGroup(ctx, rg)
		if err != nil {
			t.Fatalf("ListByResourceGroup: %v", err)
		}
		var ids []string
		for page.NotDone() {
			for _, c := range page.Values() {
				ids = append(ids, str(c.ID))
			}
			if err := page.NextWithContext(ctx); err != nil {
				t.Fatalf("next page: %v", err)
			}
		}
		if !slices.Contains(ids, collectionID(rg, jc)) {
			t.Errorf("%s not listed; got %v", collectionID(rg, jc), ids)
		}
		for _, id := range ids {
			if !strings.HasPrefix(id, "/subscriptions/"+subscriptionID+"/resourceGroups/"+rg+"/") {
				t.Errorf("collection %q of another resource group listed", id)
			}
		}
	})

	t.Run("Disable", func(t *testing.T) {
		future, err := cc.Disable(ctx, rg, jc)
		if err != nil {
			t.Fatalf("Disable: %v", err)
		}
		if err := future.WaitForCompletionRef(ctx, cc.Client); err != nil {
			t.Fatalf("Disable: wait: %v", err)
		}
		res, err := future.Result(cc)
		if err != nil {
			t.Fatalf("Disable: result: %v", err)
		}
		if res.StatusCode != http.StatusOK {
			t.Errorf("Disable: status %d, want 200", res.StatusCode)
		}
		got, err := cc.Get(ctx, rg, jc)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkCollection(t, got, scheduler.P10Premium, scheduler.Disabled)
	})

	t.Run("Enable", func(t *testing.T) {
		future, err := cc.Enable(ctx, rg, jc)
		if err != nil {
			t.Fatalf("Enable: %v", err)
		}
		if err := future.WaitForCompletionRef(ctx, cc.Client); err != nil {
			t.Fatalf("Enable: wait: %v", err)
		}
		res, err := future.Result(cc)
		if err != nil {
			t.Fatalf("Enable: result: %v", err)
		}
		if res.StatusCode != http.StatusOK {
			t.Errorf("Enable: status %d, want 200", res.StatusCode)
		}
		got, err := cc.Get(ctx, rg, jc)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkCollection(t, got, scheduler.P10Premium, scheduler.Enabled)
	})

	t.Run("Delete", func(t *testing.T) {
		for _, c := range []struct{ rg, jc string }{{rg, jc}, {otherRG, otherJC}} {
			future, err := cc.Delete(ctx, c.rg, c.jc)
			if err != nil {
				t.Fatalf("Delete %s: %v", c.jc, err)
			}
			if err := future.WaitForCompletionRef(ctx, cc.Client); err != nil {
				t.Fatalf("Delete %s: wait: %v", c.jc, err)
			}
			res, err := future.Result(cc)
			if err != nil {
				t.Fatalf("Delete %s: result: %v", c.jc, err)
			}
			if res.StatusCode != http.StatusOK {
				t.Errorf("Delete %s: status %d, want 200", c.jc, res.StatusCode)
			}
			_, err = cc.Get(ctx, c.rg, c.jc)
			ae := wantAPIError(t, err, http.StatusNotFound)
			if ae.Code != "ResourceNotFound" {
				t.Errorf("Get after Delete: code %q, want ResourceNotFound (%v)", ae.Code, err)
			}
		}
	})
}

func tagString(tags map[string]*string) string {
	var parts []string
	for k, v := range tags {
		parts = append(parts, k+"="+str(v))
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, " ") + "}"
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------
// Jobs: a full Http job round trip

func TestJobs(t *testing.T) {
	ctx := testContext(t, 60*time.Second)
	jobs := jobsClient()
	const rg, jc, name = "compat-rg", "compat-jobs", "roundtrip"
	createCollection(t, ctx, rg, jc, scheduler.Standard)

	start := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Second)
	end := start.AddDate(1, 0, 0)
	uri := target.URL + "/roundtrip?x=1"
	sentHeaders := map[string]string{"Content-Type": "application/json", "X-Compat": "azure-sdk-for-go"}
	const body, user, password = `{"hello":"sked"}`, "bob", "s3cret pass"
	def := scheduler.JobDefinition{Properties: &scheduler.JobProperties{
		StartTime: &date.Time{Time: start},
		Action: &scheduler.JobAction{
			Type: scheduler.HTTP,
			Request: &scheduler.HTTPRequest{
				URI:            to.StringPtr(uri),
				Method:         to.StringPtr("POST"),
				Body:           to.StringPtr(body),
				Headers:        map[string]*string{},
				Authentication: scheduler.BasicAuthentication{Username: to.StringPtr(user), Password: to.StringPtr(password)},
			},
			RetryPolicy: &scheduler.RetryPolicy{RetryType: scheduler.Fixed, RetryInterval: to.StringPtr("PT30S"), RetryCount: to.Int32Ptr(3)},
		},
		Recurrence: &scheduler.JobRecurrence{
			Frequency: scheduler.Week,
			Interval:  to.Int32Ptr(1),
			EndTime:   &date.Time{Time: end},
			Schedule: &scheduler.JobRecurrenceSchedule{
				WeekDays: &[]scheduler.DayOfWeek{scheduler.Monday, scheduler.Friday},
				Hours:    &[]int32{9},
				Minutes:  &[]int32{30},
			},
		},
		State: scheduler.JobStateEnabled,
	}}
	for k, v := range sentHeaders {
		def.Properties.Action.Request.Headers[k] = to.StringPtr(v)
	}

	// checkJob compares what came back with what was sent, field by field.
	checkJob := func(t *testing.T, got scheduler.JobDefinition, state scheduler.JobState) {
		t.Helper()
		if str(got.Name) != jc+"/"+name {
			t.Errorf("name %q, want %q", str(got.Name), jc+"/"+name)
		}
		if str(got.ID) != jobID(rg, jc, name) {
			t.Errorf("id %q, want %q", str(got.ID), jobID(rg, jc, name))
		}
		if str(got.Type) != jobType {
			t.Errorf("type %q, want %q", str(got.Type), jobType)
		}
		p := got.Properties
		if p == nil {
			t.Fatal("no properties")
		}
		if p.StartTime == nil || !p.StartTime.Time.Equal(start) {
			t.Errorf("startTime %v, want %v", p.StartTime, start)
		}
		if !strings.EqualFold(string(p.State), string(state)) {
			t.Errorf("state %q, want %q", p.State, state)
		}
		a := p.Action
		if a == nil {
			t.Fatal("no action")
		}
		if !strings.EqualFold(string(a.Type), string(scheduler.HTTP)) {
			t.Errorf("action.type %q, want Http", a.Type)
		}
		if r := a.Request; r == nil {
			t.Error("no action.request")
		} else {
			if str(r.URI) != uri {
				t.Errorf("request.uri %q, want %q", str(r.URI), uri)
			}
			if !strings.EqualFold(str(r.Method), "POST") {
				t.Errorf("request.method %q, want POST", str(r.Method))
			}
			if str(r.Body) != body {
				t.Errorf("request.body %q, want %q", str(r.Body), body)
			}
			if len(r.Headers) != len(sentHeaders) {
				t.Errorf("request.headers %v, want %v", tagString(r.Headers), sentHeaders)
			}
			for k, v := range sentHeaders {
				var found *string
				for gk, gv := range r.Headers {
					if strings.EqualFold(gk, k) {
						found = gv
					}
				}
				if str(found) != v {
					t.Errorf("request.headers[%s] = %q, want %q", k, str(found), v)
				}
			}
			// The SDK decodes authentication by its exact "type": only
			// "Basic" comes back as a BasicAuthentication.
			if r.Authentication == nil {
				t.Error("request.authentication missing")
			} else if ba, ok := r.Authentication.AsBasicAuthentication(); !ok {
				t.Errorf("request.authentication is %T %+v, want Basic (type must be exactly \"Basic\")", r.Authentication, r.Authentication)
			} else {
				if str(ba.Username) != user {
					t.Errorf("authentication.username %q, want %q", str(ba.Username), user)
				}
				if ba.Password != nil && *ba.Password != "" {
					t.Errorf("authentication.password came back as %q; secrets must never be returned", *ba.Password)
				}
			}
		}
		if rp := a.RetryPolicy; rp == nil {
			t.Error("no action.retryPolicy")
		} else {
			if !strings.EqualFold(string(rp.RetryType), "fixed") {
				t.Errorf("retryPolicy.retryType %q, want fixed", rp.RetryType)
			}
			if !strings.EqualFold(str(rp.RetryInterval), "PT30S") {
				t.Errorf("retryPolicy.retryInterval %q, want PT30S", str(rp.RetryInterval))
			}
			if rp.RetryCount == nil || *rp.RetryCount != 3 {
				t.Errorf("retryPolicy.retryCount %s, want 3", i32(rp.RetryCount))
			}
		}
		rec := p.Recurrence
		if rec == nil {
			t.Fatal("no recurrence")
		}
		if !strings.EqualFold(string(rec.Frequency), "week") {
			t.Errorf("recurrence.frequency %q, want week", rec.Frequency)
		}
		if rec.Interval == nil || *rec.Interval != 1 {
			t.Errorf("recurrence.interval %s, want 1", i32(rec.Interval))
		}
		if rec.EndTime == nil || !rec.EndTime.Time.Equal(end) {
			t.Errorf("recurrence.endTime %v, want %v", rec.EndTime, end)
		}
		if rec.Count != nil {
			t.Errorf("recurrence.count %d, want none", *rec.Count)
		}
		if s := rec.Schedule; s == nil {
			t.Error("no recurrence.schedule")
		} else {
			var days []string
			if s.WeekDays != nil {
				for _, d := range *s.WeekDays {
					days = append(days, strings.ToLower(string(d)))
				}
			}
			sort.Strings(days)
			if !slices.Equal(days, []string{"friday", "monday"}) {
				t.Errorf("schedule.weekDays %v, want monday, friday", days)
			}
			if s.Hours == nil || !slices.Equal(*s.Hours, []int32{9}) {
				t.Errorf("schedule.hours %v, want [9]", s.Hours)
			}
			if s.Minutes == nil || !slices.Equal(*s.Minutes, []int32{30}) {
				t.Errorf("schedule.minutes %v, want [30]", s.Minutes)
			}
			if s.MonthDays != nil || s.MonthlyOccurrences != nil {
				t.Errorf("schedule has monthDays %v / monthlyOccurrences %v, none were sent", s.MonthDays, s.MonthlyOccurrences)
			}
		}
		if state != scheduler.JobStateEnabled {
			return
		}
		st := p.Status
		if st == nil {
			t.Fatal("no status on an enabled job")
		}
		for n, c := range map[string]*int32{"executionCount": st.ExecutionCount, "failureCount": st.FailureCount, "faultedCount": st.FaultedCount} {
			if c == nil || *c < 0 {
				t.Errorf("status.%s = %s, want a count", n, i32(c))
			}
		}
		if st.NextExecutionTime == nil {
			t.Error("status.nextExecutionTime missing")
		} else {
			next := st.NextExecutionTime.Time.UTC()
			if wd := next.Weekday(); (wd != time.Monday && wd != time.Friday) || next.Hour() != 9 || next.Minute() != 30 || next.Second() != 0 ||
				next.Before(start) || next.After(start.AddDate(0, 0, 8)) {
				t.Errorf("status.nextExecutionTime %v, want the first Monday or Friday 09:30 UTC after %v", next, start)
			}
		}
	}

	created := t.Run("CreateOrUpdate/created", func(t *testing.T) {
		got, err := jobs.CreateOrUpdate(ctx, rg, jc, name, def)
		if err != nil {
			t.Fatalf("CreateOrUpdate: %v", err)
		}
		if got.StatusCode != http.StatusCreated {
			t.Errorf("status %d, want 201", got.StatusCode)
		}
		if got.Header.Get("x-ms-request-id") == "" {
			t.Error("no x-ms-request-id header")
		}
		checkJob(t, got, scheduler.JobStateEnabled)
	})
	if !created {
		t.Fatal("cannot go on without the job")
	}

	t.Run("Get", func(t *testing.T) {
		got, err := jobs.Get(ctx, rg, jc, name)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkJob(t, got, scheduler.JobStateEnabled)
	})

	t.Run("CreateOrUpdate/replaced", func(t *testing.T) {
		got, err := jobs.CreateOrUpdate(ctx, rg, jc, name, def)
		if err != nil {
			t.Fatalf("CreateOrUpdate: %v", err)
		}
		if got.StatusCode != http.StatusOK {
			t.Errorf("status %d, want 200", got.StatusCode)
		}
		checkJob(t, got, scheduler.JobStateEnabled)
	})

	t.Run("Run", func(t *testing.T) {
		res, err := jobs.Run(ctx, rg, jc, name)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.StatusCode != http.StatusOK {
			t.Errorf("Run: status %d, want 200", res.StatusCode)
		}
		// The engine calls the target on its own time.
		var reqs []recorded
		if !poll(20*time.Second, 100*time.Millisecond, func() bool { reqs = target.requests("/roundtrip"); return len(reqs) > 0 }) {
			t.Fatal("the target got no request within 20 s of Run")
		}
		r := reqs[0]
		if r.Method != "POST" || r.Query != "x=1" || r.Body != body {
			t.Errorf("target got %s ?%s body %q, want POST ?x=1 body %q", r.Method, r.Query, r.Body, body)
		}
		if r.Header.Get("X-Compat") != sentHeaders["X-Compat"] {
			t.Errorf("target got X-Compat %q, want %q", r.Header.Get("X-Compat"), sentHeaders["X-Compat"])
		}
		u, pw, ok := (&http.Request{Header: r.Header}).BasicAuth()
		if !ok || u != user || pw != password {
			t.Errorf("target got basic auth %q/%q (%v), want %q/%q (the password kept though never returned)", u, pw, ok, user, password)
		}
	})

	t.Run("Patch", func(t *testing.T) {
		patch := scheduler.JobDefinition{Properties: &scheduler.JobProperties{State: scheduler.JobStateDisabled}}
		got, err := jobs.Patch(ctx, rg, jc, name, patch)
		if err != nil {
			t.Fatalf("Patch: %v", err)
		}
		if got.StatusCode != http.StatusOK {
			t.Errorf("status %d, want 200", got.StatusCode)
		}
		// PATCH merges: everything else is as before.
		checkJob(t, got, scheduler.JobStateDisabled)
		again, err := jobs.Get(ctx, rg, jc, name)
		if err != nil {
			t.Fatalf("Get after Patch: %v", err)
		}
		checkJob(t, again, scheduler.JobStateDisabled)
	})

	t.Run("Delete", func(t *testing.T) {
		res, err := jobs.Delete(ctx, rg, jc, name)
		if err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if res.StatusCode != http.StatusOK {
			t.Errorf("Delete: status %d, want 200", res.StatusCode)
		}
		_, err = jobs.Get(ctx, rg, jc, name)
		ae := wantAPIError(t, err, http.StatusNotFound)
		if ae.Code != "ResourceNotFound" {
			t.Errorf("Get after Delete: code %q, want ResourceNotFound", ae.Code)
		}
	})
}

// ---------------------------------------------------------------------------
// Paging and the state filter

func TestJobListPaging(t *testing.T) {
	ctx := testContext(t, 60*time.Second)
	jobs := jobsClient()
	const rg, jc, total = "compat-rg", "compat-paging", 105
	createCollection(t, ctx, rg, jc, scheduler.P20Premium)

	start := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Second)
	want := make([]string, total)
	for i := range want {
		want[i] = fmt.Sprintf("job-%03d", i)
	}
	created := t.Run("create 105 jobs", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, total)
		work := make(chan string)
		for range 8 {
			wg.Go(func() {
				for n := range work {
					def := simpleJob(target.URL+"/paging/"+n, start, every(scheduler.Day, 1))
					if _, err := jobs.CreateOrUpdate(ctx, rg, jc, n, def); err != nil {
						errs <- fmt.Errorf("%s: %w", n, err)
					}
				}
			})
		}
		for _, n := range want {
			work <- n
		}
		close(work)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	if !created {
		t.Fatal("cannot go on without the jobs")
	}

	t.Run("List top 100 pages", func(t *testing.T) {
		page, err := jobs.List(ctx, rg, jc, to.Int32Ptr(100), nil, "")
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		seen := map[string]bool{}
		var sizes []int
		for page.NotDone() {
			vals := page.Values()
			sizes = append(sizes, len(vals))
			for _, j := range vals {
				n := str(j.Name)
				if seen[n] {
					t.Errorf("%s listed twice", n)
				}
				seen[n] = true
				if str(j.Type) != jobType || j.Properties == nil || j.Properties.Action == nil {
					t.Errorf("%s listed as type %q properties %v", n, str(j.Type), j.Properties)
				}
			}
			if len(sizes) == 1 && (page.Response().NextLink == nil || *page.Response().NextLink == "") {
				t.Error("first page of 100 has no nextLink")
			}
			if err := page.NextWithContext(ctx); err != nil {
				t.Fatalf("page %d: %v", len(sizes)+1, err)
			}
			if len(sizes) > 10 {
				t.Fatal("more than 10 pages: is nextLink followed in a loop?")
			}
		}
		if !slices.Equal(sizes, []int{100, 5}) {
			t.Errorf("page sizes %v, want [100 5]", sizes)
		}
		if len(seen) != total {
			t.Errorf("%d distinct jobs listed, want %d", len(seen), total)
		}
		for _, n := range want {
			if !seen[jc+"/"+n] {
				t.Errorf("%s/%s not listed", jc, n)
			}
		}
	})

	t.Run("List top and skip", func(t *testing.T) {
		page, err := jobs.List(ctx, rg, jc, to.Int32Ptr(10), to.Int32Ptr(100), "")
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if n := len(page.Values()); n != 5 {
			t.Errorf("$top=10 $skip=100 of 105: %d jobs, want 5", n)
		}
	})

	t.Run("List filter state", func(t *testing.T) {
		var disabled []string
		for i := 0; i < total; i += 15 {
			n := want[i]
			patch := scheduler.JobDefinition{Properties: &scheduler.JobProperties{State: scheduler.JobStateDisabled}}
			if _, err := jobs.Patch(ctx, rg, jc, n, patch); err != nil {
				t.Fatalf("Patch %s: %v", n, err)
			}
			disabled = append(disabled, jc+"/"+n)
		}
		got := listJobNames(t, ctx, rg, jc, nil, "state eq Disabled")
		sort.Strings(got)
		if !slices.Equal(got, disabled) {
			t.Errorf("state eq Disabled: %v, want %v", got, disabled)
		}
		enabled := listJobNames(t, ctx, rg, jc, to.Int32Ptr(50), "state eq Enabled")
		if len(enabled) != total-len(disabled) {
			t.Errorf("state eq Enabled: %d jobs, want %d", len(enabled), total-len(disabled))
		}
		for _, n := range enabled {
			if slices.Contains(disabled, n) {
				t.Errorf("state eq Enabled lists the disabled %s", n)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// History: jobs that fail and succeed, run on demand

func TestJobHistory(t *testing.T) {
	ctx := testContext(t, 75*time.Second)
	jobs := jobsClient()
	const rg, jc = "compat-rg", "compat-history"
	createCollection(t, ctx, rg, jc, scheduler.Standard)

	// Hourly from an hour from now: only Run makes them execute now.
	start := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	paths := map[string]string{"fails": "/fail/history", "succeeds": "/ok/history"}
	for name, path := range paths {
		if _, err := jobs.CreateOrUpdate(ctx, rg, jc, name, simpleJob(target.URL+path, start, every(scheduler.Hour, 1))); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}

	history := func(name, filter string) ([]scheduler.JobHistoryDefinition, error) {
		page, err := jobs.ListJobHistory(ctx, rg, jc, name, nil, nil, filter)
		if err != nil {
			return nil, err
		}
		var out []scheduler.JobHistoryDefinition
		for page.NotDone() {
			out = append(out, page.Values()...)
			if err := page.NextWithContext(ctx); err != nil {
				return nil, err
			}
		}
		return out, nil
	}

	// Two runs each, one after the other, so that "newest first" can be seen.
	ran := t.Run("Run twice", func(t *testing.T) {
		for round := 1; round <= 2; round++ {
			for name := range paths {
				res, err := jobs.Run(ctx, rg, jc, name)
				if err != nil {
					t.Fatalf("Run %s (round %d): %v", name, round, err)
				}
				if res.StatusCode != http.StatusOK {
					t.Errorf("Run %s: status %d, want 200", name, res.StatusCode)
				}
			}
			for name, path := range paths {
				var last error
				var n int
				ok := poll(30*time.Second, 200*time.Millisecond, func() bool {
					var h []scheduler.JobHistoryDefinition
					h, last = history(name, "")
					n = len(h)
					return last == nil && n >= round && len(target.requests(path)) >= round
				})
				if !ok {
					t.Fatalf("%s: after Run round %d, %d history entries and %d target requests within 30 s (last error: %v)",
						name, round, n, len(target.requests(path)), last)
				}
			}
		}
	})
	if !ran {
		t.Fatal("cannot check history without runs")
	}

	checkEntries := func(t *testing.T, name, filter string, want scheduler.JobExecutionStatus, min int) {
		t.Helper()
		h, err := history(name, filter)
		if err != nil {
			t.Fatalf("ListJobHistory(%s, %q): %v", name, filter, err)
		}
		if len(h) < min {
			t.Fatalf("ListJobHistory(%s, %q): %d entries, want at least %d", name, filter, len(h), min)
		}
		var prev time.Time
		for i, e := range h {
			if str(e.Type) != historyType {
				t.Errorf("entry %d: type %q, want %q", i, str(e.Type), historyType)
			}
			if !strings.HasPrefix(str(e.ID), jobID(rg, jc, name)+"/history/") {
				t.Errorf("entry %d: id %q, want under %s/history/", i, str(e.ID), jobID(rg, jc, name))
			}
			p := e.Properties
			if p == nil {
				t.Errorf("entry %d: no properties", i)
				continue
			}
			if !strings.EqualFold(string(p.Status), string(want)) {
				t.Errorf("entry %d: status %q, want %q (filter %q)", i, p.Status, want, filter)
			}
			if !strings.EqualFold(string(p.ActionName), string(scheduler.MainAction)) {
				t.Errorf("entry %d: actionName %q, want MainAction", i, p.ActionName)
			}
			if p.StartTime == nil || p.EndTime == nil {
				t.Errorf("entry %d: startTime %v endTime %v, want both", i, p.StartTime, p.EndTime)
				continue
			}
			if i > 0 && p.StartTime.Time.After(prev) {
				t.Errorf("entry %d starts at %v, after entry %d (%v): want newest first", i, p.StartTime.Time, i-1, prev)
			}
			prev = p.StartTime.Time
			if want == scheduler.Failed {
				m := strings.ToLower(str(p.Message))
				if !strings.Contains(m, "500") && !strings.Contains(m, "internal") {
					t.Errorf("entry %d: message %q does not tell the target answered 500", i, str(p.Message))
				}
			}
		}
	}

	t.Run("failing job: filter status eq Failed", func(t *testing.T) {
		checkEntries(t, "fails", "status eq Failed", scheduler.Failed, 2)
	})
	t.Run("failing job: no filter", func(t *testing.T) {
		checkEntries(t, "fails", "", scheduler.Failed, 2)
	})
	t.Run("succeeding job: no filter", func(t *testing.T) {
		checkEntries(t, "succeeds", "", scheduler.Completed, 2)
	})
	t.Run("succeeding job: filter status eq Completed", func(t *testing.T) {
		checkEntries(t, "succeeds", "status eq Completed", scheduler.Completed, 2)
	})
	t.Run("succeeding job: filter status eq Failed is empty", func(t *testing.T) {
		h, err := history("succeeds", "status eq Failed")
		if err != nil {
			t.Fatalf("ListJobHistory: %v", err)
		}
		if len(h) != 0 {
			t.Errorf("%d Failed entries for a job whose target answers 200", len(h))
		}
	})
	t.Run("top 1", func(t *testing.T) {
		page, err := jobs.ListJobHistory(ctx, rg, jc, "fails", to.Int32Ptr(1), nil, "")
		if err != nil {
			t.Fatalf("ListJobHistory top 1: %v", err)
		}
		if n := len(page.Values()); n != 1 {
			t.Errorf("$top=1: %d entries, want 1", n)
		}
		if page.Response().NextLink == nil || *page.Response().NextLink == "" {
			t.Error("$top=1 of 2+ entries: no nextLink")
		}
	})
	t.Run("job status counters", func(t *testing.T) {
		for name, wantFailures := range map[string]bool{"fails": true, "succeeds": false} {
			var st *scheduler.JobStatus
			var last error
			ok := poll(10*time.Second, 200*time.Millisecond, func() bool {
				var j scheduler.JobDefinition
				j, last = jobs.Get(ctx, rg, jc, name)
				if last != nil || j.Properties == nil || j.Properties.Status == nil {
					return false
				}
				st = j.Properties.Status
				f := st.FailureCount != nil && *st.FailureCount > 0
				return st.ExecutionCount != nil && *st.ExecutionCount >= 2 && f == wantFailures && st.LastExecutionTime != nil
			})
			if !ok {
				if st == nil {
					t.Errorf("%s: no status (last error %v)", name, last)
					continue
				}
				t.Errorf("%s: status executionCount %s failureCount %s lastExecutionTime %v; want executionCount >= 2, failures %v",
					name, i32(st.ExecutionCount), i32(st.FailureCount), st.LastExecutionTime, wantFailures)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Errors: status codes and bodies the SDK understands

func TestErrors(t *testing.T) {
	ctx := testContext(t, 60*time.Second)
	jobs := jobsClient()
	cc := collectionsClient()
	const rg = "compat-rg"
	const jc = "compat-errors"
	createCollection(t, ctx, rg, jc, scheduler.Standard)
	start := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Second)

	t.Run("400 weekDays with frequency Day", func(t *testing.T) {
		rec := every(scheduler.Day, 1)
		rec.Schedule = &scheduler.JobRecurrenceSchedule{WeekDays: &[]scheduler.DayOfWeek{scheduler.Monday}}
		_, err := jobs.CreateOrUpdate(ctx, rg, jc, "bad-schedule", simpleJob(target.URL+"/never", start, rec))
		ae := wantAPIError(t, err, http.StatusBadRequest)
		if ae.Code != "BadRequest" {
			t.Errorf("code %q, want BadRequest", ae.Code)
		}
		if !strings.Contains(ae.Message, "weekDays") {
			t.Errorf("message %q does not name weekDays", ae.Message)
		}
		_, err = jobs.Get(ctx, rg, jc, "bad-schedule")
		wantAPIError(t, err, http.StatusNotFound)
	})

	t.Run("400 interval over the maximum", func(t *testing.T) {
		_, err := jobs.CreateOrUpdate(ctx, rg, jc, "bad-interval", simpleJob(target.URL+"/never", start, every(scheduler.Minute, 2000)))
		ae := wantAPIError(t, err, http.StatusBadRequest)
		if ae.Code != "BadRequest" || !strings.Contains(ae.Message, "interval") {
			t.Errorf("code %q message %q, want BadRequest naming interval", ae.Code, ae.Message)
		}
	})

	t.Run("404 unknown job", func(t *testing.T) {
		_, err := jobs.Get(ctx, rg, jc, "no-such-job")
		ae := wantAPIError(t, err, http.StatusNotFound)
		if ae.Code != "ResourceNotFound" {
			t.Errorf("code %q, want ResourceNotFound", ae.Code)
		}
		_, err = jobs.Delete(ctx, rg, jc, "no-such-job")
		wantAPIError(t, err, http.StatusNotFound)
		_, err = jobs.Run(ctx, rg, jc, "no-such-job")
		wantAPIError(t, err, http.StatusNotFound)
	})

	t.Run("404 unknown collection", func(t *testing.T) {
		_, err := cc.Get(ctx, rg, "no-such-collection")
		ae := wantAPIError(t, err, http.StatusNotFound)
		if ae.Code != "ResourceNotFound" {
			t.Errorf("code %q, want ResourceNotFound", ae.Code)
		}
		_, err = jobs.Get(ctx, rg, "no-such-collection", "job")
		wantAPIError(t, err, http.StatusNotFound)
		_, err = jobs.CreateOrUpdate(ctx, rg, "no-such-collection", "job", simpleJob(target.URL+"/never", start, nil))
		wantAPIError(t, err, http.StatusNotFound)
		_, err = jobs.List(ctx, rg, "no-such-collection", nil, nil, "")
		wantAPIError(t, err, http.StatusNotFound)
	})

	t.Run("401 bad token", func(t *testing.T) {
		bad := collectionsClient()
		configure(&bad.Client, "not-a-valid-token")
		_, err := bad.Get(ctx, rg, jc)
		wantAPIError(t, err, http.StatusUnauthorized)
	})

	t.Run("409 over the Free job quota", func(t *testing.T) {
		const free = "compat-free"
		createCollection(t, ctx, rg, free, scheduler.Free)
		for i := 1; i <= 5; i++ {
			n := fmt.Sprintf("job-%d", i)
			if _, err := jobs.CreateOrUpdate(ctx, rg, free, n, simpleJob(target.URL+"/never", start, every(scheduler.Hour, 1))); err != nil {
				t.Fatalf("job %d of 5 in a Free collection: %v", i, err)
			}
		}
		_, err := jobs.CreateOrUpdate(ctx, rg, free, "job-6", simpleJob(target.URL+"/never", start, every(scheduler.Hour, 1)))
		ae := wantAPIError(t, err, http.StatusConflict)
		if ae.Code != "Conflict" {
			t.Errorf("code %q, want Conflict", ae.Code)
		}
		if m := strings.ToLower(ae.Message); !strings.Contains(m, "maxjobcount") && !strings.Contains(m, "quota") {
			t.Errorf("message %q does not name the quota", ae.Message)
		}
		if got := listJobNames(t, ctx, rg, free, nil, ""); len(got) != 5 {
			t.Errorf("%d jobs after the refused 6th, want 5: %v", len(got), got)
		}
		// Replacing one of the five is not a new job: allowed.
		res, err := jobs.CreateOrUpdate(ctx, rg, free, "job-1", simpleJob(target.URL+"/never", start, every(scheduler.Hour, 2)))
		if err != nil {
			t.Errorf("replacing a job in a full Free collection: %v", err)
		} else if res.StatusCode != http.StatusOK {
			t.Errorf("replacing a job: status %d, want 200", res.StatusCode)
		}
	})

	t.Run("409 recurrence more frequent than Free allows", func(t *testing.T) {
		const free = "compat-free-minute"
		createCollection(t, ctx, rg, free, scheduler.Free)
		_, err := jobs.CreateOrUpdate(ctx, rg, free, "every-minute", simpleJob(target.URL+"/never", start, every(scheduler.Minute, 1)))
		ae := wantAPIError(t, err, http.StatusConflict)
		if m := strings.ToLower(ae.Message); !strings.Contains(m, "recurrence") && !strings.Contains(m, "quota") {
			t.Errorf("message %q does not name the recurrence quota", ae.Message)
		}
		// Hourly is what Free allows.
		res, err := jobs.CreateOrUpdate(ctx, rg, free, "hourly", simpleJob(target.URL+"/never", start, every(scheduler.Hour, 1)))
		if err != nil {
			t.Fatalf("an hourly job in a Free collection: %v", err)
		}
		if res.StatusCode != http.StatusCreated {
			t.Errorf("hourly job: status %d, want 201", res.StatusCode)
		}
	})

	t.Run("Free collection refuses outbound authentication", func(t *testing.T) {
		const free = "compat-free-minute" // created by the subtest above, or here
		createCollection(t, ctx, rg, free, scheduler.Free)
		def := simpleJob(target.URL+"/never", start, every(scheduler.Hour, 1))
		def.Properties.Action.Request.Authentication = scheduler.BasicAuthentication{Username: to.StringPtr("u"), Password: to.StringPtr("p")}
		_, err := jobs.CreateOrUpdate(ctx, rg, free, "with-auth", def)
		if err == nil {
			t.Fatal("a job with basic authentication was accepted in a Free collection")
		}
		ae, ok := asAPIError(err)
		if !ok || (ae.Status != http.StatusBadRequest && ae.Status != http.StatusConflict) {
			t.Errorf("got %v, want 400 or 409", err)
		}
	})
}
