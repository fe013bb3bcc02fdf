package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// dataSourceSchema turns a resource's schema into the schema of the data
// source that reads the same object: the lookup attributes required,
// everything else computed, blocks as computed nested attributes. The data
// source's model is the resource's.
func dataSourceSchema(rs rschema.Schema, lookup ...string) dschema.Schema {
	isLookup := map[string]bool{}
	for _, l := range lookup {
		isLookup[l] = true
	}
	out := dschema.Schema{Description: rs.Description, Attributes: map[string]dschema.Attribute{}}
	for name, a := range rs.Attributes {
		out.Attributes[name] = dsAttribute(a, isLookup[name])
	}
	for name, b := range rs.Blocks {
		out.Attributes[name] = dsBlock(b)
	}
	return out
}

func dsAttribute(a rschema.Attribute, required bool) dschema.Attribute {
	computed := !required
	switch a := a.(type) {
	case rschema.StringAttribute:
		return dschema.StringAttribute{Required: required, Computed: computed, Sensitive: a.Sensitive, Description: a.Description}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{Required: required, Computed: computed, Description: a.Description}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{Required: required, Computed: computed, Description: a.Description}
	case rschema.MapAttribute:
		return dschema.MapAttribute{Computed: true, ElementType: a.ElementType, Description: a.Description}
	case rschema.SetAttribute:
		return dschema.SetAttribute{Computed: true, ElementType: a.ElementType, Description: a.Description}
	case rschema.ListAttribute:
		return dschema.ListAttribute{Computed: true, ElementType: a.ElementType, Description: a.Description}
	}
	panic(fmt.Sprintf("dataSourceSchema: attribute type %T not handled", a))
}

func dsObject(attrs map[string]rschema.Attribute, blocks map[string]rschema.Block) dschema.NestedAttributeObject {
	o := dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{}}
	for n, a := range attrs {
		o.Attributes[n] = dsAttribute(a, false)
	}
	for n, b := range blocks {
		o.Attributes[n] = dsBlock(b)
	}
	return o
}

func dsBlock(b rschema.Block) dschema.Attribute {
	switch b := b.(type) {
	case rschema.ListNestedBlock:
		return dschema.ListNestedAttribute{Computed: true, Description: b.Description,
			NestedObject: dsObject(b.NestedObject.Attributes, b.NestedObject.Blocks)}
	case rschema.SetNestedBlock:
		return dschema.SetNestedAttribute{Computed: true, Description: b.Description,
			NestedObject: dsObject(b.NestedObject.Attributes, b.NestedObject.Blocks)}
	case rschema.SingleNestedBlock:
		o := dsObject(b.Attributes, b.Blocks)
		return dschema.SingleNestedAttribute{Computed: true, Description: b.Description, Attributes: o.Attributes}
	}
	panic(fmt.Sprintf("dataSourceSchema: block type %T not handled", b))
}

// ---- sked_job_collection ----

type jobCollectionDataSource struct{ c *client }

func newJobCollectionDataSource() datasource.DataSource { return &jobCollectionDataSource{} }

func (d *jobCollectionDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_collection"
}

func (d *jobCollectionDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c := configureDataSource(req, resp); c != nil {
		d.c = c
	}
}

func (d *jobCollectionDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	var rs resource.SchemaResponse
	(&jobCollectionResource{}).Schema(ctx, resource.SchemaRequest{}, &rs)
	resp.Schema = dataSourceSchema(rs.Schema, "name", "resource_group_name")
	resp.Schema.Description = "Reads a job collection of the provider's workspace."
}

func (d *jobCollectionDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m collectionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := armID{Workspace: d.c.workspaceOf(), ResourceGroup: m.ResourceGroupName.ValueString(), Collection: m.Name.ValueString()}
	var out armCollection
	if err := d.c.arm(ctx, "GET", id.collectionPath(), nil, &out); err != nil {
		resp.Diagnostics.AddError("Reading the job collection", err.Error())
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// ---- sked_job ----

type jobDataSource struct{ c *client }

func newJobDataSource() datasource.DataSource { return &jobDataSource{} }

func (d *jobDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job"
}

func (d *jobDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if c := configureDataSource(req, resp); c != nil {
		d.c = c
	}
}

func (d *jobDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dataSourceSchema(jobSchema(), "name", "resource_group_name", "job_collection_name")
	resp.Schema.Description = "Reads a job of the provider's workspace (secrets are never returned: they are null)."
}

func (d *jobDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m jobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := armID{Workspace: d.c.workspaceOf(), ResourceGroup: m.ResourceGroupName.ValueString(),
		Collection: m.JobCollectionName.ValueString(), Job: m.Name.ValueString()}
	var out armJob
	if err := d.c.arm(ctx, "GET", id.jobPath(), nil, &out); err != nil {
		resp.Diagnostics.AddError("Reading the job", err.Error())
		return
	}
	m.fromAPI(out, id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
