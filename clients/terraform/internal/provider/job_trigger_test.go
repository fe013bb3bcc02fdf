package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// TestJobTriggerRoundTrip creates a job that runs after another with the
// trigger block: Sked stores it, the plan after the apply is empty, an
// import reads it back, and a trigger naming a job Sked lacks is an error
// on trigger.after.
func TestJobTriggerRoundTrip(t *testing.T) {
	jc := uniq(t, "jc")
	cfg := func(after string) string {
		return fmt.Sprintf(`
resource "sked_job_collection" "c" {
  name                = %q
  resource_group_name = "tf-jobs"
  location            = "westeurope"
  sku                 = "standard"
}

resource "sked_job" "up" {
  name                = "extract"
  resource_group_name = sked_job_collection.c.resource_group_name
  job_collection_name = sked_job_collection.c.name
  action_web {
    url = "https://example.com/extract"
  }
  recurrence {
    frequency = "Day"
    hours     = [2]
    minutes   = [0]
  }
}

resource "sked_job" "j" {
  name                = "report"
  resource_group_name = sked_job_collection.c.resource_group_name
  job_collection_name = sked_job_collection.c.name
  action_web {
    url = "https://example.com/report"
  }
  trigger {
    after  = [%s]
    on     = "Finished"
    within = "PT2H"
  }
}
`, jc, after)
	}
	good := cfg(`"tf-jobs/${sked_job_collection.c.name}/${sked_job.up.name}"`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy:             checkGone(t, "sked_job", true),
		Steps: []resource.TestStep{
			{
				Config:      cfg(`"tf-jobs/` + jc + `/nope"`),
				ExpectError: regexp.MustCompile(`trigger.after\[0\]: there is no job\s+tf-jobs/` + jc + `/nope`),
			},
			{
				Config: good,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_job.j", "trigger.0.after.0", "tf-jobs/"+jc+"/extract"),
					resource.TestCheckResourceAttr("sked_job.j", "trigger.0.on", "Finished"),
					checkAPI(t, "sked_job.j", true, func(j armJob) error {
						tr := j.Properties.Trigger
						if tr == nil || len(tr.After) != 1 || tr.After[0] != "tf-jobs/"+jc+"/extract" || tr.On != "finished" || tr.Within != "PT2H" ||
							j.Properties.Recurrence != nil {
							return fmt.Errorf("trigger %+v, recurrence %+v", tr, j.Properties.Recurrence)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:            "sked_job.j",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"action_web.0.method", "timeouts", "trigger.0.on"},
			},
		},
	})
}
