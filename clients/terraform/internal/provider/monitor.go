package provider

import (
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// optionalWorkspaceAttr is the workspace of a resource that goes into the
// provider's workspace when it names none.
func optionalWorkspaceAttr() schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Validators: notEmpty,
		Description:   "The workspace (default the provider's). Changing it replaces the resource.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}}
}

// ---- sked_monitor ----

type monitorModel struct {
	ID          types.String           `tfsdk:"id"`
	Workspace   types.String           `tfsdk:"workspace"`
	Name        types.String           `tfsdk:"name"`
	Schedule    []monitorScheduleModel `tfsdk:"schedule"`
	Grace       types.String           `tfsdk:"grace"`
	Description types.String           `tfsdk:"description"`
	MaxDuration types.String           `tfsdk:"max_duration"`
	Paused      types.Bool             `tfsdk:"paused"`
	PingURL     types.String           `tfsdk:"ping_url"`
	Status      types.String           `tfsdk:"status"`
}

// monitorScheduleModel is sked_job's recurrence block without what does
// not apply to a monitor (count, end_time, window).
type monitorScheduleModel struct {
	Frequency          types.String      `tfsdk:"frequency"`
	Interval           types.Int64       `tfsdk:"interval"`
	Minutes            types.Set         `tfsdk:"minutes"`
	Hours              types.Set         `tfsdk:"hours"`
	WeekDays           types.Set         `tfsdk:"week_days"`
	MonthDays          types.Set         `tfsdk:"month_days"`
	MonthlyOccurrences []monthlyOccModel `tfsdk:"monthly_occurrences"`
	TimeZone           types.String      `tfsdk:"time_zone"`
	Calendars          []calendarsModel  `tfsdk:"calendars"`
}

func (s monitorScheduleModel) recurrence() recurrenceModel {
	return recurrenceModel{Frequency: s.Frequency, Interval: s.Interval, Minutes: s.Minutes, Hours: s.Hours,
		WeekDays: s.WeekDays, MonthDays: s.MonthDays, MonthlyOccurrences: s.MonthlyOccurrences,
		TimeZone: s.TimeZone, Calendars: s.Calendars}
}

func monitorScheduleOf(r recurrenceModel) monitorScheduleModel {
	return monitorScheduleModel{Frequency: r.Frequency, Interval: r.Interval, Minutes: r.Minutes, Hours: r.Hours,
		WeekDays: r.WeekDays, MonthDays: r.MonthDays, MonthlyOccurrences: r.MonthlyOccurrences,
		TimeZone: r.TimeZone, Calendars: r.Calendars}
}

func (m *monitorModel) key() (string, string) { return m.Workspace.ValueString(), m.Name.ValueString() }
func (m *monitorModel) setID() {
	m.ID = types.StringValue(m.Workspace.ValueString() + "/" + m.Name.ValueString())
}
func (m *monitorModel) defaultWorkspace(ws string) {
	if !known(m.Workspace) {
		m.Workspace = types.StringValue(ws)
	}
}

func (m *monitorModel) body() any {
	b := map[string]any{"grace": m.Grace.ValueString(), "description": m.Description.ValueString(),
		"paused": m.Paused.ValueBool()}
	if len(m.Schedule) > 0 {
		b["schedule"] = recurrenceToAPI(m.Schedule[0].recurrence())
	}
	if known(m.MaxDuration) {
		b["deadline"] = map[string]string{"maxDuration": m.MaxDuration.ValueString()}
	}
	return b
}

func (m *monitorModel) fromAnswer(raw json.RawMessage) error {
	var a struct {
		Schedule    *armRecurrence `json:"schedule"`
		Grace       string         `json:"grace"`
		Description string         `json:"description"`
		Deadline    struct {
			MaxDuration string `json:"maxDuration"`
		} `json:"deadline"`
		Paused  bool   `json:"paused"`
		PingURL string `json:"pingUrl"`
		Status  string `json:"status"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return err
	}
	var prior monitorScheduleModel
	if len(m.Schedule) > 0 {
		prior = m.Schedule[0]
	}
	m.Schedule = nil
	if a.Schedule != nil {
		m.Schedule = []monitorScheduleModel{monitorScheduleOf(recurrenceFromAPI(prior.recurrence(), a.Schedule))}
	}
	m.Grace = spelling(m.Grace, a.Grace)
	m.Description = optString(a.Description)
	m.MaxDuration = optSpelling(m.MaxDuration, a.Deadline.MaxDuration)
	m.Paused = types.BoolValue(a.Paused)
	// Sked shows the ping URL to editors only: a reader's answer keeps the
	// one in state.
	if a.PingURL != "" || !known(m.PingURL) {
		m.PingURL = optString(a.PingURL)
	}
	m.Status = types.StringValue(a.Status)
	return nil
}

func newMonitorResource() resource.Resource {
	sched := path.Root("schedule").AtListIndex(0)
	schedule := recurrenceObject(nil)
	for _, k := range []string{"count", "end_time", "window"} {
		delete(schedule.Attributes, k)
	}
	if cals, ok := schedule.Blocks["calendars"].(schema.ListNestedBlock); ok {
		cals.Description = "Workspace calendars whose days expect no ping (or, with on_excluded, expect it a day later or earlier)."
		if ex, ok := cals.NestedObject.Attributes["exclude"].(schema.ListAttribute); ok {
			ex.Description = "Names of calendars of the monitor's workspace."
			cals.NestedObject.Attributes["exclude"] = ex
		}
		schedule.Blocks["calendars"] = cals
	}
	return &v1Resource[monitorModel, *monitorModel]{
		typeName: "_monitor", kind: "monitors", what: "monitor",
		rules: []fieldRule{
			{"name", path.Root("name")},
			{"schedule", path.Root("schedule")},
			{"schedule.frequency", sched.AtName("frequency")},
			{"schedule.interval", sched.AtName("interval")},
			{"schedule.timeZone", sched.AtName("time_zone")},
			{"schedule.schedule.minutes", sched.AtName("minutes")},
			{"schedule.schedule.hours", sched.AtName("hours")},
			{"schedule.schedule.weekDays", sched.AtName("week_days")},
			{"schedule.schedule.monthDays", sched.AtName("month_days")},
			{"schedule.schedule.monthlyOccurrences", sched.AtName("monthly_occurrences")},
			{"schedule.calendars", sched.AtName("calendars")},
			{"schedule.calendars.exclude", sched.AtName("calendars").AtListIndex(0).AtName("exclude")},
			{"schedule.calendars.onExcluded", sched.AtName("calendars").AtListIndex(0).AtName("on_excluded")},
			{"grace", path.Root("grace")},
			{"description", path.Root("description")},
			{"deadline", path.Root("max_duration")},
			{"paused", path.Root("paused")},
		},
		schema: schema.Schema{
			Description: "A heartbeat monitor: work outside Sked pings its URL on a schedule, and Sked raises an alert when an expected ping does not come.",
			Attributes: map[string]schema.Attribute{
				"id":        idAttr("workspace/name."),
				"workspace": optionalWorkspaceAttr(),
				"name":      keyAttr("The monitor's name."),
				"grace": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("PT5M"),
					Description: "How far a success ping may be from an expected time and still count, ISO 8601 from PT0S to P1D (default PT5M)."},
				"description": schema.StringAttribute{Optional: true, Description: "What the monitor watches."},
				"max_duration": schema.StringAttribute{Optional: true,
					Description: "How long a run may take from its start ping to its success ping, ISO 8601 from PT1S to P7D (the API's deadline.maxDuration); unset: no limit."},
				"paused": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
					Description: "A paused monitor keeps its pings but expects none and raises nothing (default false)."},
				"ping_url": schema.StringAttribute{Computed: true, Sensitive: true,
					PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
					Description:   "The URL the work pings on success (…/start and …/fail for a start and a failure). Sensitive: whoever holds it can ping."},
				"status": schema.StringAttribute{Computed: true,
					Description: "new, up, late, down or paused, as Sked last answered."},
			},
			Blocks: map[string]schema.Block{
				"schedule": schema.ListNestedBlock{
					Description:  "Required, exactly one: when pings are expected, as sked_job's recurrence block without count, end_time and window.",
					Validators:   []validator.List{listvalidator.IsRequired(), listvalidator.SizeAtMost(1)},
					NestedObject: schedule,
				},
			},
		},
	}
}

// ---- sked_target_limit ----

type targetLimitModel struct {
	ID            types.String `tfsdk:"id"`
	Workspace     types.String `tfsdk:"workspace"`
	Host          types.String `tfsdk:"host"`
	MaxConcurrent types.Int64  `tfsdk:"max_concurrent"`
	MaxPerSecond  types.Int64  `tfsdk:"max_per_second"`
}

func (m *targetLimitModel) key() (string, string) {
	return m.Workspace.ValueString(), m.Host.ValueString()
}
func (m *targetLimitModel) setID() {
	m.ID = types.StringValue(m.Workspace.ValueString() + "/" + m.Host.ValueString())
}
func (m *targetLimitModel) defaultWorkspace(ws string) {
	if !known(m.Workspace) {
		m.Workspace = types.StringValue(ws)
	}
}

func (m *targetLimitModel) body() any {
	b := map[string]any{}
	if known(m.MaxConcurrent) {
		b["maxConcurrent"] = m.MaxConcurrent.ValueInt64()
	}
	if known(m.MaxPerSecond) {
		b["maxPerSecond"] = m.MaxPerSecond.ValueInt64()
	}
	return b
}

func (m *targetLimitModel) fromAnswer(raw json.RawMessage) error {
	var a struct {
		Host          string `json:"host"`
		MaxConcurrent *int64 `json:"maxConcurrent"`
		MaxPerSecond  *int64 `json:"maxPerSecond"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return err
	}
	if !known(m.Host) || !sameTargetHost(m.Host.ValueString(), a.Host) {
		m.Host = types.StringValue(a.Host)
	}
	m.MaxConcurrent = types.Int64PointerValue(a.MaxConcurrent)
	m.MaxPerSecond = types.Int64PointerValue(a.MaxPerSecond)
	return nil
}

// sameTargetHost reports whether a and b name the same target as Sked
// compares them: case aside, and without the default ports :80 and :443.
func sameTargetHost(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		for _, p := range []string{":80", ":443"} {
			s = strings.TrimSuffix(s, p)
		}
		return s
	}
	return norm(a) == norm(b)
}

func newTargetLimitResource() resource.Resource {
	limit := func(desc, other string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Description: desc + " At least one of max_concurrent and max_per_second is set.",
			Validators: []validator.Int64{int64validator.AtLeastOneOf(path.MatchRoot(other))}}
	}
	return &v1Resource[targetLimitModel, *targetLimitModel]{
		typeName: "_target_limit", kind: "targets", what: "target limit", keyName: "host",
		rules: []fieldRule{
			{"host", path.Root("host")},
			{"maxConcurrent", path.Root("max_concurrent")},
			{"maxPerSecond", path.Root("max_per_second")},
		},
		schema: schema.Schema{
			Description: "A target limit: how many HTTP attempts of a workspace's jobs may go to one host at once, and how many may start per second.",
			Attributes: map[string]schema.Attribute{
				"id":        idAttr("workspace/host."),
				"workspace": optionalWorkspaceAttr(),
				"host": schema.StringAttribute{Required: true, Validators: notEmpty,
					Description:   "The host, or host:port (Sked compares it ignoring case, and without :80 and :443; the configuration's spelling is kept). Changing it replaces the resource.",
					PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
				"max_concurrent": limit("How many attempts may run against the host at once.", "max_per_second"),
				"max_per_second": limit("How many attempts may start against the host per second.", "max_concurrent"),
			},
		},
	}
}
