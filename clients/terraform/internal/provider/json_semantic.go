package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// jsonArrayValidator checks that a value is a JSON array.
type jsonArrayValidator struct{}

func (jsonArrayValidator) Description(context.Context) string { return "must be a JSON array" }

func (v jsonArrayValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (jsonArrayValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	var a []json.RawMessage
	if err := json.Unmarshal([]byte(req.ConfigValue.ValueString()), &a); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid calendar entries", "entries must be a JSON array (use jsonencode([...])): "+err.Error())
	}
}
