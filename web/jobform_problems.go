package web

import (
	"strings"

	"sked/models/problem"
)

// jobFormLabels maps a job JSON path (without indexes) to the label of the
// job form's field that edits it. Longer paths are looked up first, then
// their parents, so "action.request.authentication.password" may have its
// own label and "action.request.authentication.tenant" falls back to
// "Authentication".
var jobFormLabels = map[string]string{
	"jobName":                                "Job name",
	"action":                                 "Action",
	"action.type":                            "Type",
	"action.request":                         "Action",
	"action.request.uri":                     "URL",
	"action.request.method":                  "Method",
	"action.request.headers":                 "Headers",
	"action.request.body":                    "Body",
	"action.request.authentication":          "Authentication",
	"action.request.authentication.username": "User name",
	"action.request.authentication.password": "Password",
	"action.request.authentication.pfx":      "Certificate",
	"action.request.authentication.tenant":   "Tenant",
	"action.request.authentication.audience": "Audience",
	"action.request.authentication.clientId": "Client id",
	"action.request.authentication.secret":   "Client secret",
	"action.retryPolicy":                     "Retries",
	"action.retryPolicy.retryType":           "Retries",
	"action.retryPolicy.retryInterval":       "Retry interval",
	"action.retryPolicy.retryCount":          "Retry count",
	"action.retryPolicy.maxRetryInterval":    "Longest wait",
	"action.timeout":                         "Timeout per attempt",
	"action.errorAction":                     "Error action",
	"action.errorAction.request.uri":         "Error action URL",
	"action.errorAction.request.method":      "Error action method",
	"action.errorAction.request.body":        "Error action body",
	"startTime":                              "Start time",
	"state":                                  "State",
	"recurrence":                             "Repeat every",
	"recurrence.frequency":                   "Repeat every",
	"recurrence.interval":                    "Interval",
	"recurrence.timeZone":                    "Time zone",
	"recurrence.window":                      "Spread window",
	"recurrence.count":                       "Number of runs",
	"recurrence.endTime":                     "End",
	"recurrence.cron":                        "Cron line",
	"recurrence.schedule":                    "Schedule",
	"recurrence.schedule.minutes":            "At minutes",
	"recurrence.schedule.hours":              "At hours",
	"recurrence.schedule.weekDays":           "On week days",
	"recurrence.schedule.monthDays":          "On days of the month",
	"recurrence.schedule.monthlyOccurrences": "On week days of the month",
	"recurrence.schedule.months":             "In months",
	"recurrence.calendars":                   "Calendars",
	"recurrence.calendars.exclude":           "Calendars",
	"recurrence.calendars.include":           "Calendars",
	"recurrence.calendars.onExcluded":        "A run on such a day",
	"deadline":                               "Deadline",
	"deadline.succeedWithin":                 "Must succeed within",
	"deadline.maxDuration":                   "Alert if a run takes longer than",
	"trigger":                                "Repeat every",
	"trigger.after":                          "Runs after",
	"trigger.on":                             "Run when they",
	"trigger.within":                         "Within",
}

// JobFormLabel returns the label of the job form's field for a job JSON
// path ("recurrence.interval" gives "Interval"; indexes are ignored, and
// a path without a label of its own takes its parent's), or "" when no
// field of the form edits it.
func JobFormLabel(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '[' {
			for i < len(path) && path[i] != ']' {
				i++
			}
			continue
		}
		b.WriteByte(path[i])
	}
	p := b.String()
	for p != "" {
		if l, ok := jobFormLabels[p]; ok {
			return l
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// JobFormSentence returns a problem of a job as the form shows it: "URL:
// is required" rather than "action.request.uri: is required" (the path
// stays when the form has no field for it).
func JobFormSentence(path, message string) string {
	return problem.Problem{Path: path, Message: message, Label: JobFormLabel(path)}.Sentence()
}

// JobFormSlots are the builder's error slots (err-<slot>), which the live
// preview updates: every field JobFormErrors may key but the job's name,
// which only Save checks.
var JobFormSlots = []string{"action_type", "method", "uri", "headers", "body", "auth", "start_time", "time_zone", "frequency",
	"interval", "end", "minutes", "hours", "week_days", "month_days", "occurrences", "months", "calendars", "retry", "error_action", "timeout", "window",
	"succeed_within", "max_duration",
	"trigger_after", "trigger_on", "trigger_within"}

// formErrorSlot maps a job JSON path to the slot of the form that shows
// its problem ("" for none: the problem is listed above the form).
func formErrorSlot(path string) string {
	if i := strings.IndexByte(path, '['); i >= 0 {
		path = path[:i]
	}
	switch {
	case strings.HasPrefix(path, "action.request.headers"):
		return "headers"
	case strings.HasPrefix(path, "action.request.authentication"):
		return "auth"
	case strings.HasPrefix(path, "action.errorAction"):
		return "error_action"
	case strings.HasPrefix(path, "recurrence.calendars"):
		return "calendars"
	case strings.HasPrefix(path, "action.retryPolicy"):
		return "retry"
	case path == "trigger" || strings.HasPrefix(path, "trigger."):
		return triggerErrorSlot(path) // jobform_trigger.go
	}
	switch path {
	case "action.request.uri":
		return "uri"
	case "action.request.method":
		return "method"
	case "action.request.body":
		return "body"
	case "action.type":
		return "action_type"
	case "action.timeout":
		return "timeout"
	case "startTime":
		return "start_time"
	case "recurrence.timeZone":
		return "time_zone"
	case "recurrence.frequency":
		return "frequency"
	case "recurrence.interval":
		return "interval"
	case "recurrence.window":
		return "window"
	case "recurrence.count", "recurrence.endTime":
		return "end"
	case "recurrence.schedule.minutes":
		return "minutes"
	case "recurrence.schedule.hours":
		return "hours"
	case "recurrence.schedule.weekDays":
		return "week_days"
	case "recurrence.schedule.monthDays":
		return "month_days"
	case "recurrence.schedule.monthlyOccurrences":
		return "occurrences"
	case "recurrence.schedule.months":
		return "months"
	case "jobName":
		return "name"
	case "deadline.succeedWithin":
		return "succeed_within"
	case "deadline.maxDuration":
		return "max_duration"
	}
	return ""
}

// JobFormErrors splits the problems of a job into the form's field
// errors, keyed by JobFormSlots, each as the form says it
// (JobFormSentence), and the rest, as their paths say them (the lines
// above the form). In the JSON tab (jsonMode) every problem is of the
// rest.
func JobFormErrors(ve *problem.List, jsonMode bool) (FieldErrors, []string) {
	fields := FieldErrors{}
	var rest []string
	for _, p := range ve.Problems {
		f := formErrorSlot(p.Path)
		if f == "" || jsonMode {
			rest = append(rest, p.String())
			continue
		}
		// The builder shows its fields' labels; the JSON tab and the API
		// keep the paths.
		line := JobFormSentence(p.Path, p.Message)
		if fields[f] == "" {
			fields[f] = line
		} else {
			fields[f] += "; " + line
		}
	}
	return fields, rest
}
