package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// armID is a parsed ARM id of a job collection or job.
type armID struct {
	Workspace, ResourceGroup, Collection, Job string
}

var armIDPattern = regexp.MustCompile(`(?i)^/subscriptions/([^/]+)/resourceGroups/([^/]+)/providers/Microsoft\.Scheduler/jobCollections/([^/]+)(?:/jobs/([^/]+))?/?$`)

// parseARMID parses a collection id (wantJob false) or a job id.
func parseARMID(id string, wantJob bool) (armID, error) {
	m := armIDPattern.FindStringSubmatch(strings.TrimSpace(id))
	if m == nil || (m[4] != "") != wantJob {
		want := "/subscriptions/{workspace}/resourceGroups/{group}/providers/Microsoft.Scheduler/jobCollections/{collection}"
		if wantJob {
			want += "/jobs/{job}"
		}
		return armID{}, fmt.Errorf("%q is not an ARM id of the form %s", id, want)
	}
	unesc := func(s string) string {
		if u, err := url.PathUnescape(s); err == nil {
			return u
		}
		return s
	}
	return armID{unesc(m[1]), unesc(m[2]), unesc(m[3]), unesc(m[4])}, nil
}

// collectionPath is the escaped ARM path of the collection.
func (a armID) collectionPath() string {
	return "/subscriptions/" + url.PathEscape(a.Workspace) + "/resourceGroups/" + url.PathEscape(a.ResourceGroup) +
		"/providers/Microsoft.Scheduler/jobCollections/" + url.PathEscape(a.Collection)
}

// jobPath is the escaped ARM path of the job.
func (a armID) jobPath() string {
	return a.collectionPath() + "/jobs/" + url.PathEscape(a.Job)
}

// String is the canonical id Terraform keeps in state.
func (a armID) String() string {
	s := "/subscriptions/" + a.Workspace + "/resourceGroups/" + a.ResourceGroup + "/providers/Microsoft.Scheduler/jobCollections/" + a.Collection
	if a.Job != "" {
		s += "/jobs/" + a.Job
	}
	return s
}

// fieldRule maps a Sked field path (as a 400 names it, without
// "properties." and indices) to the attribute it comes from.
type fieldRule struct {
	api string
	tf  path.Path
}

var indexPattern = regexp.MustCompile(`\[\d+\]`)

// addAPIError turns an error from Sked into diagnostics: each problem of a
// 400 on the attribute it names (the longest rule whose api path is a
// prefix of the problem's target), everything else as one error.
func addAPIError(diags *diag.Diagnostics, summary string, err error, rules []fieldRule) {
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status != 400 || len(ae.Details) == 0 {
		diags.AddError(summary, err.Error())
		return
	}
	for _, d := range ae.Details {
		target := strings.TrimPrefix(d.Target, "properties.")
		target = indexPattern.ReplaceAllString(target, "")
		best := -1
		for i, r := range rules {
			if (target == r.api || strings.HasPrefix(target, r.api+".")) && (best < 0 || len(r.api) > len(rules[best].api)) {
				best = i
			}
		}
		msg := d.Message
		if msg == "" {
			msg = ae.Message
		}
		if best < 0 {
			diags.AddError(summary, "Sked refused the request: "+msg)
			continue
		}
		diags.AddAttributeError(rules[best].tf, summary, "Sked refused the value: "+msg)
	}
}

// spelling returns prior when it equals api ignoring case (so that the
// user's spelling, e.g. "week" or "Standard", stays in state), else api.
func spelling(prior types.String, api string) types.String {
	if !prior.IsNull() && !prior.IsUnknown() && strings.EqualFold(prior.ValueString(), api) {
		return prior
	}
	return types.StringValue(api)
}

// optSpelling is spelling for an optional value: "" from Sked is null.
func optSpelling(prior types.String, api string) types.String {
	if api == "" {
		return types.StringNull()
	}
	return spelling(prior, api)
}

// sameInstant returns prior when it is the same instant as api (RFC 3339
// text in another offset or precision), else api; "" from Sked is null.
func sameInstant(prior types.String, api string) types.String {
	if api == "" {
		return types.StringNull()
	}
	if !prior.IsNull() && !prior.IsUnknown() {
		p, err1 := time.Parse(time.RFC3339, prior.ValueString())
		a, err2 := time.Parse(time.RFC3339, api)
		if err1 == nil && err2 == nil && p.Equal(a) {
			return prior
		}
	}
	return types.StringValue(api)
}

// optString is a Go string as an optional attribute: "" is null.
func optString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// sameFoldSet reports whether two string lists hold the same values ignoring
// case and order.
func sameFoldSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x := make([]string, len(a))
	y := make([]string, len(b))
	for i := range a {
		x[i], y[i] = strings.ToLower(a[i]), strings.ToLower(b[i])
	}
	sort.Strings(x)
	sort.Strings(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// collectionNamePattern is azurerm's rule for collection names.
var collectionNamePattern = regexp.MustCompile(`^[a-zA-Z][-_a-zA-Z0-9]{0,99}$`)

// jobNamePattern is azurerm's rule for job names.
var jobNamePattern = regexp.MustCompile(`^[a-zA-Z][-_a-zA-Z0-9].*$`)

// httpURLPattern accepts http and https URLs (any case).
var httpURLPattern = regexp.MustCompile(`(?i)^https?://[^\s]+$`)

// defaultAudience is azurerm's default audience of Active Directory
// authentication (the service management endpoint).
const defaultAudience = "https://management.core.windows.net/"

// pathExpr is a sibling attribute, for ConflictsWith inside a block.
func pathExpr(name string) path.Expression {
	return path.MatchRelative().AtParent().AtName(name)
}

// normalizeLocation is azurerm's comparison of locations: "West US" and
// "westus" are the same.
func normalizeLocation(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}

// replaceUnlessSame forces a new resource when a name changes, but not when
// only its spelling does as same compares it (Sked's names are
// case-insensitive): that is an in-place update.
func replaceUnlessSame(same func(a, b string) bool, desc string) planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = !same(req.StateValue.ValueString(), req.PlanValue.ValueString())
	}, desc, desc)
}

// foldSame and locationSame are the comparisons of replaceUnlessSame.
func foldSame(a, b string) bool     { return strings.EqualFold(a, b) }
func locationSame(a, b string) bool { return normalizeLocation(a) == normalizeLocation(b) }
