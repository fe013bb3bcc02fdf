package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// workspaceObject is what the three workspace-scoped resources (calendar,
// channel, alert rule) share: a collection path under the workspace, a
// model that turns into a PUT body and takes an answer back.
type workspaceObject interface {
	key() (workspace, name string)
	body() any
	// fromAnswer fills the model from Sked's answer (raw JSON).
	fromAnswer(raw json.RawMessage) error
	setID()
}

// v1Resource is the CRUD of a workspace object at
// /api/v1/workspaces/{ws}/{kind}/{name}.
type v1Resource[M any, PM interface {
	*M
	workspaceObject
}] struct {
	c        *client
	typeName string
	kind     string // calendars, channels, alerts
	what     string // "calendar", for messages
	schema   schema.Schema
	rules    []fieldRule
	// keyName is the attribute that names the object in its workspace
	// (and in the import id workspace/key); "" is "name".
	keyName string
}

// workspaceDefaulter is a model whose workspace is optional: Create sets
// an unset one to the provider's.
type workspaceDefaulter interface {
	defaultWorkspace(ws string)
}

func (r *v1Resource[M, PM]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

func (r *v1Resource[M, PM]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c := configureResource(req, resp); c != nil {
		r.c = c
	}
}

func (r *v1Resource[M, PM]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

func (r *v1Resource[M, PM]) path(m PM) string {
	ws, name := m.key()
	return v1Path("workspaces", ws, r.kind, name)
}

func (r *v1Resource[M, PM]) write(ctx context.Context, m PM, diags *diag.Diagnostics) {
	var raw json.RawMessage
	if err := r.c.do(ctx, "PUT", r.path(m), nil, m.body(), &raw); err != nil {
		addAPIError(diags, "Writing the "+r.what, err, r.rules)
		return
	}
	if err := m.fromAnswer(raw); err != nil {
		diags.AddError("Reading Sked's answer for the "+r.what, err.Error())
	}
	m.setID()
}

func (r *v1Resource[M, PM]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	m := PM(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d, ok := any(m).(workspaceDefaulter); ok {
		d.defaultWorkspace(r.c.workspaceOf())
	}
	var existing json.RawMessage
	if err := r.c.do(ctx, "GET", r.path(m), nil, nil, &existing); err == nil {
		ws, name := m.key()
		resp.Diagnostics.AddError("The "+r.what+" already exists",
			"Sked already has the "+r.what+" "+ws+"/"+name+": import it with `terraform import` to manage it.")
		return
	} else if !isNotFound(err) {
		resp.Diagnostics.AddError("Checking for an existing "+r.what, err.Error())
		return
	}
	r.write(ctx, m, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	}
}

func (r *v1Resource[M, PM]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	m := PM(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.write(ctx, m, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	}
}

func (r *v1Resource[M, PM]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	m := PM(new(M))
	resp.Diagnostics.Append(req.State.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var raw json.RawMessage
	if err := r.c.do(ctx, "GET", r.path(m), nil, nil, &raw); err != nil {
		if isNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Reading the "+r.what, err.Error())
		return
	}
	if err := m.fromAnswer(raw); err != nil {
		resp.Diagnostics.AddError("Reading Sked's answer for the "+r.what, err.Error())
		return
	}
	m.setID()
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *v1Resource[M, PM]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	m := PM(new(M))
	resp.Diagnostics.Append(req.State.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.c.do(ctx, "DELETE", r.path(m), nil, nil, nil); err != nil && !isNotFound(err) {
		resp.Diagnostics.AddError("Deleting the "+r.what, err.Error())
	}
}

func (r *v1Resource[M, PM]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	key := r.keyName
	if key == "" {
		key = "name"
	}
	importWorkspaceName(ctx, req, resp, key)
}

// ---- sked_calendar ----

type calendarModel struct {
	ID          types.String `tfsdk:"id"`
	Workspace   types.String `tfsdk:"workspace"`
	Name        types.String `tfsdk:"name"`
	TimeZone    types.String `tfsdk:"time_zone"`
	Description types.String `tfsdk:"description"`
	Entries     types.String `tfsdk:"entries"`
}

func (m *calendarModel) key() (string, string) {
	return m.Workspace.ValueString(), m.Name.ValueString()
}
func (m *calendarModel) setID() {
	m.ID = types.StringValue(m.Workspace.ValueString() + "/" + m.Name.ValueString())
}

func (m *calendarModel) body() any {
	b := map[string]any{"description": m.Description.ValueString(), "entries": json.RawMessage(m.Entries.ValueString())}
	if known(m.TimeZone) {
		b["timeZone"] = m.TimeZone.ValueString()
	}
	return b
}

func (m *calendarModel) fromAnswer(raw json.RawMessage) error {
	var a struct {
		TimeZone    string          `json:"timeZone"`
		Description string          `json:"description"`
		Entries     json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return err
	}
	m.TimeZone = spelling(m.TimeZone, a.TimeZone)
	m.Description = optString(a.Description)
	if len(a.Entries) == 0 {
		a.Entries = json.RawMessage("[]")
	}
	if !known(m.Entries) || !sameJSON(m.Entries.ValueString(), string(a.Entries)) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, a.Entries); err != nil {
			return err
		}
		m.Entries = types.StringValue(buf.String())
	}
	return nil
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func newCalendarResource() resource.Resource {
	return &v1Resource[calendarModel, *calendarModel]{
		typeName: "_calendar", kind: "calendars", what: "calendar",
		rules: []fieldRule{
			{"timeZone", path.Root("time_zone")},
			{"description", path.Root("description")},
			{"entries", path.Root("entries")},
			{"name", path.Root("name")},
		},
		schema: schema.Schema{
			Description: "A workspace calendar: days jobs can skip (recurrence.calendars.exclude).",
			Attributes: map[string]schema.Attribute{
				"id":        idAttr("workspace/name."),
				"workspace": keyAttr("The workspace."),
				"name":      keyAttr("The calendar's name."),
				"time_zone": schema.StringAttribute{Optional: true, Computed: true,
					PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
					Description:   "The zone whose days the entries mean (default UTC)."},
				"description": schema.StringAttribute{Optional: true, Description: "What the calendar is for."},
				"entries": schema.StringAttribute{Required: true,
					Description: "The entries as a JSON array in the API's shape, e.g. jsonencode([{date = \"2026-12-25\", label = \"Christmas\"}, {yearly = \"01-01\"}]); kept as written while Sked holds the same value.",
					Validators:  []validator.String{jsonArrayValidator{}}},
			},
		},
	}
}

// ---- sked_channel ----

type channelModel struct {
	ID          types.String `tfsdk:"id"`
	Workspace   types.String `tfsdk:"workspace"`
	Name        types.String `tfsdk:"name"`
	Type        types.String `tfsdk:"type"`
	Description types.String `tfsdk:"description"`
	URL         types.String `tfsdk:"url"`
	Host        types.String `tfsdk:"host"`
	Port        types.Int64  `tfsdk:"port"`
	Security    types.String `tfsdk:"security"`
	User        types.String `tfsdk:"user"`
	Password    types.String `tfsdk:"password"`
	From        types.String `tfsdk:"from"`
	To          types.List   `tfsdk:"to"`
	Secret      types.String `tfsdk:"secret"`
}

func (m *channelModel) key() (string, string) { return m.Workspace.ValueString(), m.Name.ValueString() }
func (m *channelModel) setID() {
	m.ID = types.StringValue(m.Workspace.ValueString() + "/" + m.Name.ValueString())
}

func (m *channelModel) body() any {
	p := map[string]any{}
	put := func(k string, v types.String) {
		if known(v) {
			p[k] = v.ValueString()
		}
	}
	put("url", m.URL)
	put("host", m.Host)
	put("security", m.Security)
	put("user", m.User)
	put("password", m.Password)
	put("from", m.From)
	if known(m.Port) {
		p["port"] = m.Port.ValueInt64()
	}
	if known(m.To) {
		p["to"] = strs(m.To.Elements())
	}
	return map[string]any{"type": m.Type.ValueString(), "description": m.Description.ValueString(), "properties": p}
}

func (m *channelModel) fromAnswer(raw json.RawMessage) error {
	var a struct {
		Type        string `json:"type"`
		Description string `json:"description"`
		Secret      string `json:"secret"`
		Properties  struct {
			URL      string   `json:"url"`
			Host     string   `json:"host"`
			Port     int64    `json:"port"`
			Security string   `json:"security"`
			User     string   `json:"user"`
			From     string   `json:"from"`
			To       []string `json:"to"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return err
	}
	p := a.Properties
	m.Type = spelling(m.Type, a.Type)
	m.Description = optString(a.Description)
	// Slack's and Teams' URLs are secrets Sked does not return: keep the
	// configuration's.
	if p.URL != "" || !known(m.URL) {
		m.URL = optString(p.URL)
	}
	m.Host = optString(p.Host)
	m.Port = types.Int64Null()
	if p.Port != 0 {
		m.Port = types.Int64Value(p.Port)
	}
	m.Security = optSpelling(m.Security, p.Security)
	m.User = optString(p.User)
	if !known(m.Password) {
		m.Password = types.StringNull()
	}
	m.From = optString(p.From)
	if len(p.To) > 0 {
		m.To, _ = types.ListValueFrom(context.Background(), types.StringType, p.To)
	} else {
		m.To = types.ListNull(types.StringType)
	}
	switch {
	case a.Secret != "":
		m.Secret = types.StringValue(a.Secret)
	case !known(m.Secret):
		m.Secret = types.StringNull()
	}
	return nil
}

func newChannelResource() resource.Resource {
	opt := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: desc}
	}
	return &v1Resource[channelModel, *channelModel]{
		typeName: "_channel", kind: "channels", what: "channel",
		rules: []fieldRule{
			{"type", path.Root("type")}, {"description", path.Root("description")},
			{"url", path.Root("url")}, {"host", path.Root("host")}, {"port", path.Root("port")},
			{"security", path.Root("security")}, {"user", path.Root("user")}, {"password", path.Root("password")},
			{"from", path.Root("from")}, {"to", path.Root("to")}, {"name", path.Root("name")},
		},
		schema: schema.Schema{
			Description: "A notification channel of a workspace (webhook, Slack, Teams or email).",
			Attributes: map[string]schema.Attribute{
				"id":        idAttr("workspace/name."),
				"workspace": keyAttr("The workspace."),
				"name":      keyAttr("The channel's name."),
				"type": schema.StringAttribute{Required: true, Description: "webhook, slack, teams or email.",
					Validators: []validator.String{stringvalidator.OneOfCaseInsensitive("webhook", "slack", "teams", "email")}},
				"description": opt("What the channel is for."),
				"url":         opt("The URL (webhook, slack, teams; https for Slack and Teams, whose URL Sked keeps secret and never returns)."),
				"host":        opt("SMTP host (email)."),
				"port":        schema.Int64Attribute{Optional: true, Description: "SMTP port (email)."},
				"security":    opt("starttls, tls or none (email)."),
				"user":        opt("SMTP user (email)."),
				"password": schema.StringAttribute{Optional: true, Sensitive: true,
					Description: "SMTP password (email). Sensitive and write-only: Sked never returns it, so it is not drift-checked."},
				"from": opt("Sender address (email)."),
				"to":   schema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "Recipients (email)."},
				"secret": schema.StringAttribute{Computed: true, Sensitive: true,
					PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
					Description:   "A webhook's whsec_ signing secret, as Sked gave it when the channel was created (null after an import: Sked shows it only once)."},
			},
		},
	}
}

// ---- sked_alert_rule ----

type alertRuleModel struct {
	ID          types.String `tfsdk:"id"`
	Workspace   types.String `tfsdk:"workspace"`
	Name        types.String `tfsdk:"name"`
	Channel     types.String `tfsdk:"channel"`
	Events      types.Set    `tfsdk:"events"`
	Scope       []scopeModel `tfsdk:"scope"`
	Threshold   types.Int64  `tfsdk:"threshold"`
	MinInterval types.String `tfsdk:"min_interval"`
}

type scopeModel struct {
	ResourceGroup types.String `tfsdk:"resource_group"`
	Collection    types.String `tfsdk:"collection"`
	Job           types.String `tfsdk:"job"`
}

func (m *alertRuleModel) key() (string, string) {
	return m.Workspace.ValueString(), m.Name.ValueString()
}
func (m *alertRuleModel) setID() {
	m.ID = types.StringValue(m.Workspace.ValueString() + "/" + m.Name.ValueString())
}

func (m *alertRuleModel) body() any {
	b := map[string]any{"channel": m.Channel.ValueString(), "events": strs(m.Events.Elements())}
	scope := map[string]string{}
	if len(m.Scope) > 0 {
		s := m.Scope[0]
		for k, v := range map[string]types.String{"resourceGroup": s.ResourceGroup, "collection": s.Collection, "job": s.Job} {
			if known(v) {
				scope[k] = v.ValueString()
			}
		}
	}
	b["scope"] = scope
	if known(m.Threshold) {
		b["threshold"] = m.Threshold.ValueInt64()
	}
	if known(m.MinInterval) {
		b["minInterval"] = m.MinInterval.ValueString()
	}
	return b
}

func (m *alertRuleModel) fromAnswer(raw json.RawMessage) error {
	var a struct {
		Channel string   `json:"channel"`
		Events  []string `json:"events"`
		Scope   struct {
			ResourceGroup string `json:"resourceGroup"`
			Collection    string `json:"collection"`
			Job           string `json:"job"`
		} `json:"scope"`
		Threshold   int64  `json:"threshold"`
		MinInterval string `json:"minInterval"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return err
	}
	m.Channel = spelling(m.Channel, a.Channel)
	m.Events = foldSetFromAPI(m.Events, a.Events)
	var ps scopeModel
	if len(m.Scope) > 0 {
		ps = m.Scope[0]
	}
	m.Scope = nil
	if a.Scope.ResourceGroup+a.Scope.Collection+a.Scope.Job != "" {
		m.Scope = []scopeModel{{
			ResourceGroup: optSpelling(ps.ResourceGroup, a.Scope.ResourceGroup),
			Collection:    optSpelling(ps.Collection, a.Scope.Collection),
			Job:           optSpelling(ps.Job, a.Scope.Job),
		}}
	}
	m.Threshold = types.Int64Null()
	if a.Threshold != 0 {
		m.Threshold = types.Int64Value(a.Threshold)
	}
	m.MinInterval = spelling(m.MinInterval, a.MinInterval)
	return nil
}

func newAlertRuleResource() resource.Resource {
	scope := path.Root("scope").AtListIndex(0)
	return &v1Resource[alertRuleModel, *alertRuleModel]{
		typeName: "_alert_rule", kind: "alerts", what: "alert rule",
		rules: []fieldRule{
			{"channel", path.Root("channel")}, {"events", path.Root("events")},
			{"scope", path.Root("scope")}, {"scope.resourceGroup", scope.AtName("resource_group")},
			{"scope.collection", scope.AtName("collection")}, {"scope.job", scope.AtName("job")},
			{"threshold", path.Root("threshold")}, {"minInterval", path.Root("min_interval")}, {"name", path.Root("name")},
		},
		schema: schema.Schema{
			Description: "An alert rule: which events of which jobs a channel is told about.",
			Attributes: map[string]schema.Attribute{
				"id":        idAttr("workspace/name."),
				"workspace": keyAttr("The workspace."),
				"name":      keyAttr("The rule's name."),
				"channel":   schema.StringAttribute{Required: true, Description: "A channel of the same workspace."},
				"events": schema.SetAttribute{Required: true, ElementType: types.StringType,
					Description: "attemptFailed, occurrenceFaulted, recovered, missed, jobCompleted, jobFaulted, consecutiveFailures."},
				"threshold": schema.Int64Attribute{Optional: true, Description: "How many failures in a row (with consecutiveFailures)."},
				"min_interval": schema.StringAttribute{Optional: true, Computed: true,
					PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
					Description:   "The least time between two notifications of the rule, ISO 8601 (default PT0S)."},
			},
			Blocks: map[string]schema.Block{
				"scope": schema.ListNestedBlock{
					Description: "Which jobs the rule covers (none: every job of the workspace).",
					Validators:  []validator.List{listvalidator.SizeAtMost(1)},
					NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
						"resource_group": schema.StringAttribute{Optional: true, Description: "A resource group."},
						"collection":     schema.StringAttribute{Optional: true, Description: "A collection of it."},
						"job":            schema.StringAttribute{Optional: true, Description: "A job of that collection."},
					}},
				},
			},
		},
	}
}
