package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// jobConfig is a collection and one job whose body is given.
func jobConfig(collection, job, body string) string {
	return fmt.Sprintf(`
resource "sked_job_collection" "c" {
  name                = %q
  resource_group_name = "tf-jobs"
  location            = "westeurope"
  sku                 = "standard"
}

resource "sked_job" "j" {
  name                = %q
  resource_group_name = sked_job_collection.c.resource_group_name
  job_collection_name = sked_job_collection.c.name
%s
}
`, collection, job, body)
}

const jobV1 = `
  start_time = "2030-01-06T09:00:00+01:00"
  state      = "Enabled"

  action_web {
    url    = "https://hooks.example.com/nightly"
    method = "post"
    body   = "{\"run\": true}"
    headers = {
      Content-Type = "application/json"
    }
    authentication_basic {
      username = "login"
      password = "first-password"
    }
  }

  error_action_storage_queue {
    storage_account_name = "tfaccount"
    storage_queue_name   = "failures"
    sas_token            = "sv=2020&sig=secret"
    message              = "nightly failed"
  }

  retry {
    interval = "00:05:00"
    count    = 10
  }

  recurrence {
    frequency = "week"
    week_days = ["Sunday", "Wednesday"]
    hours     = [9, 17]
    minutes   = [0, 30]
    count     = 1000
    time_zone = "Europe/Berlin"
    window    = "PT5M"
  }

  misfire_policy = "runOnce"
  concurrency    = "forbid"
  timeout        = "PT30S"

  deadline {
    succeed_within = "PT120M"
    max_duration   = "PT20S"
  }
`

const jobV2 = `
  start_time = "2030-01-06T09:00:00+01:00"
  state      = "disabled"
  state_note = "waiting for the vendor"

  action_web {
    url    = "https://hooks.example.com/monthly"
    method = "PUT"
    authentication_basic {
      username = "login"
      password = "second-password"
    }
  }

  error_action_service_bus_queue {
    namespace      = "tf-namespace"
    queue_name     = "failures"
    message        = "monthly failed"
    sas_key_name   = "RootManageSharedAccessKey"
    sas_key        = "c2VjcmV0"
    transport_type = "amqp"
  }

  retry {
    type         = "exponential"
    interval     = "PT30S"
    count        = 8
    max_interval = "PT5M"
  }

  recurrence {
    frequency = "Month"
    end_time  = "2031-01-01T00:00:00Z"
    window    = "PT1H"
    monthly_occurrences {
      day        = "Sunday"
      occurrence = 1
    }
    monthly_occurrences {
      day        = "sunday"
      occurrence = -1
    }
  }
`

// TestJobLifecycle: create, an empty plan, an in-place update of almost
// every attribute, import by ARM id, destroy; Sked's stored job checked
// at each step.
func TestJobLifecycle(t *testing.T) {
	jc, job := uniq(t, "jc"), "nightly"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy:             checkGone(t, "sked_job", true),
		Steps: []resource.TestStep{
			{
				Config: jobConfig(jc, job, jobV1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_job.j", "id",
						"/subscriptions/default/resourceGroups/tf-jobs/providers/Microsoft.Scheduler/jobCollections/"+jc+"/jobs/"+job),
					resource.TestCheckResourceAttr("sked_job.j", "action_web.0.method", "post"),
					resource.TestCheckResourceAttr("sked_job.j", "action_web.0.authentication_basic.0.password", "first-password"),
					resource.TestCheckResourceAttr("sked_job.j", "recurrence.0.frequency", "week"),
					resource.TestCheckResourceAttr("sked_job.j", "recurrence.0.interval", "1"),
					resource.TestCheckResourceAttr("sked_job.j", "recurrence.0.window", "PT5M"),
					resource.TestCheckTypeSetElemAttr("sked_job.j", "recurrence.0.week_days.*", "Sunday"),
					resource.TestCheckResourceAttr("sked_job.j", "retry.0.type", "fixed"),
					resource.TestCheckResourceAttr("sked_job.j", "deadline.0.succeed_within", "PT120M"),
					resource.TestCheckResourceAttr("sked_job.j", "deadline.0.max_duration", "PT20S"),
					checkAPI(t, "sked_job.j", true, func(j armJob) error {
						p := j.Properties
						a := p.Action
						if a == nil || a.Type != "https" || a.Request == nil || a.Request.Method != "POST" ||
							a.Request.Authentication == nil || a.Request.Authentication.Type != "Basic" ||
							a.Request.Headers["Content-Type"] != "application/json" {
							return fmt.Errorf("action: %+v", a)
						}
						if a.RetryPolicy == nil || a.RetryPolicy.RetryInterval != "00:05:00" || *a.RetryPolicy.RetryCount != 10 {
							return fmt.Errorf("retry: %+v", a.RetryPolicy)
						}
						if a.ErrorAction == nil || a.ErrorAction.QueueMessage == nil || a.ErrorAction.QueueMessage.QueueName != "failures" {
							return fmt.Errorf("error action: %+v", a.ErrorAction)
						}
						r := p.Recurrence
						if r == nil || r.Frequency != "week" || r.TimeZone != "Europe/Berlin" || r.Count != 1000 ||
							fmt.Sprint(r.Schedule.WeekDays) != "[sunday wednesday]" || fmt.Sprint(r.Schedule.Hours) != "[9 17]" {
							return fmt.Errorf("recurrence: %+v %+v", r, r.Schedule)
						}
						if p.MisfirePolicy != "runOnce" || p.Concurrency != "forbid" || a.Timeout != "PT30S" || p.State != "enabled" {
							return fmt.Errorf("properties: %+v", p)
						}
						if p.Deadline == nil || *p.Deadline != (armDeadline{SucceedWithin: "PT2H", MaxDuration: "PT20S"}) {
							return fmt.Errorf("deadline: %+v", p.Deadline)
						}
						return nil
					}),
				),
			},
			{
				Config: jobConfig(jc, job, jobV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sked_job.j", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_job.j", "misfire_policy", "skip"),
					resource.TestCheckResourceAttr("sked_job.j", "concurrency", "allow"),
					resource.TestCheckNoResourceAttr("sked_job.j", "timeout"),
					resource.TestCheckResourceAttr("sked_job.j", "deadline.#", "0"),
					resource.TestCheckResourceAttr("sked_job.j", "error_action_storage_queue.#", "0"),
					resource.TestCheckResourceAttr("sked_job.j", "recurrence.0.monthly_occurrences.#", "2"),
					checkAPI(t, "sked_job.j", true, func(j armJob) error {
						p := j.Properties
						a := p.Action
						if a.Request.Method != "PUT" || a.Request.URI != "https://hooks.example.com/monthly" || a.Request.Body != "" {
							return fmt.Errorf("request: %+v", a.Request)
						}
						rp := a.RetryPolicy
						if rp.RetryType != "exponential" || rp.MaxRetryInterval != "PT5M" || *rp.RetryCount != 8 {
							return fmt.Errorf("retry: %+v", rp)
						}
						sb := a.ErrorAction.ServiceBusQueueMessage
						if sb == nil || sb.Namespace != "tf-namespace" || sb.TransportType != "AMQP" || sb.Authentication.SasKeyName != "RootManageSharedAccessKey" {
							return fmt.Errorf("error action: %+v", a.ErrorAction)
						}
						r := p.Recurrence
						if r.Frequency != "month" || len(r.Schedule.MonthlyOccurrences) != 2 || r.TimeZone != "" || r.EndTime == "" {
							return fmt.Errorf("recurrence: %+v", r)
						}
						if p.State != "disabled" || p.StateNote != "waiting for the vendor" || p.MisfirePolicy != "" || a.Timeout != "" || p.Deadline != nil {
							return fmt.Errorf("properties: %+v", p)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:      "sked_job.j",
				ImportState:       true,
				ImportStateVerify: true,
				// Secrets are never returned; enumerations come back in
				// Sked's spelling.
				ImportStateVerifyIgnore: []string{
					"action_web.0.authentication_basic.0.password",
					"error_action_service_bus_queue.0.sas_key",
					"error_action_service_bus_queue.0.transport_type",
					"recurrence.0.frequency", "recurrence.0.monthly_occurrences", "state", "action_web.0.method", "timeouts",
				},
			},
		},
	})
}

// TestJobBadRequestIsAttributeDiagnostic: a value only Sked refuses (a
// retry interval under 15 seconds, an unknown time zone) is an error on
// the attribute that holds it, and nothing is created.
func TestJobBadRequestIsAttributeDiagnostic(t *testing.T) {
	jc := uniq(t, "jc")
	body := `
  action_web {
    url = "https://example.com/"
  }
  retry {
    interval = "PT5S"
  }
  recurrence {
    frequency = "day"
    time_zone = "Mars/Olympus_Mons"
    window    = "PT2H"
  }
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy:             checkGone(t, "sked_job", true),
		Steps: []resource.TestStep{{
			// Caught before Sked would drop the note of an enabled job.
			Config: jobConfig(jc, "bad", `
  state_note = "why"
  action_web {
    url = "https://example.com/"
  }
`),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)state_note = "why".*Sked keeps a state note only on a disabled job`),
		}, {
			Config: jobConfig(jc, "bad", body),
			// Terraform prints an attribute's diagnostic under the
			// attribute's line of the configuration.
			ExpectError: regexp.MustCompile(`(?s)` +
				`interval = "PT5S"\s+Sked refused the value: action.retryPolicy.retryInterval: "PT5S" is below.*` +
				`time_zone = "Mars/Olympus_Mons"\s+Sked refused the value: recurrence.timeZone: "Mars/Olympus_Mons".*` +
				`window    = "PT2H"\s+Sked refused the value: recurrence.window: "PT2H" is over the maximum of PT1H`),
		}},
	})
	var out armJob
	err := getARM(t, armID{"default", "tf-jobs", jc, "bad"}.jobPath(), &out)
	if !isNotFound(err) {
		t.Fatalf("the refused job: %v, want 404", err)
	}
}

// TestJobDataSources reads a job and its collection back.
func TestJobDataSources(t *testing.T) {
	jc := uniq(t, "jc")
	cfg := jobConfig(jc, "read-me", `
  action_storage_queue {
    storage_account_name = "tfaccount"
    storage_queue_name   = "work"
    sas_token            = "sv=2020&sig=secret"
    message              = "go"
  }
  recurrence {
    frequency  = "month"
    month_days = [1, -1]
  }
  start_time = "2030-01-01T00:00:00Z"
`) + `
data "sked_job" "j" {
  name                = sked_job.j.name
  resource_group_name = sked_job.j.resource_group_name
  job_collection_name = sked_job.j.job_collection_name
}

data "sked_job_collection" "c" {
  name                = sked_job_collection.c.name
  resource_group_name = sked_job_collection.c.resource_group_name
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPair("data.sked_job.j", "id", "sked_job.j", "id"),
				resource.TestCheckResourceAttr("data.sked_job.j", "action_storage_queue.0.storage_queue_name", "work"),
				resource.TestCheckNoResourceAttr("data.sked_job.j", "action_storage_queue.0.sas_token"),
				resource.TestCheckResourceAttr("data.sked_job.j", "recurrence.0.frequency", "month"),
				resource.TestCheckResourceAttr("data.sked_job.j", "recurrence.0.month_days.#", "2"),
				resource.TestCheckResourceAttr("data.sked_job.j", "start_time", "2030-01-01T00:00:00Z"),
				resource.TestCheckResourceAttr("data.sked_job_collection.c", "sku", "Standard"),
				resource.TestCheckResourceAttr("data.sked_job_collection.c", "location", "westeurope"),
			),
		}},
	})
}

// TestJobExtensionsRoundTrip: the attributes the lifecycle test leaves out
// (calendars, a Service Bus topic action, Active Directory authentication
// on the error action, retry type none, month_days, certificate-free
// defaults) are stored by Sked and read back unchanged, also by an import.
func TestJobExtensionsRoundTrip(t *testing.T) {
	jc := uniq(t, "jc")
	cal := uniq(t, "closed")
	cfg := fmt.Sprintf(`
resource "sked_calendar" "closed" {
  workspace = "default"
  name      = %q
  entries   = jsonencode([{ date = "2030-12-24", label = "Closed" }])
}
`, cal) + jobConfig(jc, "topic", fmt.Sprintf(`
  start_time = "2030-01-01T00:00:00Z"

  action_service_bus_topic {
    namespace    = "tf-namespace"
    topic_path   = "orders/events"
    message      = "tick"
    sas_key_name = "send"
    sas_key      = "c2VjcmV0LWtleQ=="
    custom_message_properties = {
      source = "terraform"
    }
    brokered_message_properties {
      content_type      = "application/json"
      force_persistence = true
      label             = "orders"
      session_id        = "s-1"
      time_to_live      = "PT1H"
    }
  }

  error_action_web {
    url = "https://alerts.example.com/hook"
    authentication_active_directory {
      tenant_id = "contoso.onmicrosoft.com"
      client_id = "c0ffee"
      secret    = "client-secret"
    }
  }

  retry {
    type = "none"
  }

  recurrence {
    frequency  = "Month"
    interval   = 2
    month_days = [1, 15, -1]
    hours      = [6]
    minutes    = [0]
    time_zone  = "W. Europe Standard Time"
    calendars {
      exclude     = [sked_calendar.closed.name]
      on_excluded = "nextDay"
    }
  }
`))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy:             checkGone(t, "sked_job", true),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("sked_job.j", "error_action_web.0.authentication_active_directory.0.audience", defaultAudience),
					resource.TestCheckResourceAttr("sked_job.j", "retry.0.type", "none"),
					resource.TestCheckResourceAttr("sked_job.j", "action_service_bus_topic.0.brokered_message_properties.0.time_to_live", "PT1H"),
					resource.TestCheckNoResourceAttr("sked_job.j", "action_service_bus_topic.0.brokered_message_properties.0.to"),
					resource.TestCheckResourceAttr("sked_job.j", "recurrence.0.calendars.0.on_excluded", "nextDay"),
					checkAPI(t, "sked_job.j", true, func(j armJob) error {
						a := j.Properties.Action
						sb := a.ServiceBusTopicMessage
						if a.Type != "serviceBusTopic" || sb == nil || sb.TopicPath != "orders/events" || sb.CustomMessageProperties["source"] != "terraform" {
							return fmt.Errorf("action: %+v", a)
						}
						if b := sb.BrokeredMessageProperties; b == nil || b.ContentType != "application/json" || b.ForcePersistence == nil || !*b.ForcePersistence ||
							b.Label != "orders" || b.SessionID != "s-1" || b.TimeToLive != "PT1H" || b.To != "" {
							return fmt.Errorf("brokered message properties: %+v", sb.BrokeredMessageProperties)
						}
						au := a.ErrorAction.Request.Authentication
						if au.Type != "ActiveDirectoryOAuth" || au.Tenant != "contoso.onmicrosoft.com" || au.ClientID != "c0ffee" {
							return fmt.Errorf("error action authentication: %+v", au)
						}
						if a.RetryPolicy.RetryType != "none" {
							return fmt.Errorf("retry: %+v", a.RetryPolicy)
						}
						r := j.Properties.Recurrence
						if r.Interval != 2 || fmt.Sprint(r.Schedule.MonthDays) != "[-1 1 15]" && fmt.Sprint(r.Schedule.MonthDays) != "[1 15 -1]" ||
							r.Calendars == nil || r.Calendars.Exclude[0] != cal || r.Calendars.OnExcluded != "nextDay" {
							return fmt.Errorf("recurrence: %+v %+v %+v", r, r.Schedule, r.Calendars)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:      "sked_job.j",
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{
					"action_service_bus_topic.0.sas_key",
					"error_action_web.0.authentication_active_directory.0.secret",
					"error_action_web.0.method", "recurrence.0.frequency", "timeouts",
				},
			},
		},
	})
}
