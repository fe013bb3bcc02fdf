package azuresdk

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest/date"
	"github.com/Azure/go-autorest/autorest/to"
)

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
