package azuresdk

import (
	"context"
	"sort"
	"strings"
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
