package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// monitorConfig is a calendar, a heartbeat monitor whose schedule skips
// the calendar's days and a target limit, all in the provider's workspace
// (none names one). The host is written in a spelling Sked normalises.
func monitorConfig(cal, mon, host, grace, desc string, paused bool, limits string) string {
	return fmt.Sprintf(`
resource "sked_calendar" "h" {
  workspace = "default"
  name      = %[1]q
  entries   = jsonencode([{ yearly = "12-25" }])
}

resource "sked_monitor" "m" {
  name         = %[2]q
  grace        = %[4]q
  description  = %[5]q
  max_duration = "PT1H"
  paused       = %[6]t
  schedule {
    frequency = "day"
    time_zone = "Europe/Berlin"
    hours     = [2]
    minutes   = [30]
    calendars {
      exclude     = [sked_calendar.h.name]
      on_excluded = "nextDay"
    }
  }
}

resource "sked_target_limit" "t" {
  host = %[3]q
  %[7]s
}
`, cal, mon, host, grace, desc, paused, limits)
}

// TestMonitorAndTargetLimit: a monitor and a target limit in the
// provider's workspace: create, an empty plan, an in-place update of
// each, import of each by workspace/key, Sked's refusals on the
// attributes they concern, destroy.
func TestMonitorAndTargetLimit(t *testing.T) {
	cal, mon := uniq(t, "hol"), uniq(t, "backup")
	host := strings.ToLower(uniq(t, "api")) + ".Example.com:443"
	normalized := strings.ToLower(strings.TrimSuffix(host, ":443"))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			var out any
			if err := getV1(t, &out, "workspaces", "default", "monitors", mon); !isNotFound(err) {
				return fmt.Errorf("monitor %s after destroy: %v", mon, err)
			}
			if err := getV1(t, &out, "workspaces", "default", "targets", normalized); !isNotFound(err) {
				return fmt.Errorf("target limit %s after destroy: %v", normalized, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: monitorConfig(cal, mon, host, "PT10M", "pg_dump on db1", false, "max_concurrent = 4"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_monitor.m", "id", "default/"+mon),
					resource.TestCheckResourceAttr("sked_monitor.m", "workspace", "default"),
					resource.TestMatchResourceAttr("sked_monitor.m", "ping_url", regexp.MustCompile(`/ping/hb_[A-Za-z0-9_-]+$`)),
					resource.TestCheckResourceAttr("sked_monitor.m", "status", "new"),
					resource.TestCheckResourceAttr("sked_monitor.m", "schedule.0.frequency", "day"),
					resource.TestCheckResourceAttr("sked_target_limit.t", "host", host),
					resource.TestCheckResourceAttr("sked_target_limit.t", "id", "default/"+host),
					func(*terraform.State) error {
						var m struct {
							Grace    string `json:"grace"`
							Deadline struct {
								MaxDuration string `json:"maxDuration"`
							} `json:"deadline"`
							Schedule struct {
								TimeZone  string `json:"timeZone"`
								Calendars struct {
									Exclude    []string `json:"exclude"`
									OnExcluded string   `json:"onExcluded"`
								} `json:"calendars"`
							} `json:"schedule"`
						}
						if err := getV1(t, &m, "workspaces", "default", "monitors", mon); err != nil {
							return err
						}
						if m.Grace != "PT10M" || m.Deadline.MaxDuration != "PT1H" || m.Schedule.TimeZone != "Europe/Berlin" ||
							len(m.Schedule.Calendars.Exclude) != 1 || m.Schedule.Calendars.OnExcluded != "nextDay" {
							return fmt.Errorf("monitor: %+v", m)
						}
						var tl struct {
							Host          string `json:"host"`
							MaxConcurrent *int   `json:"maxConcurrent"`
							MaxPerSecond  *int   `json:"maxPerSecond"`
						}
						if err := getV1(t, &tl, "workspaces", "default", "targets", normalized); err != nil {
							return err
						}
						if tl.Host != normalized || tl.MaxConcurrent == nil || *tl.MaxConcurrent != 4 || tl.MaxPerSecond != nil {
							return fmt.Errorf("target limit: %+v", tl)
						}
						return nil
					},
				),
			},
			{
				Config: monitorConfig(cal, mon, host, "PT15M", "pg_dump on db2", true, "max_concurrent = 2\n  max_per_second = 20"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sked_monitor.m", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sked_target_limit.t", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_monitor.m", "status", "paused"),
					resource.TestCheckResourceAttr("sked_target_limit.t", "max_per_second", "20"),
					func(*terraform.State) error {
						var m struct {
							Grace       string `json:"grace"`
							Description string `json:"description"`
							Paused      bool   `json:"paused"`
						}
						if err := getV1(t, &m, "workspaces", "default", "monitors", mon); err != nil {
							return err
						}
						if m.Grace != "PT15M" || m.Description != "pg_dump on db2" || !m.Paused {
							return fmt.Errorf("monitor: %+v", m)
						}
						return nil
					},
				),
			},
			{ResourceName: "sked_monitor.m", ImportState: true, ImportStateVerify: true},
			{ResourceName: "sked_target_limit.t", ImportState: true, ImportStateVerify: true},
			{
				// Terraform prints an attribute's diagnostic under the
				// attribute's line of the configuration.
				Config:      monitorConfig(cal, mon, host, "P2D", "pg_dump on db2", true, "max_concurrent = 2\n  max_per_second = 20"),
				ExpectError: regexp.MustCompile(`(?s)grace\s+= "P2D"\s+Sked refused the value: grace: .*P2D.*outside PT0S to P1D`),
			},
			{
				Config:      monitorConfig(cal, mon, host, "PT15M", "pg_dump on db2", true, "max_concurrent = 0\n  max_per_second = 20"),
				ExpectError: regexp.MustCompile(`(?s)max_concurrent = 0\s+Sked refused the value: `),
			},
		},
	})
}

// TestSameTargetHost: Sked's spelling of a host is the same host as the
// configuration's when only case and a default port differ.
func TestSameTargetHost(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"API.Example.com:443", "api.example.com", true},
		{"api.example.com:80", "api.example.com", true},
		{"api.example.com:8080", "api.example.com:8080", true},
		{"api.example.com:8080", "api.example.com", false},
		{"api.example.com", "web.example.com", false},
	} {
		if got := sameTargetHost(c.a, c.b); got != c.same {
			t.Errorf("sameTargetHost(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
