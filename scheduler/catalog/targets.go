package catalog

import (
	"net/netip"

	"sked/models/jobdef"
	"sked/scheduler/action"
)

// TargetWarnings returns a warning for each HTTP target of the job (its
// action and error action) whose URL names a literal address the engine
// will refuse to call (loopback, private, link-local …) unless allow lets
// it through. The preview shows them; saving such a job is allowed (the
// engine's check on the address actually dialled decides).
func TargetWarnings(job *jobdef.Job, allow []netip.Prefix) []string {
	var out []string
	for a, path := job.Action, "action"; a != nil; a, path = a.ErrorAction, path+".errorAction" {
		if a.Request == nil {
			continue
		}
		if w := action.CheckLiteralTarget(a.Request.URI, allow); w != "" {
			out = append(out, path+".request.uri: "+w)
		}
	}
	return out
}
