package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// weekDays are the day names azurerm accepts (any case).
var weekDays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// notEmpty is azurerm's validate.NoEmptyStrings.
var notEmpty = []validator.String{stringvalidator.LengthAtLeast(1)}

func oneBlock() []validator.List { return []validator.List{listvalidator.SizeAtMost(1)} }

// secretAttr is a required secret: sensitive, sent to Sked, never read
// back (Sked does not return secrets), so not drift-checked.
func secretAttr(desc string) schema.StringAttribute {
	return schema.StringAttribute{Required: true, Sensitive: true, Validators: notEmpty,
		Description: desc + " Sensitive and write-only: Sked never returns it, so a change made outside Terraform is not detected."}
}

func webActionBlock(desc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		Description: desc,
		Validators:  oneBlock(),
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"url": schema.StringAttribute{Required: true, Description: "The http or https URL to call.",
					Validators: []validator.String{stringvalidator.RegexMatches(httpURLPattern, "must be an http or https URL")}},
				"method": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("Get"),
					Description: "Get (default), Put, Post or Delete (any case).",
					Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("Get", "Put", "Post", "Delete", "Patch", "Head")}},
				"body":    schema.StringAttribute{Optional: true, Validators: notEmpty, Description: "The request body."},
				"headers": schema.MapAttribute{Optional: true, ElementType: types.StringType, Description: "Request headers."},
			},
			Blocks: map[string]schema.Block{
				"authentication_basic": schema.ListNestedBlock{
					Description: "HTTP basic authentication.",
					Validators:  oneBlock(),
					NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
						"username": schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The user name."},
						"password": secretAttr("The password."),
					}},
				},
				"authentication_certificate": schema.ListNestedBlock{
					Description: "A client certificate.",
					Validators:  oneBlock(),
					NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
						"pfx":      secretAttr("The PKCS#12 certificate, base64 (e.g. filebase64(\"cert.pfx\"))."),
						"password": secretAttr("The certificate's password."),
						"thumbprint": schema.StringAttribute{Computed: true, Description: "The certificate's thumbprint.",
							PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
						"expiration": schema.StringAttribute{Computed: true, Description: "When the certificate expires.",
							PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
						"subject_name": schema.StringAttribute{Computed: true, Description: "The certificate's subject.",
							PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
					}},
				},
				"authentication_active_directory": schema.ListNestedBlock{
					Description: "OAuth client credentials against Azure Active Directory (or another OAuth 2 authority).",
					Validators:  oneBlock(),
					NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
						"tenant_id": schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The tenant."},
						"client_id": schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The client id."},
						"secret":    secretAttr("The client secret."),
						"audience": schema.StringAttribute{Optional: true, Computed: true,
							Default:     stringdefault.StaticString(defaultAudience),
							Description: "The audience (default " + defaultAudience + ", as azurerm's)."},
					}},
				},
			},
		},
	}
}

func storageQueueBlock(desc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		Description: desc,
		Validators:  oneBlock(),
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"storage_account_name": schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The storage account."},
			"storage_queue_name":   schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The queue."},
			"sas_token":            secretAttr("A SAS token of the account."),
			"message":              schema.StringAttribute{Required: true, Description: "The message to put on the queue."},
		}},
	}
}

func serviceBusBlock(desc, entity, entityDesc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		Description: desc + " (Sked extension).",
		Validators:  oneBlock(),
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"namespace":    schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The Service Bus namespace."},
			entity:         schema.StringAttribute{Required: true, Validators: notEmpty, Description: entityDesc},
			"message":      schema.StringAttribute{Optional: true, Description: "The message body."},
			"sas_key_name": schema.StringAttribute{Required: true, Validators: notEmpty, Description: "The shared access key's name."},
			"sas_key":      secretAttr("The shared access key."),
			"transport_type": schema.StringAttribute{Optional: true, Description: "NetMessaging or AMQP (any case).",
				Validators: []validator.String{stringvalidator.OneOfCaseInsensitive("NetMessaging", "AMQP", "NotSpecified")}},
			"custom_message_properties": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				Description: "Application properties of the message."},
		}, Blocks: map[string]schema.Block{"brokered_message_properties": brokeredBlock()}},
	}
}

// brokeredBlock is a Service Bus message's system properties (the job JSON's
// brokeredMessageProperties), stored as given.
func brokeredBlock() schema.ListNestedBlock {
	opt := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Validators: notEmpty, Description: desc}
	}
	return schema.ListNestedBlock{
		Description: "The message's system properties (brokeredMessageProperties).",
		Validators:  oneBlock(),
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"content_type":        opt("The content type."),
			"correlation_id":      opt("The correlation id."),
			"force_persistence":   schema.BoolAttribute{Optional: true, Description: "Whether the message is persisted before it is acknowledged."},
			"label":               opt("The label."),
			"message_id":          opt("The message id."),
			"partition_key":       opt("The partition key."),
			"reply_to":            opt("The address to reply to."),
			"reply_to_session_id": opt("The session to reply to."),
			"scheduled_enqueue_time_utc": schema.StringAttribute{Optional: true, Validators: notEmpty,
				Description: "The ISO 8601 date-time at which the message is enqueued."},
			"session_id": opt("The session id."),
			"time_to_live": schema.StringAttribute{Optional: true, Validators: notEmpty,
				Description: "The message's time to live, an ISO 8601 duration such as PT1H."},
			"to":                opt("The address to send to."),
			"via_partition_key": opt("The partition key of the transfer queue."),
		}},
	}
}

// intSet is an optional set of whole numbers from lo to hi.
func intSet(desc string, lo, hi int64) schema.SetAttribute {
	return schema.SetAttribute{Optional: true, ElementType: types.Int64Type, Description: desc,
		Validators: []validator.Set{setvalidator.ValueInt64sAre(int64validator.Between(lo, hi))}}
}

func jobSchema() schema.Schema {
	replace := []planmodifier.String{replaceUnlessSame(foldSame, "A new name (not only another case) replaces the job.")}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	return schema.Schema{
		Description: "A Sked job, with the attributes of azurerm 1.x's azurerm_scheduler_job and Sked's extensions.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: keep, Description: "The ARM id of the job."},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				Description: "The job's name. Changing it replaces the job.",
				Validators: []validator.String{stringvalidator.RegexMatches(jobNamePattern,
					"must start with a letter and contain only letters, numbers, hyphens and underscores")}},
			"resource_group_name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				Description: "The collection's resource group. Changing it replaces the job."},
			"job_collection_name": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: notEmpty,
				Description: "The collection the job is in. Changing it replaces the job."},
			"start_time": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
				Description: "RFC 3339 time of the first run (default: now)."},
			"state": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
				Description: "Enabled or Disabled (any case); Sked reports Completed and Faulted too."},
			"state_note": schema.StringAttribute{Optional: true,
				Description: "Why a disabled job is paused (Sked extension; kept only while the job is disabled)."},
			"misfire_policy": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("skip"),
				Description: "skip (default) or runOnce: what a run missed while Sked was down does (Sked extension).",
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("skip", "runOnce")}},
			"concurrency": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("allow"),
				Description: "allow (default) or forbid: whether a run may start while the previous one is still running (Sked extension).",
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("allow", "forbid")}},
			"timeout": schema.StringAttribute{Optional: true,
				Description: "How long one attempt may take, an ISO 8601 duration such as PT30S (default PT60S, at most PT10M; Sked extension)."},
		},
		Blocks: map[string]schema.Block{
			"action_web":                     webActionBlock("An HTTP(S) request to make (identical to error_action_web)."),
			"action_storage_queue":           storageQueueBlock("A storage queue message to send (identical to error_action_storage_queue)."),
			"action_service_bus_queue":       serviceBusBlock("A Service Bus queue message to send", "queue_name", "The queue."),
			"action_service_bus_topic":       serviceBusBlock("A Service Bus topic message to send", "topic_path", "The topic."),
			"error_action_web":               webActionBlock("The HTTP(S) request to make when the action has failed for good."),
			"error_action_storage_queue":     storageQueueBlock("The storage queue message to send when the action has failed for good."),
			"error_action_service_bus_queue": serviceBusBlock("The Service Bus queue message to send when the action has failed for good", "queue_name", "The queue."),
			"error_action_service_bus_topic": serviceBusBlock("The Service Bus topic message to send when the action has failed for good", "topic_path", "The topic."),
			"deadline":                       deadlineBlock(),
			"retry": schema.ListNestedBlock{
				Description: "How a failed action is retried.",
				Validators:  oneBlock(),
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"interval": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("00:00:30"),
						Validators:  notEmpty,
						Description: "The wait between retries, as a TimeSpan (00:05:00) or ISO 8601 duration (PT5M); default 00:00:30, at least 15 seconds."},
					"count": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(4),
						Validators:  []validator.Int64{int64validator.Between(1, 20)},
						Description: "How many retries (1–20, default 4)."},
					"type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("fixed"),
						Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("fixed", "exponential", "none")},
						Description: "fixed (default), exponential (each wait twice the one before, at most max_interval) or none (Sked extension)."},
					"max_interval": schema.StringAttribute{Optional: true, Computed: true,
						Description: "The longest wait of an exponential retry (default PT1H; Sked extension)."},
				}},
			},
			"trigger": triggerBlock(), // job_trigger.go
			"recurrence": schema.ListNestedBlock{
				Description:  "When the job runs again; without it the job runs once.",
				Validators:   oneBlock(),
				NestedObject: recurrenceObject(keep),
			},
			"timeouts": timeoutsBlock(),
		},
	}
}

// recurrenceObject is the inside of sked_job's recurrence block; keep is
// the plan modifier of its computed end_time. sked_monitor's schedule
// block is the same without count, end_time and window.
func recurrenceObject(keep []planmodifier.String) schema.NestedBlockObject {
	return schema.NestedBlockObject{
		Attributes: map[string]schema.Attribute{
			"frequency": schema.StringAttribute{Required: true,
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive(jobFrequencies...)},
				Description: "Minute, Hour, Day, Week or Month (any case); Second as a Sked extension (the schedule's elements then limit which seconds run)."},
			"interval": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1),
				Validators:  []validator.Int64{int64validator.AtLeast(1)},
				Description: "Every how many frequency units (default 1)."},
			"count": schema.Int64Attribute{Optional: true,
				Validators:  []validator.Int64{int64validator.Between(1, 2147483647)},
				Description: "How many times the job runs at most."},
			"end_time": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
				Description: "RFC 3339 time after which the job no longer runs."},
			"minutes": intSet("Minutes of the hour (0–59).", 0, 59),
			"hours":   intSet("Hours of the day (0–23).", 0, 23),
			"week_days": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				Description: "Days of the week (Monday … Sunday, any case), with frequency Week.",
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(stringvalidator.OneOfCaseInsensitive(weekDays...)),
					setvalidator.ConflictsWith(pathExpr("month_days"), pathExpr("monthly_occurrences")),
				}},
			"month_days": schema.SetAttribute{Optional: true, ElementType: types.Int64Type,
				Description: "Days of the month (1–31, or -31 … -1 counted from the month's end), with frequency Month.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueInt64sAre(int64validator.Between(-31, 31), int64validator.NoneOf(0)),
					setvalidator.ConflictsWith(pathExpr("monthly_occurrences")),
				}},
			"time_zone": schema.StringAttribute{Optional: true,
				Description: "IANA or Windows time zone whose wall clock the schedule follows (Sked extension; default UTC)."},
			"window": schema.StringAttribute{Optional: true,
				Description: "Spread window (Sked extension): an ISO 8601 duration from PT0S to PT1H, shorter than the gap between two runs. Each run starts at a fixed moment within this window after its time, to spread load."},
		},
		Blocks: map[string]schema.Block{
			"monthly_occurrences": schema.SetNestedBlock{
				Description: "Weekdays of the month such as the last Sunday, with frequency Month.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"day": schema.StringAttribute{Required: true, Description: "Monday … Sunday (any case).",
						Validators: []validator.String{stringvalidator.OneOfCaseInsensitive(weekDays...)}},
					"occurrence": schema.Int64Attribute{Required: true, Description: "1 … 5 for the first … fifth, -1 … -5 from the month's end.",
						Validators: []validator.Int64{int64validator.Between(-5, 5), int64validator.NoneOf(0)}},
				}},
			},
			"calendars": schema.ListNestedBlock{
				Description: "Workspace calendars whose days the job skips (Sked extension).",
				Validators:  oneBlock(),
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"exclude": schema.ListAttribute{Required: true, ElementType: types.StringType,
						Description: "Names of calendars of the collection's workspace."},
					"on_excluded": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("skip"),
						Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("skip", "nextDay", "previousDay")},
						Description: "skip (default), nextDay or previousDay: what a run on an excluded day does."},
				}},
			},
		},
	}
}
