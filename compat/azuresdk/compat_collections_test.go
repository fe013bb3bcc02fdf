package azuresdk

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest/to"
)

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
