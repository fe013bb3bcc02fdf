package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

type jobResource struct{ c *client }

func newJobResource() resource.Resource { return &jobResource{} }

var (
	_ resource.ResourceWithConfigure      = (*jobResource)(nil)
	_ resource.ResourceWithImportState    = (*jobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*jobResource)(nil)
)

func (r *jobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job"
}

func (r *jobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c := configureResource(req, resp); c != nil {
		r.c = c
	}
}

func (r *jobResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = jobSchema()
}

// ValidateConfig checks what azurerm's ConflictsWith and CustomizeDiff
// checked: exactly one action, at most one error action, at most one
// authentication per web action; and that a state note goes with a
// disabled job (Sked drops it otherwise).
func (r *jobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m jobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	mains := []string{}
	for name, n := range map[string]int{"action_web": len(m.ActionWeb), "action_storage_queue": len(m.ActionStorageQueue),
		"action_service_bus_queue": len(m.ActionServiceBusQueue), "action_service_bus_topic": len(m.ActionServiceBusTopic)} {
		if n > 0 {
			mains = append(mains, name)
		}
	}
	errs := []string{}
	for name, n := range map[string]int{"error_action_web": len(m.ErrorActionWeb), "error_action_storage_queue": len(m.ErrorActionStorageQueue),
		"error_action_service_bus_queue": len(m.ErrorActionServiceBusQueue), "error_action_service_bus_topic": len(m.ErrorActionServiceBusTopic)} {
		if n > 0 {
			errs = append(errs, name)
		}
	}
	switch {
	case len(mains) == 0:
		resp.Diagnostics.AddError("Missing action", "One of `action_web`, `action_storage_queue`, `action_service_bus_queue` or `action_service_bus_topic` must be set.")
	case len(mains) > 1:
		resp.Diagnostics.AddAttributeError(path.Root(mains[1]), "Conflicting actions", "Only one of "+strings.Join(mains, ", ")+" may be set.")
	}
	if len(errs) > 1 {
		resp.Diagnostics.AddAttributeError(path.Root(errs[1]), "Conflicting error actions", "Only one of "+strings.Join(errs, ", ")+" may be set.")
	}
	for _, b := range []struct {
		name string
		web  []webActionModel
	}{{"action_web", m.ActionWeb}, {"error_action_web", m.ErrorActionWeb}} {
		if len(b.web) == 0 {
			continue
		}
		w := b.web[0]
		if len(w.AuthenticationBasic)+len(w.AuthenticationCertificate)+len(w.AuthenticationActiveDirectory) > 1 {
			resp.Diagnostics.AddAttributeError(path.Root(b.name).AtListIndex(0), "Conflicting authentication",
				"Only one of authentication_basic, authentication_certificate and authentication_active_directory may be set.")
		}
	}
	// A job without state is enabled; an unknown state is checked by Sked.
	if known(m.StateNote) && m.StateNote.ValueString() != "" && !m.State.IsUnknown() && !strings.EqualFold(m.State.ValueString(), "disabled") {
		resp.Diagnostics.AddAttributeError(path.Root("state_note"), "State note on a job that is not disabled",
			"Sked keeps a state note only on a disabled job: set state = \"disabled\" or remove state_note.")
	}
}

// jobFieldRules map a 400's field to the attribute, for the blocks m uses.
func jobFieldRules(m *jobModel) []fieldRule {
	rules := []fieldRule{
		{"name", path.Root("name")},
		{"startTime", path.Root("start_time")},
		{"state", path.Root("state")},
		{"stateNote", path.Root("state_note")},
		{"misfirePolicy", path.Root("misfire_policy")},
		{"concurrency", path.Root("concurrency")},
		{"action.timeout", path.Root("timeout")},
		{"action.retryPolicy", path.Root("retry")},
	}
	retry := path.Root("retry").AtListIndex(0)
	rules = append(rules,
		fieldRule{"action.retryPolicy.retryType", retry.AtName("type")},
		fieldRule{"action.retryPolicy.retryInterval", retry.AtName("interval")},
		fieldRule{"action.retryPolicy.retryCount", retry.AtName("count")},
		fieldRule{"action.retryPolicy.maxRetryInterval", retry.AtName("max_interval")},
	)
	rec := path.Root("recurrence").AtListIndex(0)
	rules = append(rules,
		fieldRule{"recurrence", path.Root("recurrence")},
		fieldRule{"recurrence.frequency", rec.AtName("frequency")},
		fieldRule{"recurrence.interval", rec.AtName("interval")},
		fieldRule{"recurrence.count", rec.AtName("count")},
		fieldRule{"recurrence.endTime", rec.AtName("end_time")},
		fieldRule{"recurrence.timeZone", rec.AtName("time_zone")},
		fieldRule{"recurrence.window", rec.AtName("window")},
		fieldRule{"recurrence.schedule.minutes", rec.AtName("minutes")},
		fieldRule{"recurrence.schedule.hours", rec.AtName("hours")},
		fieldRule{"recurrence.schedule.weekDays", rec.AtName("week_days")},
		fieldRule{"recurrence.schedule.monthDays", rec.AtName("month_days")},
		fieldRule{"recurrence.schedule.monthlyOccurrences", rec.AtName("monthly_occurrences")},
		fieldRule{"recurrence.calendars", rec.AtName("calendars")},
		fieldRule{"recurrence.calendars.exclude", rec.AtName("calendars").AtListIndex(0).AtName("exclude")},
		fieldRule{"recurrence.calendars.onExcluded", rec.AtName("calendars").AtListIndex(0).AtName("on_excluded")},
		fieldRule{"trigger", path.Root("trigger")},
		fieldRule{"trigger.after", path.Root("trigger").AtListIndex(0).AtName("after")},
		fieldRule{"trigger.on", path.Root("trigger").AtListIndex(0).AtName("on")},
		fieldRule{"trigger.within", path.Root("trigger").AtListIndex(0).AtName("within")},
	)
	main, mainAuth := actionBlockNames("action_", m.ActionWeb, m.ActionStorageQueue, m.ActionServiceBusQueue, m.ActionServiceBusTopic)
	errBlock, errAuth := actionBlockNames("error_action_", m.ErrorActionWeb, m.ErrorActionStorageQueue, m.ErrorActionServiceBusQueue, m.ErrorActionServiceBusTopic)
	rules = append(rules, deadlineFieldRules()...)
	rules = append(rules, actionRules("action", main, mainAuth)...)
	rules = append(rules, actionRules("action.errorAction", errBlock, errAuth)...)
	return rules
}

// actionBlockNames names the action block in use and its authentication
// block ("" when none).
func actionBlockNames(prefix string, web []webActionModel, q []storageQueueModel, sbq []serviceBusQueueModel, sbt []serviceBusTopicModel) (string, string) {
	switch {
	case len(web) > 0:
		w := web[0]
		switch {
		case len(w.AuthenticationBasic) > 0:
			return prefix + "web", "authentication_basic"
		case len(w.AuthenticationCertificate) > 0:
			return prefix + "web", "authentication_certificate"
		case len(w.AuthenticationActiveDirectory) > 0:
			return prefix + "web", "authentication_active_directory"
		}
		return prefix + "web", ""
	case len(q) > 0:
		return prefix + "storage_queue", ""
	case len(sbq) > 0:
		return prefix + "service_bus_queue", ""
	case len(sbt) > 0:
		return prefix + "service_bus_topic", ""
	}
	return "", ""
}

func actionRules(api, block, auth string) []fieldRule {
	if block == "" {
		return nil
	}
	b := path.Root(block).AtListIndex(0)
	rules := []fieldRule{
		{api, path.Root(block)},
		{api + ".request.uri", b.AtName("url")},
		{api + ".request.method", b.AtName("method")},
		{api + ".request.body", b.AtName("body")},
		{api + ".request.headers", b.AtName("headers")},
		{api + ".queueMessage.storageAccount", b.AtName("storage_account_name")},
		{api + ".queueMessage.queueName", b.AtName("storage_queue_name")},
		{api + ".queueMessage.sasToken", b.AtName("sas_token")},
		{api + ".queueMessage.message", b.AtName("message")},
	}
	for _, sb := range []string{".serviceBusQueueMessage", ".serviceBusTopicMessage"} {
		rules = append(rules,
			fieldRule{api + sb + ".namespace", b.AtName("namespace")},
			fieldRule{api + sb + ".queueName", b.AtName("queue_name")},
			fieldRule{api + sb + ".topicPath", b.AtName("topic_path")},
			fieldRule{api + sb + ".message", b.AtName("message")},
			fieldRule{api + sb + ".transportType", b.AtName("transport_type")},
			fieldRule{api + sb + ".authentication.sasKeyName", b.AtName("sas_key_name")},
			fieldRule{api + sb + ".authentication.sasKey", b.AtName("sas_key")},
			fieldRule{api + sb + ".customMessageProperties", b.AtName("custom_message_properties")},
		)
	}
	if auth != "" {
		a := b.AtName(auth).AtListIndex(0)
		rules = append(rules,
			fieldRule{api + ".request.authentication", b.AtName(auth)},
			fieldRule{api + ".request.authentication.username", a.AtName("username")},
			fieldRule{api + ".request.authentication.password", a.AtName("password")},
			fieldRule{api + ".request.authentication.pfx", a.AtName("pfx")},
			fieldRule{api + ".request.authentication.tenant", a.AtName("tenant_id")},
			fieldRule{api + ".request.authentication.clientId", a.AtName("client_id")},
			fieldRule{api + ".request.authentication.secret", a.AtName("secret")},
			fieldRule{api + ".request.authentication.audience", a.AtName("audience")},
		)
	}
	return rules
}

func (r *jobResource) put(ctx context.Context, m *jobModel, id armID) (armJob, error) {
	var out armJob
	err := r.c.arm(ctx, "PUT", id.jobPath(), m.toAPI(), &out)
	return out, err
}

func (r *jobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m jobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "create")
	defer cancel()
	id := armID{Workspace: r.c.workspaceOf(), ResourceGroup: m.ResourceGroupName.ValueString(),
		Collection: m.JobCollectionName.ValueString(), Job: m.Name.ValueString()}
	var existing armJob
	if err := r.c.arm(ctx, "GET", id.jobPath(), nil, &existing); err == nil {
		resp.Diagnostics.AddError("Job already exists",
			fmt.Sprintf("A job with the id %q already exists: import it with `terraform import` to manage it.", id.String()))
		return
	} else if !isNotFound(err) {
		resp.Diagnostics.AddError("Checking for an existing job", err.Error())
		return
	}
	out, err := r.put(ctx, &m, id)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Creating the job", err, jobFieldRules(&m))
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *jobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m jobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "read")
	defer cancel()
	id, err := parseARMID(m.ID.ValueString(), true)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid job id", err.Error())
		return
	}
	var out armJob
	if err := r.c.arm(ctx, "GET", id.jobPath(), nil, &out); err != nil {
		if isNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Reading the job", err.Error())
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *jobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, prior jobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "update")
	defer cancel()
	id, err := parseARMID(prior.ID.ValueString(), true)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid job id", err.Error())
		return
	}
	out, err := r.put(ctx, &m, id)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Updating the job", err, jobFieldRules(&m))
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *jobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m jobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "delete")
	defer cancel()
	id, err := parseARMID(m.ID.ValueString(), true)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid job id", err.Error())
		return
	}
	if err := r.c.arm(ctx, "DELETE", id.jobPath(), nil, nil); err != nil && !isNotFound(err) {
		resp.Diagnostics.AddError("Deleting the job", err.Error())
	}
}

func (r *jobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, err := parseARMID(req.ID, true)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id.String())...)
}
