package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// TestMaxRecurrenceInSeconds: a job of frequency second is held to the
// collection's maxRecurrence exactly, in seconds: the SKU default (one
// minute) refuses a job every 10 seconds and takes one every 60 seconds; a
// quota of every 10 seconds (stored with the collection) takes the first
// and refuses one every 5; a Free collection may not set it.
func TestMaxRecurrenceInSeconds(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	job := func(rec string) *jobdef.Job {
		j, err := jobdef.Parse([]byte(`{"action":{"type":"http","request":{"method":"GET","uri":"https://example.com/"}},"recurrence":` + rec + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	every10 := `{"frequency":"second","interval":10}`
	_, err := e.cat.CreateJob(e.ctx, catalog.System("test"), coll, "fast", []byte(`{"action":{"type":"http","request":{"method":"GET","uri":"https://example.com/"}},"recurrence":`+every10+`}`))
	var qe *models.QuotaError
	if !errors.As(err, &qe) || qe.Quota != "maxRecurrence" || !strings.Contains(qe.Message, "every 10 seconds") || !strings.Contains(qe.Message, "every 1 minute at most") {
		t.Fatalf("every 10 s in a default collection: %v", err)
	}
	if _, err := e.cat.Prepare(&coll.JobCollection, "minutely", job(`{"frequency":"second","interval":60}`), nil); err != nil {
		t.Fatalf("every 60 s in a default collection: %v", err)
	}
	// The collection's quota in seconds, stored through the write
	// service; a Free collection may not go below its hour.
	quota := `{"properties":{"sku":{"name":"Standard"},"quota":{"maxRecurrence":` + every10 + `}}}`
	fastColl, _, err := e.cat.PutCollection(e.ctx, catalog.System("test"), ref("rg", "fast"), []byte(quota))
	if err != nil {
		t.Fatalf("a collection with a quota of every 10 s: %v", err)
	}
	fast := fastColl.JobCollection
	if q := fast.Quota().MaxRecurrence; q.String() != "10 seconds" {
		t.Fatalf("quota %v", q)
	}
	if _, err := e.cat.CreateJob(e.ctx, catalog.System("test"), fastColl, "fast", []byte(`{"action":{"type":"http","request":{"method":"GET","uri":"https://example.com/"}},"recurrence":`+every10+`}`)); err != nil {
		t.Fatalf("every 10 s under a quota of 10 s: %v", err)
	}
	free := `{"properties":{"sku":{"name":"Free"},"quota":{"maxRecurrence":` + every10 + `}}}`
	_, _, err = e.cat.PutCollection(e.ctx, catalog.System("test"), ref("rg", "free"), []byte(free))
	if pl := problem.As(err); pl == nil || !strings.Contains(pl.Error(), "properties.quota.maxRecurrence") || !strings.Contains(pl.Error(), "sku Free allows (at most every 1 hour)") {
		t.Fatalf("a Free collection with a quota of every 10 s: %v", err)
	}
	_, err = e.cat.Prepare(&fast, "faster", job(`{"frequency":"second","interval":5}`), nil)
	if !errors.As(err, &qe) || !strings.Contains(qe.Message, "every 5 seconds") {
		t.Fatalf("every 5 s under a quota of 10 s: %v", err)
	}
	// A schedule counts by its shortest gap: every second during minute 0
	// of each hour is every second.
	_, err = e.cat.Prepare(&fast, "burst", job(`{"frequency":"second","schedule":{"minutes":[0]}}`), nil)
	if !errors.As(err, &qe) || !strings.Contains(qe.Message, "every 1 second,") {
		t.Fatalf("a burst every second under a quota of 10 s: %v", err)
	}
}
