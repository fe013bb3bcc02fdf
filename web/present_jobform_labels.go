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
