package web

import (
	"net/url"
	"strings"

	"sked/models/jobdef"
)

// The job form's deadline fields (SPEC §17.2): "Must succeed within"
// (deadline.succeedWithin) and "Alert if a run takes longer than"
// (deadline.maxDuration), both ISO 8601 durations, both optional.

// JobFormDeadline is the job form's deadline fields.
type JobFormDeadline struct {
	SucceedWithin, MaxDuration string
}

// readDeadline reads the posted deadline fields, trimmed.
func readDeadline(f url.Values) JobFormDeadline {
	return JobFormDeadline{SucceedWithin: strings.TrimSpace(f.Get("succeed_within")),
		MaxDuration: strings.TrimSpace(f.Get("max_duration"))}
}

// json is the job JSON's deadline object of the fields, nil when both
// are empty.
func (d JobFormDeadline) json() map[string]any {
	out := map[string]any{}
	if d.SucceedWithin != "" {
		out["succeedWithin"] = d.SucceedWithin
	}
	if d.MaxDuration != "" {
		out["maxDuration"] = d.MaxDuration
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// deadlineOf is the form's deadline fields of a parsed job.
func deadlineOf(job *jobdef.Job) JobFormDeadline {
	var d JobFormDeadline
	if dl := job.Deadline; dl != nil {
		if dl.SucceedWithin > 0 {
			d.SucceedWithin = jobdef.FormatISODuration(dl.SucceedWithin)
		}
		if dl.MaxDuration > 0 {
			d.MaxDuration = jobdef.FormatISODuration(dl.MaxDuration)
		}
	}
	return d
}
