// Package provider is the Sked Terraform provider: azurerm 1.x's scheduler
// resources under the names sked_job_collection and sked_job, Sked's
// workspaces, calendars, channels, alert rules, heartbeat monitors and
// target limits, all through Sked's REST API (never its database).
package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Address is the provider's source address.
const Address = "registry.terraform.io/sked/sked"

// skedProvider is the provider; its Configure hands a *client to every
// resource and data source.
type skedProvider struct {
	version string
}

// New returns a constructor of the provider, as providerserver wants it.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &skedProvider{version: version} }
}

type providerModel struct {
	Endpoint  types.String `tfsdk:"endpoint"`
	Token     types.String `tfsdk:"token"`
	Workspace types.String `tfsdk:"workspace"`
}

func (p *skedProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "sked"
	resp.Version = p.version
}

func (p *skedProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Manages Sked's job collections, jobs, workspaces, calendars, channels, alert rules, heartbeat monitors and target limits through its REST API.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				Optional:    true,
				Description: "Base URL of the Sked server, e.g. https://sked.example.com. Defaults to the SKED_ENDPOINT environment variable.",
			},
			"token": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "An API token (`sked token add USER` or the Tokens page). Defaults to the SKED_TOKEN environment variable.",
			},
			"workspace": schema.StringAttribute{
				Optional:    true,
				Description: "The workspace (the ARM subscription) new job collections and jobs go into. Defaults to SKED_WORKSPACE, else \"default\". Imported resources keep the workspace of their id.",
			},
		},
	}
}

func (p *skedProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Endpoint.IsUnknown() || m.Token.IsUnknown() || m.Workspace.IsUnknown() {
		// Known only after another resource is applied: configure later.
		return
	}
	endpoint := firstSet(m.Endpoint.ValueString(), os.Getenv("SKED_ENDPOINT"))
	token := firstSet(m.Token.ValueString(), os.Getenv("SKED_TOKEN"))
	workspace := firstSet(m.Workspace.ValueString(), os.Getenv("SKED_WORKSPACE"))
	if endpoint == "" {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "Missing Sked endpoint",
			"Set endpoint in the provider block or the SKED_ENDPOINT environment variable to the Sked server's base URL.")
		return
	}
	if token == "" {
		resp.Diagnostics.AddAttributeError(path.Root("token"), "Missing Sked API token",
			"Set token in the provider block or the SKED_TOKEN environment variable (`sked token add USER` creates one).")
		return
	}
	c, err := newClient(endpoint, token, workspace, p.version)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Sked provider configuration", err.Error())
		return
	}
	resp.ResourceData = c
	resp.DataSourceData = c
}

func (p *skedProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newJobCollectionResource,
		newJobResource,
		newWorkspaceResource,
		newWorkspaceMemberResource,
		newCalendarResource,
		newChannelResource,
		newAlertRuleResource,
		newMonitorResource,
		newTargetLimitResource,
	}
}

func (p *skedProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newJobCollectionDataSource,
		newJobDataSource,
	}
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
