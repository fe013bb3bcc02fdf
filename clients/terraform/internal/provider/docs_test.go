package provider

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite clients/terraform/docs from the provider's schemas")

// docExamples are the example configurations of the registry pages.
var docExamples = map[string]string{
	"sked_job_collection": `resource "sked_job_collection" "jobs" {
  name                = "example_job_collection"
  location            = "West US"
  resource_group_name = "tfex-job_collection"
  sku                 = "free"
  state               = "enabled"

  quota {
    max_job_count            = 5
    max_recurrence_interval  = 24
    max_recurrence_frequency = "hour"
  }
}`,
	"sked_job": `resource "sked_job" "web-recurring-daily" {
  name                = "tfex-web-recurring-daily"
  resource_group_name = sked_job_collection.example.resource_group_name
  job_collection_name = sked_job_collection.example.name

  action_web {
    url    = "https://example.com/nightly"
    method = "put"
    body   = "this is some text"
    headers = {
      Content-Type = "text"
    }
    authentication_basic {
      username = "login"
      password = var.password
    }
  }

  retry {
    interval = "00:05:00"
    count    = 10
  }

  recurrence {
    frequency = "week"
    week_days = ["Monday", "Thursday"]
    hours     = [6]
    minutes   = [30]
    time_zone = "Europe/Berlin" # Sked extension
  }

  start_time = "2018-07-07T07:07:07-07:00"
}`,
	"sked_workspace": `resource "sked_workspace" "team" {
  name         = "team-a"
  display_name = "Team A"
}`,
	"sked_workspace_member": `resource "sked_workspace_member" "bob" {
  workspace = sked_workspace.team.name
  username  = "bob"
  role      = "operator"
}`,
	"sked_calendar": `resource "sked_calendar" "holidays" {
  workspace = "default"
  name      = "holidays-de"
  time_zone = "Europe/Berlin"
  entries = jsonencode([
    { date = "2026-12-25", label = "Christmas" },
    { yearly = "01-01", label = "New Year" },
  ])
}`,
	"sked_channel": `resource "sked_channel" "ops" {
  workspace = "default"
  name      = "ops"
  type      = "webhook"
  url       = "https://hooks.example.com/sked"
}`,
	"sked_alert_rule": `resource "sked_alert_rule" "failures" {
  workspace = "default"
  name      = "nightly-failures"
  channel   = sked_channel.ops.name
  events    = ["occurrenceFaulted", "consecutiveFailures"]
  threshold = 3
  scope {
    resource_group = "nightly"
  }
}`,
	"data.sked_job": `data "sked_job" "nightly" {
  name                = "tfex-web-recurring-daily"
  resource_group_name = "tfex"
  job_collection_name = "example"
}`,
	"data.sked_job_collection": `data "sked_job_collection" "example" {
  name                = "example"
  resource_group_name = "tfex"
}`,
}

// docImports are the import ids of each resource.
var docImports = map[string]string{
	"sked_job_collection":   "/subscriptions/default/resourceGroups/tfex/providers/Microsoft.Scheduler/jobCollections/example",
	"sked_job":              "/subscriptions/default/resourceGroups/tfex/providers/Microsoft.Scheduler/jobCollections/example/jobs/nightly",
	"sked_workspace":        "team-a",
	"sked_workspace_member": "team-a/bob",
	"sked_calendar":         "default/holidays-de",
	"sked_channel":          "default/ops",
	"sked_alert_rule":       "default/nightly-failures",
}

// schemaLine is one attribute of a page.
type schemaLine struct {
	path, kind, desc                        string
	required, computed, optional, sensitive bool
}

func rLines(prefix string, attrs map[string]rschema.Attribute, blocks map[string]rschema.Block, out *[]schemaLine) {
	for name, a := range attrs {
		*out = append(*out, schemaLine{path: prefix + name, kind: strings.TrimSuffix(fmt.Sprintf("%T", a), "Attribute"),
			desc: a.GetDescription(), required: a.IsRequired(), optional: a.IsOptional(), computed: a.IsComputed(), sensitive: a.IsSensitive()})
	}
	for name, b := range blocks {
		kind := "Block"
		switch b := b.(type) {
		case rschema.ListNestedBlock:
			kind = "Block List"
			rLines(prefix+name+".", b.NestedObject.Attributes, b.NestedObject.Blocks, out)
		case rschema.SetNestedBlock:
			kind = "Block Set"
			rLines(prefix+name+".", b.NestedObject.Attributes, b.NestedObject.Blocks, out)
		case rschema.SingleNestedBlock:
			rLines(prefix+name+".", b.Attributes, b.Blocks, out)
		}
		*out = append(*out, schemaLine{path: prefix + name, kind: kind, desc: b.GetDescription(), optional: true})
	}
}

func dLines(prefix string, attrs map[string]dschema.Attribute, out *[]schemaLine) {
	for name, a := range attrs {
		*out = append(*out, schemaLine{path: prefix + name, kind: strings.TrimSuffix(fmt.Sprintf("%T", a), "Attribute"),
			desc: a.GetDescription(), required: a.IsRequired(), optional: a.IsOptional(), computed: a.IsComputed(), sensitive: a.IsSensitive()})
		switch a := a.(type) {
		case dschema.ListNestedAttribute:
			dLines(prefix+name+".", a.NestedObject.Attributes, out)
		case dschema.SetNestedAttribute:
			dLines(prefix+name+".", a.NestedObject.Attributes, out)
		case dschema.SingleNestedAttribute:
			dLines(prefix+name+".", a.Attributes, out)
		}
	}
}

func renderPage(typeName, kind, desc string, lines []schemaLine) string {
	sort.Slice(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	var b strings.Builder
	fmt.Fprintf(&b, "---\npage_title: %q\nsubcategory: \"\"\ndescription: |-\n  %s\n---\n\n", typeName+" "+kind+" - sked", desc)
	fmt.Fprintf(&b, "<!-- Generated from the provider's schema: go test ./internal/provider -run TestRegistryDocs -update-docs -->\n\n")
	fmt.Fprintf(&b, "# %s (%s)\n\n%s\n\n", typeName, kind, desc)
	key := typeName
	if kind == "Data Source" {
		key = "data." + typeName
	}
	if ex := docExamples[key]; ex != "" {
		fmt.Fprintf(&b, "## Example Usage\n\n```terraform\n%s\n```\n\n", ex)
	}
	b.WriteString("## Schema\n\n")
	for _, l := range lines {
		var flags []string
		switch {
		case l.required:
			flags = append(flags, "Required")
		case l.optional && l.computed:
			flags = append(flags, "Optional, Computed")
		case l.optional:
			flags = append(flags, "Optional")
		case l.computed:
			flags = append(flags, "Read-Only")
		}
		if l.sensitive {
			flags = append(flags, "Sensitive")
		}
		kindName := strings.TrimPrefix(l.kind, "schema.")
		fmt.Fprintf(&b, "- `%s` (%s; %s)", l.path, kindName, strings.Join(flags, ", "))
		if l.desc != "" {
			fmt.Fprintf(&b, " %s", l.desc)
		}
		b.WriteString("\n")
	}
	if id := docImports[typeName]; id != "" && kind == "Resource" {
		fmt.Fprintf(&b, "\n## Import\n\n```shell\nterraform import %s.example %s\n```\n", typeName, id)
	}
	return b.String()
}

// TestRegistryDocs fails when clients/terraform/docs (the registry's
// layout: resources/, data-sources/) does not match the schemas.
func TestRegistryDocs(t *testing.T) {
	ctx := context.Background()
	p := New("docs")()
	pages := map[string]string{}
	for _, f := range p.Resources(ctx) {
		r := f()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "sked"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		var lines []schemaLine
		rLines("", sr.Schema.Attributes, sr.Schema.Blocks, &lines)
		pages[filepath.Join("resources", strings.TrimPrefix(md.TypeName, "sked_")+".md")] = renderPage(md.TypeName, "Resource", sr.Schema.Description, lines)
	}
	for _, f := range p.DataSources(ctx) {
		d := f()
		var md datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "sked"}, &md)
		var sr datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &sr)
		var lines []schemaLine
		dLines("", sr.Schema.Attributes, &lines)
		pages[filepath.Join("data-sources", strings.TrimPrefix(md.TypeName, "sked_")+".md")] = renderPage(md.TypeName, "Data Source", sr.Schema.Description, lines)
	}
	dir := filepath.Join("..", "..", "docs")
	for name, want := range pages {
		file := filepath.Join(dir, name)
		if *updateDocs {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != want {
			t.Errorf("%s is not the schema's (err %v): run go test ./internal/provider -run TestRegistryDocs -update-docs", file, err)
		}
	}
}
