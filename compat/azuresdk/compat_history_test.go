package azuresdk

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest/to"
)

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
