package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// getV1 reads an /api/v1 object of the test server.
func getV1(t *testing.T, out any, segments ...string) error {
	t.Helper()
	return testClient(t).do(context.Background(), "GET", v1Path(segments...), nil, nil, out)
}

func workspaceConfig(ws, display, role, calDesc, entries, channelURL, events, minInterval string) string {
	return fmt.Sprintf(`
resource "sked_workspace" "w" {
  name         = %[1]q
  display_name = %[2]q
}

resource "sked_workspace_member" "bob" {
  workspace = sked_workspace.w.name
  username  = "bob"
  role      = %[3]q
}

resource "sked_calendar" "holidays" {
  workspace   = sked_workspace.w.name
  name        = "holidays"
  time_zone   = "Europe/Berlin"
  description = %[4]q
  entries     = %[5]s
}

resource "sked_channel" "ops" {
  workspace   = sked_workspace.w.name
  name        = "ops"
  type        = "webhook"
  description = "on-call hook"
  url         = %[6]q
}

resource "sked_channel" "mail" {
  workspace = sked_workspace.w.name
  name      = "mail"
  type      = "email"
  host      = "smtp.example.com"
  port      = 587
  security  = "starttls"
  user      = "sked"
  password  = "smtp-password"
  from      = "sked@example.com"
  to        = ["ops@example.com"]
}

resource "sked_alert_rule" "failures" {
  workspace = sked_workspace.w.name
  name      = "failures"
  channel   = sked_channel.ops.name
  events    = %[7]s
  threshold = 3
  min_interval = %[8]q
  scope {
    resource_group = "nightly"
  }
}
`, ws, display, role, calDesc, entries, channelURL, events, minInterval)
}

// TestWorkspaceResources: a workspace with a member, a calendar, two
// channels and an alert rule: create, an empty plan, an in-place update of
// each, import of each by workspace/name, destroy.
func TestWorkspaceResources(t *testing.T) {
	ws := "tf-workspace"
	if _, err := runCLIForTest("user", "bob"); err != nil {
		t.Fatal(err)
	}
	entries1 := `jsonencode([{ date = "2026-12-25", label = "Christmas" }, { yearly = "01-01" }])`
	entries2 := `jsonencode([{ date = "2026-12-25", label = "Christmas" }, { date = "2026-12-26" }, { yearly = "01-01", label = "New Year" }])`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			var out any
			if err := getV1(t, &out, "workspaces", ws); err == nil || !(isNotFound(err) || isForbidden(err)) {
				return fmt.Errorf("workspace %s after destroy: %v", ws, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: workspaceConfig(ws, "Terraform team", "reader", "public holidays", entries1,
					"https://hooks.example.com/one", `["attemptFailed", "consecutiveFailures"]`, "PT15M"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_workspace_member.bob", "id", ws+"/bob"),
					resource.TestMatchResourceAttr("sked_channel.ops", "secret", regexp.MustCompile(`^whsec_`)),
					resource.TestCheckNoResourceAttr("sked_channel.mail", "secret"),
					func(*terraform.State) error {
						var cal struct {
							TimeZone string            `json:"timeZone"`
							Entries  []json.RawMessage `json:"entries"`
						}
						if err := getV1(t, &cal, "workspaces", ws, "calendars", "holidays"); err != nil {
							return err
						}
						if cal.TimeZone != "Europe/Berlin" || len(cal.Entries) != 2 {
							return fmt.Errorf("calendar: %+v", cal)
						}
						var rule struct {
							Channel string   `json:"channel"`
							Events  []string `json:"events"`
						}
						if err := getV1(t, &rule, "workspaces", ws, "alerts", "failures"); err != nil {
							return err
						}
						if rule.Channel != "ops" || len(rule.Events) != 2 {
							return fmt.Errorf("alert rule: %+v", rule)
						}
						return nil
					},
				),
			},
			{
				Config: workspaceConfig(ws, "Terraform team (renamed)", "operator", "holidays and bridge days", entries2,
					"https://hooks.example.com/two", `["consecutiveFailures"]`, "PT1H"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sked_workspace.w", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sked_workspace_member.bob", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sked_calendar.holidays", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sked_channel.ops", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sked_alert_rule.failures", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr("sked_channel.ops", "secret", regexp.MustCompile(`^whsec_`)),
					func(*terraform.State) error {
						var members struct {
							Value []apiMember `json:"value"`
						}
						if err := getV1(t, &members, "workspaces", ws, "members"); err != nil {
							return err
						}
						for _, m := range members.Value {
							if m.Username == "bob" && m.Role == "operator" {
								return nil
							}
						}
						return fmt.Errorf("members: %+v", members.Value)
					},
				),
			},
			{ResourceName: "sked_workspace.w", ImportState: true, ImportStateVerify: true},
			{ResourceName: "sked_workspace_member.bob", ImportState: true, ImportStateVerify: true},
			{ResourceName: "sked_calendar.holidays", ImportState: true, ImportStateVerify: true,
				// Sked's key order is its own; the value is the same.
				ImportStateVerifyIgnore: []string{"entries"}},
			{ResourceName: "sked_channel.ops", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"secret"}},
			{ResourceName: "sked_channel.mail", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"password"}},
			{ResourceName: "sked_alert_rule.failures", ImportState: true, ImportStateVerify: true},
		},
	})
}
