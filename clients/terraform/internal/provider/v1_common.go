package provider

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// v1Path is the escaped /api/v1 path of the segments.
func v1Path(segments ...string) string {
	var b strings.Builder
	b.WriteString("/api/v1")
	for _, s := range segments {
		b.WriteString("/")
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// splitID parses a "workspace/name" import id.
func splitID(id, second string) (string, string, error) {
	ws, name, ok := strings.Cut(strings.TrimSpace(id), "/")
	if !ok || ws == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%q is not an id of the form workspace/%s", id, second)
	}
	return ws, name, nil
}

// importWorkspaceName is the ImportState of the resources whose id is
// "workspace/name": it sets id, workspace and the name attribute.
func importWorkspaceName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, nameAttr string) {
	ws, name, err := splitID(req.ID, nameAttr)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ws+"/"+name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(nameAttr), name)...)
}

// idAttr, workspaceAttr and nameAttr are the attributes every workspace
// resource has.
func idAttr(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, Description: desc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

func keyAttr(desc string) schema.StringAttribute {
	return schema.StringAttribute{Required: true, Validators: notEmpty, Description: desc + " Changing it replaces the resource.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
}
