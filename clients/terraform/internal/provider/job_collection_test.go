package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

func collectionConfig(name, location, sku, state, quota string) string {
	return fmt.Sprintf(`
resource "sked_job_collection" "c" {
  name                = %q
  resource_group_name = "tf-rg"
  location            = %q
  sku                 = %q
  state               = %q
  tags = {
    team = "platform"
  }
  %s
}
`, name, location, sku, state, quota)
}

// TestJobCollectionLifecycle: create, an empty plan, an in-place update
// (also of the name's case and the location's spelling, which azurerm and
// Sked take as the same), import by ARM id, destroy.
func TestJobCollectionLifecycle(t *testing.T) {
	name := uniq(t, "jc")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy:             checkGone(t, "sked_job_collection", false),
		Steps: []resource.TestStep{
			{
				Config: collectionConfig(name, "West Europe", "standard", "enabled", ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_job_collection.c", "id",
						"/subscriptions/default/resourceGroups/tf-rg/providers/Microsoft.Scheduler/jobCollections/"+name),
					resource.TestCheckResourceAttr("sked_job_collection.c", "sku", "standard"),
					resource.TestCheckResourceAttr("sked_job_collection.c", "state", "enabled"),
					resource.TestCheckResourceAttr("sked_job_collection.c", "tags.team", "platform"),
					resource.TestCheckResourceAttr("sked_job_collection.c", "quota.#", "0"),
					checkAPI(t, "sked_job_collection.c", false, func(c armCollection) error {
						if c.Properties.Sku.Name != "Standard" || c.Properties.State != "Enabled" || c.Tags["team"] != "platform" {
							return fmt.Errorf("Sked has %+v", c)
						}
						return nil
					}),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: collectionConfig(strings.ToUpper(name), "westeurope", "Free", "Disabled", `
  quota {
    max_job_count            = 3
    max_recurrence_interval  = 2
    max_recurrence_frequency = "hour"
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sked_job_collection.c", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_job_collection.c", "sku", "Free"),
					resource.TestCheckResourceAttr("sked_job_collection.c", "quota.0.max_job_count", "3"),
					resource.TestCheckResourceAttr("sked_job_collection.c", "quota.0.max_recurrence_frequency", "hour"),
					checkAPI(t, "sked_job_collection.c", false, func(c armCollection) error {
						q := c.Properties.Quota
						if c.Properties.Sku.Name != "Free" || c.Properties.State != "Disabled" || q == nil || *q.MaxJobCount != 3 ||
							q.MaxRecurrence == nil || *q.MaxRecurrence.Interval != 2 {
							return fmt.Errorf("Sked has %+v", c)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:      "sked_job_collection.c",
				ImportState:       true,
				ImportStateVerify: true,
				// Sked answers the canonical spelling (and the id the name
				// it was created with); the configuration's is kept only
				// while it is in state.
				ImportStateVerifyIgnore: []string{"sku", "state", "name", "timeouts"},
			},
		},
	})
}
