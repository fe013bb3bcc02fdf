package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ---- sked_workspace ----

type workspaceModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	DisplayName types.String `tfsdk:"display_name"`
}

type apiWorkspace struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

type workspaceResource struct{ c *client }

func newWorkspaceResource() resource.Resource { return &workspaceResource{} }

func (r *workspaceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace"
}

func (r *workspaceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c := configureResource(req, resp); c != nil {
		r.c = c
	}
}

func (r *workspaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A Sked workspace (the ARM subscription of its collections); whoever creates it becomes its owner.",
		Attributes: map[string]schema.Attribute{
			"id":   idAttr("The workspace's name."),
			"name": keyAttr("The workspace's name, as ARM ids spell the subscription."),
			"display_name": schema.StringAttribute{Required: true, Validators: notEmpty,
				Description: "The name the pages show."},
		},
	}
}

func (r *workspaceResource) write(ctx context.Context, m *workspaceModel, diags *resourceDiags) {
	var out apiWorkspace
	err := r.c.do(ctx, "PUT", v1Path("workspaces", m.Name.ValueString()), nil, map[string]string{"displayName": m.DisplayName.ValueString()}, &out)
	if err != nil {
		addAPIError(diags.d, "Writing the workspace", err, []fieldRule{{"displayName", path.Root("display_name")}})
		return
	}
	m.ID = types.StringValue(m.Name.ValueString())
	m.DisplayName = types.StringValue(out.DisplayName)
}

func (r *workspaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.write(ctx, &m, &resourceDiags{&resp.Diagnostics})
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
}

func (r *workspaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.write(ctx, &m, &resourceDiags{&resp.Diagnostics})
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
}

func (r *workspaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var out apiWorkspace
	if err := r.c.do(ctx, "GET", v1Path("workspaces", m.ID.ValueString()), nil, nil, &out); err != nil {
		if isNotFound(err) || isForbidden(err) {
			// Sked answers 403 for a workspace that does not exist.
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Reading the workspace", err.Error())
		return
	}
	m.Name = spelling(m.Name, out.ID)
	m.DisplayName = types.StringValue(out.DisplayName)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *workspaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.c.do(ctx, "DELETE", v1Path("workspaces", m.ID.ValueString()), nil, nil, nil); err != nil && !isNotFound(err) {
		resp.Diagnostics.AddError("Deleting the workspace", err.Error())
	}
}

func (r *workspaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := strings.TrimSpace(req.ID)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), id)...)
}

// ---- sked_workspace_member ----

type memberModel struct {
	ID        types.String `tfsdk:"id"`
	Workspace types.String `tfsdk:"workspace"`
	Username  types.String `tfsdk:"username"`
	Role      types.String `tfsdk:"role"`
}

type apiMember struct {
	Username string `json:"username"`
	Role     string `json:"role"`
}

type memberResource struct{ c *client }

func newWorkspaceMemberResource() resource.Resource { return &memberResource{} }

func (r *memberResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace_member"
}

func (r *memberResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c := configureResource(req, resp); c != nil {
		r.c = c
	}
}

func (r *memberResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A user's role in a workspace.",
		Attributes: map[string]schema.Attribute{
			"id":        idAttr("workspace/username."),
			"workspace": keyAttr("The workspace."),
			"username":  keyAttr("The user (an existing Sked account)."),
			"role": schema.StringAttribute{Required: true,
				Description: "reader, operator, editor or owner (any case).",
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("reader", "operator", "editor", "owner")}},
		},
	}
}

func (r *memberResource) write(ctx context.Context, m *memberModel, diags *resourceDiags) {
	var out apiMember
	err := r.c.do(ctx, "PUT", v1Path("workspaces", m.Workspace.ValueString(), "members", m.Username.ValueString()), nil,
		map[string]string{"role": m.Role.ValueString()}, &out)
	if err != nil {
		addAPIError(diags.d, "Writing the workspace member", err, []fieldRule{{"role", path.Root("role")}, {"username", path.Root("username")}})
		return
	}
	m.ID = types.StringValue(m.Workspace.ValueString() + "/" + m.Username.ValueString())
	m.Role = spelling(m.Role, out.Role)
}

func (r *memberResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m memberModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.write(ctx, &m, &resourceDiags{&resp.Diagnostics})
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
}

func (r *memberResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m memberModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.write(ctx, &m, &resourceDiags{&resp.Diagnostics})
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
}

func (r *memberResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m memberModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var out struct {
		Value []apiMember `json:"value"`
	}
	if err := r.c.do(ctx, "GET", v1Path("workspaces", m.Workspace.ValueString(), "members"), nil, nil, &out); err != nil {
		if isNotFound(err) || isForbidden(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Reading the workspace members", err.Error())
		return
	}
	for _, mem := range out.Value {
		if strings.EqualFold(mem.Username, m.Username.ValueString()) {
			m.Role = spelling(m.Role, mem.Role)
			resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
			return
		}
	}
	resp.State.RemoveResource(ctx)
}

func (r *memberResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m memberModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.c.do(ctx, "DELETE", v1Path("workspaces", m.Workspace.ValueString(), "members", m.Username.ValueString()), nil, nil, nil)
	if err != nil && !isNotFound(err) {
		resp.Diagnostics.AddError("Removing the workspace member", err.Error())
	}
}

func (r *memberResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importWorkspaceName(ctx, req, resp, "username")
}
