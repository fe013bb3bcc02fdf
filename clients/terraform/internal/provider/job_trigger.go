package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// sked_job's trigger block (Sked extension, properties.trigger): the job
// runs after other jobs of its workspace instead of on a schedule.

// triggerModel is the trigger block.
type triggerModel struct {
	After  types.List   `tfsdk:"after"`
	On     types.String `tfsdk:"on"`
	Within types.String `tfsdk:"within"`
}

// armTrigger is properties.trigger.
type armTrigger struct {
	After  []string `json:"after"`
	On     string   `json:"on,omitempty"`
	Within string   `json:"within,omitempty"`
}

// triggerBlock is the schema of the trigger block.
func triggerBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		Description: "Run after other jobs of the workspace instead of on a schedule (Sked extension; not with recurrence). " +
			"Sked refuses jobs it lacks, cycles, and deleting an upstream while this job runs after it.",
		Validators: append(oneBlock(), listvalidator.ConflictsWith(path.MatchRoot("recurrence"))),
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"after": schema.ListAttribute{Required: true, ElementType: types.StringType,
				Validators:  []validator.List{listvalidator.SizeBetween(1, 20)},
				Description: "The upstream jobs, each resource_group/job_collection/job."},
			"on": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("succeeded"),
				Validators:  []validator.String{stringvalidator.OneOfCaseInsensitive("succeeded", "failed", "finished")},
				Description: "succeeded (default), failed or finished: which ends of an upstream run count."},
			"within": schema.StringAttribute{Optional: true,
				Description: "With several upstream jobs: an ISO 8601 duration (default PT24H) within which all of them must have ended."},
		}},
	}
}

// triggerToAPI is the trigger block as Sked takes it.
func triggerToAPI(t triggerModel) *armTrigger {
	var after []string
	_ = t.After.ElementsAs(context.Background(), &after, false)
	return &armTrigger{After: after, On: t.On.ValueString(), Within: t.Within.ValueString()}
}

// triggerFromAPI is Sked's trigger as the block, keeping the prior
// spelling of names and values that differ only in case.
func triggerFromAPI(a *armTrigger, prior []triggerModel) []triggerModel {
	if a == nil {
		return nil
	}
	var pr triggerModel
	if len(prior) > 0 {
		pr = prior[0]
	}
	var before []string
	if !pr.After.IsNull() && !pr.After.IsUnknown() {
		_ = pr.After.ElementsAs(context.Background(), &before, false)
	}
	vals := make([]types.String, len(a.After))
	for i, s := range a.After {
		p := types.StringNull()
		if i < len(before) {
			p = types.StringValue(before[i])
		}
		vals[i] = spelling(p, s)
	}
	elems := make([]attr.Value, len(vals))
	for i, v := range vals {
		elems[i] = v
	}
	on := a.On
	if on == "" {
		on = "succeeded"
	}
	list, _ := types.ListValue(types.StringType, elems)
	return []triggerModel{{After: list, On: spelling(pr.On, on), Within: optSpelling(pr.Within, a.Within)}}
}
