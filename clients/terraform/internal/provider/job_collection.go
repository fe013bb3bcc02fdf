package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// frequencies are the recurrence frequencies azurerm accepts (any case).
var frequencies = []string{"Minute", "Hour", "Day", "Week", "Month"}

// jobFrequencies are the frequencies of a job's recurrence: azurerm's and
// Sked's Second.
var jobFrequencies = append([]string{"Second"}, frequencies...)

// collectionModel is sked_job_collection, azurerm_scheduler_job_collection's
// attributes.
type collectionModel struct {
	ID                types.String   `tfsdk:"id"`
	Name              types.String   `tfsdk:"name"`
	ResourceGroupName types.String   `tfsdk:"resource_group_name"`
	Location          types.String   `tfsdk:"location"`
	Tags              types.Map      `tfsdk:"tags"`
	Sku               types.String   `tfsdk:"sku"`
	State             types.String   `tfsdk:"state"`
	Quota             []quotaModel   `tfsdk:"quota"`
	Timeouts          *timeoutsModel `tfsdk:"timeouts"`
}

type quotaModel struct {
	MaxJobCount            types.Int64  `tfsdk:"max_job_count"`
	MaxRecurrenceFrequency types.String `tfsdk:"max_recurrence_frequency"`
	MaxRetryInterval       types.Int64  `tfsdk:"max_retry_interval"`
	MaxRecurrenceInterval  types.Int64  `tfsdk:"max_recurrence_interval"`
}

// armCollection is the ARM job collection JSON.
type armCollection struct {
	ID         string            `json:"id,omitempty"`
	Name       string            `json:"name,omitempty"`
	Location   string            `json:"location,omitempty"`
	Tags       map[string]string `json:"tags"`
	Properties struct {
		Sku struct {
			Name string `json:"name"`
		} `json:"sku"`
		State string    `json:"state,omitempty"`
		Quota *armQuota `json:"quota,omitempty"`
	} `json:"properties"`
}

type armQuota struct {
	MaxJobCount   *int64 `json:"maxJobCount,omitempty"`
	MaxRecurrence *struct {
		Frequency string `json:"frequency,omitempty"`
		Interval  *int64 `json:"interval,omitempty"`
	} `json:"maxRecurrence,omitempty"`
}

// collectionFieldRules map a 400's field to the attribute.
var collectionFieldRules = []fieldRule{
	{"name", path.Root("name")},
	{"location", path.Root("location")},
	{"tags", path.Root("tags")},
	{"sku", path.Root("sku")},
	{"state", path.Root("state")},
	{"quota", path.Root("quota")},
	{"quota.maxJobCount", path.Root("quota").AtListIndex(0).AtName("max_job_count")},
	{"quota.maxRecurrence.frequency", path.Root("quota").AtListIndex(0).AtName("max_recurrence_frequency")},
	{"quota.maxRecurrence.interval", path.Root("quota").AtListIndex(0).AtName("max_recurrence_interval")},
}

type jobCollectionResource struct{ c *client }

func newJobCollectionResource() resource.Resource { return &jobCollectionResource{} }

var (
	_ resource.ResourceWithConfigure   = (*jobCollectionResource)(nil)
	_ resource.ResourceWithImportState = (*jobCollectionResource)(nil)
)

func (r *jobCollectionResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_collection"
}

func (r *jobCollectionResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c := configureResource(req, resp); c != nil {
		r.c = c
	}
}

func (r *jobCollectionResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{replaceUnlessSame(foldSame, "A new name (not only another case) replaces the collection.")}
	resp.Schema = schema.Schema{
		Description: "A Sked job collection, with the attributes of azurerm 1.x's azurerm_scheduler_job_collection.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The ARM id of the collection.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true, PlanModifiers: replace,
				Description: "The collection's name (1–100 letters, digits, hyphens and underscores, starting with a letter). Changing it replaces the collection.",
				Validators: []validator.String{stringvalidator.RegexMatches(collectionNamePattern,
					"must be 1 - 100 characters long, start with a letter and contain only letters, numbers, hyphens and underscores")},
			},
			"resource_group_name": schema.StringAttribute{
				Required: true, PlanModifiers: replace,
				Description: "The resource group; created by the first collection put into it. Changing it replaces the collection.",
			},
			"location": schema.StringAttribute{
				Required: true, PlanModifiers: []planmodifier.String{replaceUnlessSame(locationSame, "Another location (not only \"West US\" for \"westus\") replaces the collection.")},
				Description: "A location label, kept as given (Sked runs everything on its own server). Changing it replaces the collection.",
			},
			"tags": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Tags of the collection.",
			},
			"sku": schema.StringAttribute{
				Required:    true,
				Description: "Standard, Free, P10Premium or P20Premium (any case): the quotas' upper bounds.",
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("Standard", "Free", "P10Premium", "P20Premium")},
			},
			"state": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("Enabled"),
				Description: "Enabled (default), Disabled or Suspended (any case).",
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("Enabled", "Disabled", "Suspended")},
			},
		},
		Blocks: map[string]schema.Block{
			"quota": schema.ListNestedBlock{
				Description: "Lowers the SKU's quotas.",
				Validators:  []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"max_job_count": schema.Int64Attribute{
							Optional: true, Computed: true,
							Description:   "The most jobs the collection may hold (default: the SKU's).",
							Validators:    []validator.Int64{int64validator.AtLeast(0)},
							PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
						},
						"max_recurrence_frequency": schema.StringAttribute{
							Required:    true,
							Description: "The unit of the shortest allowed gap between runs: Minute, Hour, Day, Week or Month (any case).",
							Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive(frequencies...)},
						},
						"max_retry_interval": schema.Int64Attribute{
							Optional:           true,
							DeprecationMessage: "Renamed to max_recurrence_interval, as in azurerm.",
							Description:        "Deprecated alias of max_recurrence_interval.",
							Validators: []validator.Int64{int64validator.AtLeast(1),
								int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("max_recurrence_interval"))},
						},
						"max_recurrence_interval": schema.Int64Attribute{
							Optional: true, Computed: true,
							Description:   "How many max_recurrence_frequency units the shortest allowed gap between runs is.",
							Validators:    []validator.Int64{int64validator.AtLeast(1)},
							PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
						},
					},
				},
			},
			"timeouts": timeoutsBlock(),
		},
	}
}

// toAPI is the collection as Sked's PUT takes it.
func (m *collectionModel) toAPI() armCollection {
	var a armCollection
	a.Location = m.Location.ValueString()
	a.Tags = map[string]string{}
	for k, v := range m.Tags.Elements() {
		if s, ok := v.(types.String); ok {
			a.Tags[k] = s.ValueString()
		}
	}
	a.Properties.Sku.Name = m.Sku.ValueString()
	a.Properties.State = m.State.ValueString()
	if len(m.Quota) > 0 {
		q := m.Quota[0]
		aq := &armQuota{}
		if !q.MaxJobCount.IsNull() && !q.MaxJobCount.IsUnknown() {
			v := q.MaxJobCount.ValueInt64()
			aq.MaxJobCount = &v
		}
		aq.MaxRecurrence = &struct {
			Frequency string `json:"frequency,omitempty"`
			Interval  *int64 `json:"interval,omitempty"`
		}{Frequency: q.MaxRecurrenceFrequency.ValueString()}
		for _, iv := range []types.Int64{q.MaxRecurrenceInterval, q.MaxRetryInterval} {
			if !iv.IsNull() && !iv.IsUnknown() {
				v := iv.ValueInt64()
				aq.MaxRecurrence.Interval = &v
				break
			}
		}
		a.Properties.Quota = aq
	}
	return a
}

// skuDefaultQuota is the quota a SKU gives when the collection sets none.
func skuDefaultQuota(sku string) (jobs int64, freq string, interval int64) {
	switch strings.ToLower(sku) {
	case "free":
		return 5, "hour", 1
	case "p20premium":
		return 1000, "minute", 1
	default:
		return 50, "minute", 1
	}
}

// fromAPI fills the model from Sked's answer, keeping the prior spelling
// of values Sked stores in another case and leaving quota out when the
// configuration had none and Sked's is the SKU's default.
func (m *collectionModel) fromAPI(a armCollection, id armID) {
	prior := *m
	m.ID = types.StringValue(id.String())
	m.Name = spelling(prior.Name, a.Name)
	if a.Name == "" {
		m.Name = types.StringValue(id.Collection)
	}
	m.ResourceGroupName = spelling(prior.ResourceGroupName, id.ResourceGroup)
	m.Location = types.StringValue(a.Location)
	if known(prior.Location) && locationSame(prior.Location.ValueString(), a.Location) {
		m.Location = prior.Location
	}
	if len(a.Tags) == 0 && (prior.Tags.IsNull() || len(prior.Tags.Elements()) == 0) {
		m.Tags = prior.Tags
		if m.Tags.IsUnknown() {
			m.Tags = types.MapNull(types.StringType)
		}
	} else {
		m.Tags, _ = types.MapValueFrom(context.Background(), types.StringType, a.Tags)
	}
	m.Sku = spelling(prior.Sku, a.Properties.Sku.Name)
	m.State = spelling(prior.State, a.Properties.State)
	m.Quota = nil
	if q := a.Properties.Quota; q != nil {
		var jobs, interval int64
		var freq string
		if q.MaxJobCount != nil {
			jobs = *q.MaxJobCount
		}
		if r := q.MaxRecurrence; r != nil {
			freq = r.Frequency
			if r.Interval != nil {
				interval = *r.Interval
			}
		}
		dj, df, di := skuDefaultQuota(a.Properties.Sku.Name)
		isDefault := jobs == dj && strings.EqualFold(freq, df) && interval == di
		if len(prior.Quota) > 0 || !isDefault {
			qm := quotaModel{
				MaxJobCount:           types.Int64Value(jobs),
				MaxRetryInterval:      types.Int64Null(),
				MaxRecurrenceInterval: types.Int64Value(interval),
			}
			var pq quotaModel
			if len(prior.Quota) > 0 {
				pq = prior.Quota[0]
			}
			qm.MaxRecurrenceFrequency = spelling(pq.MaxRecurrenceFrequency, freq)
			if !pq.MaxRetryInterval.IsNull() && !pq.MaxRetryInterval.IsUnknown() {
				// The deprecated alias was used: keep it as written and
				// leave max_recurrence_interval as the user had it.
				qm.MaxRetryInterval = types.Int64Value(interval)
				qm.MaxRecurrenceInterval = pq.MaxRecurrenceInterval
				if qm.MaxRecurrenceInterval.IsUnknown() {
					qm.MaxRecurrenceInterval = types.Int64Value(interval)
				}
			}
			m.Quota = []quotaModel{qm}
		}
	}
}

func (r *jobCollectionResource) put(ctx context.Context, m *collectionModel, id armID) (armCollection, error) {
	var out armCollection
	err := r.c.arm(ctx, "PUT", id.collectionPath(), m.toAPI(), &out)
	return out, err
}

func (r *jobCollectionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m collectionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "create")
	defer cancel()
	id := armID{Workspace: r.c.workspaceOf(), ResourceGroup: m.ResourceGroupName.ValueString(), Collection: m.Name.ValueString()}
	// Like azurerm with its resource-import check: never take over a
	// collection someone else made; import it instead.
	var existing armCollection
	if err := r.c.arm(ctx, "GET", id.collectionPath(), nil, &existing); err == nil {
		resp.Diagnostics.AddError("Job collection already exists",
			fmt.Sprintf("A job collection with the id %q already exists: import it with `terraform import` to manage it.", id.String()))
		return
	} else if !isNotFound(err) {
		resp.Diagnostics.AddError("Checking for an existing job collection", err.Error())
		return
	}
	out, err := r.put(ctx, &m, id)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Creating the job collection", err, collectionFieldRules)
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *jobCollectionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m collectionModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "read")
	defer cancel()
	id, err := parseARMID(m.ID.ValueString(), false)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid job collection id", err.Error())
		return
	}
	var out armCollection
	if err := r.c.arm(ctx, "GET", id.collectionPath(), nil, &out); err != nil {
		if isNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Reading the job collection", err.Error())
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *jobCollectionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, prior collectionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "update")
	defer cancel()
	id, err := parseARMID(prior.ID.ValueString(), false)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid job collection id", err.Error())
		return
	}
	out, err := r.put(ctx, &m, id)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Updating the job collection", err, collectionFieldRules)
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *jobCollectionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m collectionModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, m.Timeouts, "delete")
	defer cancel()
	id, err := parseARMID(m.ID.ValueString(), false)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid job collection id", err.Error())
		return
	}
	if err := r.c.arm(ctx, "DELETE", id.collectionPath(), nil, nil); err != nil && !isNotFound(err) {
		resp.Diagnostics.AddError("Deleting the job collection", err.Error())
	}
}

func (r *jobCollectionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, err := parseARMID(req.ID, false)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), id.Collection)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("resource_group_name"), id.ResourceGroup)...)
}
