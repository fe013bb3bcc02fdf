package azuresdk

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest/to"
)

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
