package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// configured takes the provider's client out of ProviderData (nil before
// the provider is configured, as during validation).
func configured(data any, report func(summary, detail string)) *client {
	if data == nil {
		return nil
	}
	c, ok := data.(*client)
	if !ok {
		report("Unexpected provider data", fmt.Sprintf("want *client, got %T: please report this bug", data))
		return nil
	}
	return c
}

func configureResource(req resource.ConfigureRequest, resp *resource.ConfigureResponse) *client {
	return configured(req.ProviderData, resp.Diagnostics.AddError)
}

func configureDataSource(req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) *client {
	return configured(req.ProviderData, resp.Diagnostics.AddError)
}

// timeoutsModel is azurerm's timeouts block: how long each operation may
// take, as Go durations ("30m"); unset means the default.
type timeoutsModel struct {
	Create types.String `tfsdk:"create"`
	Read   types.String `tfsdk:"read"`
	Update types.String `tfsdk:"update"`
	Delete types.String `tfsdk:"delete"`
}

// timeoutsBlock is the schema of the timeouts block.
func timeoutsBlock() schema.SingleNestedBlock {
	attr := func(op string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: "How long " + op + " may take, e.g. \"30m\" (default 5 minutes)."}
	}
	return schema.SingleNestedBlock{
		Description: "Operation timeouts, as in azurerm.",
		Attributes: map[string]schema.Attribute{
			"create": attr("creating"),
			"read":   attr("reading"),
			"update": attr("updating"),
			"delete": attr("deleting"),
		},
	}
}

// withTimeout bounds ctx by the timeout of one operation (5 minutes when
// unset or unparsable; the block's values are checked by Terraform's plan).
func withTimeout(ctx context.Context, t *timeoutsModel, op string) (context.Context, context.CancelFunc) {
	d := 5 * time.Minute
	if t != nil {
		var v types.String
		switch op {
		case "create":
			v = t.Create
		case "read":
			v = t.Read
		case "update":
			v = t.Update
		case "delete":
			v = t.Delete
		}
		if p, err := time.ParseDuration(v.ValueString()); err == nil && p > 0 {
			d = p
		}
	}
	return context.WithTimeout(ctx, d)
}

// resourceDiags lets helpers add to a response's diagnostics.
type resourceDiags struct{ d *diag.Diagnostics }
