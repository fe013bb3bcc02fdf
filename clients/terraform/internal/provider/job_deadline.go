package provider

import (
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// sked_job's deadline block (Sked extension, SPEC §17.2): properties.deadline.

// deadlineModel is the deadline block.
type deadlineModel struct {
	SucceedWithin types.String `tfsdk:"succeed_within"`
	MaxDuration   types.String `tfsdk:"max_duration"`
}

// armDeadline is properties.deadline.
type armDeadline struct {
	SucceedWithin string `json:"succeedWithin,omitempty"`
	MaxDuration   string `json:"maxDuration,omitempty"`
}

// deadlineBlock is the deadline block's schema.
func deadlineBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		Description: "When a run must have succeeded, and how long one attempt may take, before Sked raises the alert events deadlineMissed and slowRun (Sked extension).",
		Validators:  oneBlock(),
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"succeed_within": schema.StringAttribute{Optional: true,
				Description: "An ISO 8601 duration (PT1M to P7D): a run that has not succeeded this long after its due time, retries included, raises deadlineMissed."},
			"max_duration": schema.StringAttribute{Optional: true,
				Description: "An ISO 8601 duration (PT1S up to the action's timeout): an attempt still running this long after it started raises slowRun."},
		}},
	}
}

// deadlineToAPI is the block as Sked takes it; nil without one.
func deadlineToAPI(ms []deadlineModel) *armDeadline {
	if len(ms) == 0 {
		return nil
	}
	d := &armDeadline{SucceedWithin: ms[0].SucceedWithin.ValueString(), MaxDuration: ms[0].MaxDuration.ValueString()}
	if *d == (armDeadline{}) {
		return nil
	}
	return d
}

// deadlineFromAPI is the block from Sked's answer, keeping the prior
// spelling of a duration Sked writes in another form (PT120M as PT2H).
func deadlineFromAPI(d *armDeadline, prior []deadlineModel) []deadlineModel {
	if d == nil {
		return nil
	}
	var p deadlineModel
	if len(prior) > 0 {
		p = prior[0]
	}
	return []deadlineModel{{SucceedWithin: sameDuration(p.SucceedWithin, d.SucceedWithin),
		MaxDuration: sameDuration(p.MaxDuration, d.MaxDuration)}}
}

// deadlineFieldRules map the deadline's 400s to its attributes.
func deadlineFieldRules() []fieldRule {
	b := path.Root("deadline").AtListIndex(0)
	return []fieldRule{
		{"deadline", path.Root("deadline")},
		{"deadline.succeedWithin", b.AtName("succeed_within")},
		{"deadline.maxDuration", b.AtName("max_duration")},
	}
}

// sameDuration returns prior when it is the same ISO 8601 duration as api
// (in days, hours, minutes and seconds), else api; "" from Sked is null.
func sameDuration(prior types.String, api string) types.String {
	if api == "" {
		return types.StringNull()
	}
	if known(prior) {
		a, okA := isoSeconds(api)
		b, okB := isoSeconds(prior.ValueString())
		if okA && okB && a == b {
			return prior
		}
	}
	return types.StringValue(api)
}

// isoSeconds reads an ISO 8601 duration of weeks, days, hours, minutes
// and whole seconds ("P1DT2H", "PT90M").
func isoSeconds(s string) (time.Duration, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if !strings.HasPrefix(s, "P") || len(s) < 3 {
		return 0, false
	}
	units := map[bool]map[byte]time.Duration{
		false: {'W': 7 * 24 * time.Hour, 'D': 24 * time.Hour},
		true:  {'H': time.Hour, 'M': time.Minute, 'S': time.Second},
	}
	var total time.Duration
	inTime, num := false, ""
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 'T' && !inTime && num == "":
			inTime = true
		case c >= '0' && c <= '9':
			num += string(c)
		default:
			u, ok := units[inTime][c]
			n, err := strconv.Atoi(num)
			if !ok || err != nil {
				return 0, false
			}
			total += time.Duration(n) * u
			num = ""
		}
	}
	return total, num == ""
}
