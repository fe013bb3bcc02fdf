package handlers

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"sked/models/problem"
	"sked/web"
)

// The job form (SPEC §9) maps one-to-one to the job JSON: jobForm reads
// the form's fields into the JSON the catalog saves (toJSON), and a parsed
// job back into the fields (formFromJob), so that the form and the raw
// JSON tab round-trip through the server.

// weekdayNames are the week days in form order (Monday first).
var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// readJobForm reads the posted form into the view model.
func readJobForm(f url.Values) web.JobForm {
	ints := func(key string) []int {
		var out []int
		for _, v := range f[key] {
			if n, err := strconv.Atoi(v); err == nil && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	jf := web.JobForm{
		Name:             strings.TrimSpace(f.Get("name")),
		Mode:             f.Get("mode"),
		JSON:             f.Get("json"),
		ActionType:       f.Get("action_type"),
		Method:           f.Get("method"),
		URI:              strings.TrimSpace(f.Get("uri")),
		Headers:          f.Get("headers"),
		Body:             f.Get("body"),
		AuthType:         f.Get("auth_type"),
		Username:         f.Get("auth_username"),
		Password:         f.Get("auth_password"),
		Pfx:              strings.TrimSpace(f.Get("auth_pfx")),
		Tenant:           f.Get("auth_tenant"),
		Audience:         f.Get("auth_audience"),
		ClientID:         f.Get("auth_client_id"),
		Secret:           f.Get("auth_secret"),
		StartTime:        f.Get("start_time"),
		TimeZone:         strings.TrimSpace(f.Get("time_zone")),
		Frequency:        f.Get("frequency"),
		Interval:         strings.TrimSpace(f.Get("interval")),
		End:              f.Get("end"),
		Count:            strings.TrimSpace(f.Get("count")),
		EndTime:          f.Get("end_time"),
		Minutes:          ints("minutes"),
		Hours:            ints("hours"),
		MonthDays:        ints("month_days"),
		Months:           ints("months"),
		RetryType:        f.Get("retry_type"),
		RetryInterval:    strings.TrimSpace(f.Get("retry_interval")),
		RetryCount:       strings.TrimSpace(f.Get("retry_count")),
		MaxRetryInterval: strings.TrimSpace(f.Get("max_retry_interval")),
		ErrorAction:      f.Get("error_action") == "on",
		ErrorMethod:      f.Get("error_method"),
		ErrorURI:         strings.TrimSpace(f.Get("error_uri")),
		ErrorBody:        f.Get("error_body"),
		State:            f.Get("state"),
		Misfire:          f.Get("misfire"),
		Concurrency:      f.Get("concurrency"),
		Timeout:          strings.TrimSpace(f.Get("timeout")),
		PreviewCount:     f.Get("preview_n"),
		Cron:             strings.TrimSpace(f.Get("cron")),
		// Skip days in calendars (jobform_calendars.go).
		ExcludeCalendars: f["exclude_calendars"],
		OnExcluded:       f.Get("on_excluded"),
	}
	for _, d := range weekdayNames {
		if slices.Contains(f["week_days"], d) {
			jf.WeekDays = append(jf.WeekDays, d)
		}
	}
	for _, v := range f["occurrences"] {
		if n, day, ok := strings.Cut(v, ":"); ok && slices.Contains(weekdayNames, day) {
			if _, err := strconv.Atoi(n); err == nil && !slices.Contains(jf.Occurrences, v) {
				jf.Occurrences = append(jf.Occurrences, v)
			}
		}
	}
	if jf.Mode != "json" {
		jf.Mode = "form"
	}
	return jf
}

// number writes a form value as a JSON number when it is one, else as the
// string given, so that the job parser names the field.
func number(v string) any {
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return v
}

// jobFormJSON builds the job JSON (flat shape) from the form's fields.
func jobFormJSON(jf web.JobForm) []byte {
	req := map[string]any{"uri": jf.URI, "method": jf.Method}
	if hs := parseHeaderLines(jf.Headers); len(hs) > 0 {
		req["headers"] = hs
	}
	if jf.Body != "" {
		req["body"] = jf.Body
	}
	switch jf.AuthType {
	case "basic":
		req["authentication"] = map[string]any{"type": "Basic", "username": jf.Username, "password": jf.Password}
	case "clientCertificate":
		req["authentication"] = map[string]any{"type": "ClientCertificate", "pfx": jf.Pfx, "password": jf.Password}
	case "activeDirectoryOAuth":
		req["authentication"] = map[string]any{"type": "ActiveDirectoryOAuth", "tenant": jf.Tenant,
			"audience": jf.Audience, "clientId": jf.ClientID, "secret": jf.Secret}
	}
	actionType := jf.ActionType
	if actionType == "" {
		actionType = "http"
	}
	action := map[string]any{"type": actionType, "request": req}
	if jf.RetryType != "" {
		rp := map[string]any{"retryType": jf.RetryType}
		if jf.RetryType == "fixed" || jf.RetryType == "exponential" {
			if jf.RetryInterval != "" {
				rp["retryInterval"] = jf.RetryInterval
			}
			if jf.RetryCount != "" {
				rp["retryCount"] = number(jf.RetryCount)
			}
		}
		if jf.RetryType == "exponential" && jf.MaxRetryInterval != "" {
			rp["maxRetryInterval"] = jf.MaxRetryInterval
		}
		action["retryPolicy"] = rp
	}
	if jf.Timeout != "" {
		action["timeout"] = jf.Timeout
	}
	if jf.ErrorAction {
		ereq := map[string]any{"uri": jf.ErrorURI, "method": jf.ErrorMethod}
		if jf.ErrorBody != "" {
			ereq["body"] = jf.ErrorBody
		}
		action["errorAction"] = map[string]any{"type": "http", "request": ereq}
	}
	job := map[string]any{"action": action}
	if jf.StartTime != "" {
		st := jf.StartTime
		if len(st) == len("2006-01-02T15:04") {
			st += ":00"
		}
		if jf.TimeZone == "" {
			st += "Z"
		}
		job["startTime"] = st
	}
	if jf.State != "" {
		job["state"] = jf.State
	}
	if jf.Misfire != "" && jf.Misfire != "skip" {
		job["misfirePolicy"] = jf.Misfire
	}
	if jf.Concurrency != "" && jf.Concurrency != "allow" {
		job["concurrency"] = jf.Concurrency
	}
	if jf.Frequency != "" {
		rec := map[string]any{"frequency": jf.Frequency}
		if jf.Interval != "" {
			rec["interval"] = number(jf.Interval)
		}
		switch jf.End {
		case "count":
			rec["count"] = number(jf.Count)
		case "until":
			et := jf.EndTime
			if len(et) == len("2006-01-02T15:04") {
				et += ":00"
			}
			if jf.TimeZone == "" && len(et) > 10 {
				et += "Z"
			}
			rec["endTime"] = et
		}
		if jf.TimeZone != "" {
			rec["timeZone"] = jf.TimeZone
		}
		sched := map[string]any{}
		put := func(key string, show bool, v []int) {
			if show && len(v) > 0 {
				sched[key] = v
			}
		}
		put("minutes", jf.Frequency != "minute", jf.Minutes)
		put("hours", jf.Frequency != "minute" && jf.Frequency != "hour", jf.Hours)
		if jf.Frequency == "week" && len(jf.WeekDays) > 0 {
			sched["weekDays"] = jf.WeekDays
		}
		monthly := jf.Frequency == "month" || jf.Frequency == "year"
		put("monthDays", monthly, jf.MonthDays)
		if monthly && len(jf.Occurrences) > 0 {
			var occ []map[string]any
			for _, o := range jf.Occurrences {
				n, day, _ := strings.Cut(o, ":")
				entry := map[string]any{"day": day}
				if k, _ := strconv.Atoi(n); k != 0 {
					entry["occurrence"] = k
				}
				occ = append(occ, entry)
			}
			sched["monthlyOccurrences"] = occ
		}
		put("months", jf.Frequency == "year", jf.Months)
		if len(sched) > 0 {
			rec["schedule"] = sched
		}
		if cals := calendarsJSON(jf.ExcludeCalendars, jf.OnExcluded); cals != nil {
			rec["calendars"] = cals
		}
		job["recurrence"] = rec
	}
	out, _ := json.MarshalIndent(job, "", "  ")
	return out
}

// parseHeaderLines reads "Name: value" lines into a header object; lines
// without a colon are kept as a name with an empty value (the parser then
// says what is wrong).
func parseHeaderLines(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		out[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return out
}

// formErrorField maps a job JSON path to the form field that shows its
// problem ("" for none: the problem is listed above the form).
func formErrorField(path string) string {
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
	}
	return ""
}

// jobFormErrors splits a validation error into field errors and the rest.
func jobFormErrors(ve *problem.List, jsonMode bool) (web.FieldErrors, []string) {
	fields := web.FieldErrors{}
	var rest []string
	for _, p := range ve.Problems {
		f := formErrorField(p.Path)
		if f == "" || jsonMode {
			rest = append(rest, p.String())
			continue
		}
		// The builder shows its fields' labels; the JSON tab and the API
		// keep the paths.
		line := web.JobFormSentence(p.Path, p.Message)
		if fields[f] == "" {
			fields[f] = line
		} else {
			fields[f] += "; " + line
		}
	}
	return fields, rest
}
