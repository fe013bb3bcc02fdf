package azuresdk

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest/to"
)

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
