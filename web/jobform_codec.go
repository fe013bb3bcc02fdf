package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"sked/models/jobdef"
)

// The job form's codec (SPEC §9): the builder's fields map one-to-one to
// the job JSON. ReadJobForm reads the posted values into a JobForm, whose
// JobJSON is the job the catalog parses and saves; JobFormFrom (JobFormOf
// for the edit page) fills the fields back from a parsed job, so that the
// builder and the JSON tab round-trip through the server. The template
// (jobform.templ) names its fields as ReadJobForm reads them.

// weekdayNames are the week days in form order (Monday first).
var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// ReadJobForm reads the posted form values into the form: fields where
// spaces cannot matter trimmed; the checked numbers sorted, without
// duplicates or what is not a number; the week days in the form's order
// and the occurrences as posted, without duplicates or unknown days; Mode
// "form" unless it is "json". A field the values lack is empty.
func ReadJobForm(f url.Values) JobForm {
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
	jf := JobForm{
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
		Window:           strings.TrimSpace(f.Get("window")),
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
		// "Skip days in calendars" (recurrence.calendars).
		ExcludeCalendars: f["exclude_calendars"],
		OnExcluded:       f.Get("on_excluded"),
		Deadline:         readDeadline(f),
		// "Runs after" (properties.trigger, jobform_trigger.go).
		TriggerAfter:  f.Get("trigger_after"),
		TriggerOn:     f.Get("trigger_on"),
		TriggerWithin: strings.TrimSpace(f.Get("trigger_within")),
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

// PreviewN is how many occurrences the preview lists: PreviewCount when
// it is 10, 25, 50 or 100, else 10.
func (f JobForm) PreviewN() int {
	n, _ := strconv.Atoi(f.PreviewCount)
	if slices.Contains([]int{10, 25, 50, 100}, n) {
		return n
	}
	return 10
}

// JobJSON is the job the form stands for: the JSON tab's text, or the
// builder's fields as job JSON (BuilderJSON).
func (f JobForm) JobJSON() []byte {
	if f.Mode == "json" {
		return []byte(f.JSON)
	}
	return f.BuilderJSON()
}

// BuilderJSON writes the builder's fields as job JSON (flat shape,
// indented). Fields the chosen options hide are left out (the minutes of
// frequency minute, the retry interval of no retries); a field that is not
// the number it should be is written as the text given, so that the job
// parser names it.
func (f JobForm) BuilderJSON() []byte {
	req := map[string]any{"uri": f.URI, "method": f.Method}
	if hs := parseHeaderLines(f.Headers); len(hs) > 0 {
		req["headers"] = hs
	}
	if f.Body != "" {
		req["body"] = f.Body
	}
	switch f.AuthType {
	case "basic":
		req["authentication"] = map[string]any{"type": "Basic", "username": f.Username, "password": f.Password}
	case "clientCertificate":
		req["authentication"] = map[string]any{"type": "ClientCertificate", "pfx": f.Pfx, "password": f.Password}
	case "activeDirectoryOAuth":
		req["authentication"] = map[string]any{"type": "ActiveDirectoryOAuth", "tenant": f.Tenant,
			"audience": f.Audience, "clientId": f.ClientID, "secret": f.Secret}
	}
	actionType := f.ActionType
	if actionType == "" {
		actionType = "http"
	}
	action := map[string]any{"type": actionType, "request": req}
	if f.RetryType != "" {
		rp := map[string]any{"retryType": f.RetryType}
		if f.RetryType == "fixed" || f.RetryType == "exponential" {
			if f.RetryInterval != "" {
				rp["retryInterval"] = f.RetryInterval
			}
			if f.RetryCount != "" {
				rp["retryCount"] = number(f.RetryCount)
			}
		}
		if f.RetryType == "exponential" && f.MaxRetryInterval != "" {
			rp["maxRetryInterval"] = f.MaxRetryInterval
		}
		action["retryPolicy"] = rp
	}
	if f.Timeout != "" {
		action["timeout"] = f.Timeout
	}
	if f.ErrorAction {
		ereq := map[string]any{"uri": f.ErrorURI, "method": f.ErrorMethod}
		if f.ErrorBody != "" {
			ereq["body"] = f.ErrorBody
		}
		action["errorAction"] = map[string]any{"type": "http", "request": ereq}
	}
	job := map[string]any{"action": action}
	if f.StartTime != "" {
		st := f.StartTime
		if len(st) == len("2006-01-02T15:04") {
			st += ":00"
		}
		if f.TimeZone == "" {
			st += "Z"
		}
		job["startTime"] = st
	}
	if f.State != "" {
		job["state"] = f.State
	}
	if f.Misfire != "" && f.Misfire != "skip" {
		job["misfirePolicy"] = f.Misfire
	}
	if f.Concurrency != "" && f.Concurrency != "allow" {
		job["concurrency"] = f.Concurrency
	}
	if d := f.Deadline.json(); d != nil {
		job["deadline"] = d
	}
	if f.Frequency == FrequencyAfter {
		job["trigger"] = f.triggerJSON()
	}
	if f.Frequency != "" && f.Frequency != FrequencyAfter {
		rec := map[string]any{"frequency": f.Frequency}
		if f.Interval != "" {
			rec["interval"] = number(f.Interval)
		}
		switch f.End {
		case "count":
			rec["count"] = number(f.Count)
		case "until":
			et := f.EndTime
			if len(et) == len("2006-01-02T15:04") {
				et += ":00"
			}
			if f.TimeZone == "" && len(et) > 10 {
				et += "Z"
			}
			rec["endTime"] = et
		}
		if f.TimeZone != "" {
			rec["timeZone"] = f.TimeZone
		}
		if f.Window != "" {
			rec["window"] = f.Window
		}
		sched := map[string]any{}
		put := func(key string, show bool, v []int) {
			if show && len(v) > 0 {
				sched[key] = v
			}
		}
		put("minutes", f.Frequency != "minute", f.Minutes)
		put("hours", f.Frequency != "minute" && f.Frequency != "hour", f.Hours)
		// With frequency second every element limits the seconds that run.
		second := f.Frequency == string(jobdef.Second)
		if (f.Frequency == "week" || second) && len(f.WeekDays) > 0 {
			sched["weekDays"] = f.WeekDays
		}
		monthly := f.Frequency == "month" || f.Frequency == "year" || second
		put("monthDays", monthly, f.MonthDays)
		if monthly && len(f.Occurrences) > 0 {
			var occ []map[string]any
			for _, o := range f.Occurrences {
				n, day, _ := strings.Cut(o, ":")
				entry := map[string]any{"day": day}
				if k, _ := strconv.Atoi(n); k != 0 {
					entry["occurrence"] = k
				}
				occ = append(occ, entry)
			}
			sched["monthlyOccurrences"] = occ
		}
		put("months", f.Frequency == "year" || second, f.Months)
		if len(sched) > 0 {
			rec["schedule"] = sched
		}
		if cals := calendarsJSON(f.ExcludeCalendars, f.OnExcluded); cals != nil {
			rec["calendars"] = cals
		}
		job["recurrence"] = rec
	}
	out, _ := json.MarshalIndent(job, "", "  ")
	return out
}

// parseHeaderLines reads "Name: value" lines into a header object, in
// the order of the lines (a name given again takes the later value in
// its first place); lines without a colon are kept as a name with an
// empty value (the parser then says what is wrong).
func parseHeaderLines(text string) headerObject {
	var out headerObject
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		h := jobdef.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}
		if i := slices.IndexFunc(out, func(o jobdef.Header) bool { return o.Name == h.Name }); i >= 0 {
			out[i] = h
		} else {
			out = append(out, h)
		}
	}
	return out
}

// headerObject is the headers of a request, written as a JSON object in
// their order (the job keeps the order it is given).
type headerObject []jobdef.Header

// MarshalJSON writes the headers as one JSON object.
func (hs headerObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, h := range hs {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := json.Marshal(h.Name)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(h.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// JobFormOf is the edit form of a stored job: the builder's fields
// (JobFormFrom) and the JSON tab's text (the job's properties, indented;
// with its state note, which the builder does not show). A job the
// builder cannot show opens in the JSON tab, with a notice saying why.
func JobFormOf(job *jobdef.Job) JobForm {
	f, unsupported := JobFormFrom(job)
	f.JSON = indentJSON(job.MarshalProperties(jobdef.MarshalOptions{}))
	if unsupported != "" {
		f.Mode, f.Notice = "json", BuilderCannotShow(unsupported)
	}
	return f
}

// BuilderCannotShow is the notice of a job the builder cannot show
// (unsupported as JobFormFrom reports it).
func BuilderCannotShow(unsupported string) string {
	return "This job uses " + unsupported + ", which only the JSON tab can edit."
}

// indentJSON indents JSON for the JSON tab, keeping the order of its
// members.
func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// JobFormFrom fills the builder's fields from a parsed job (not the
// frame, the name, the JSON tab's text or the state note, which the
// builder has no field for). It reports, as unsupported, what the builder
// cannot show (then only the JSON tab edits the job); the fields are
// then incomplete.
func JobFormFrom(job *jobdef.Job) (jf JobForm, unsupported string) {
	a := job.Action
	jf.Mode = "form"
	jf.ActionType = string(a.Kind)
	if a.Request == nil {
		return jf, fmt.Sprintf("an action of type %q", a.Type)
	}
	jf.Method, jf.URI, jf.Body = a.Request.Method, a.Request.URI, a.Request.Body
	var lines []string
	for _, h := range a.Request.Headers {
		lines = append(lines, h.Name+": "+h.Value)
	}
	jf.Headers = strings.Join(lines, "\n")
	if au := a.Request.Authentication; au != nil {
		switch au.Kind {
		case jobdef.AuthBasic:
			jf.AuthType, jf.Username, jf.Password = "basic", au.Username, au.Password
		case jobdef.AuthClientCertificate:
			jf.AuthType, jf.Pfx, jf.Password = "clientCertificate", au.Pfx, au.Password
		case jobdef.AuthActiveDirectory:
			jf.AuthType, jf.Tenant, jf.Audience, jf.ClientID, jf.Secret = "activeDirectoryOAuth", au.Tenant, au.Audience, au.ClientID, au.Secret
		}
	}
	if a.HasRetryPolicy {
		jf.RetryType = string(a.RetryPolicy.Type)
		if t := a.RetryPolicy.Type; t == jobdef.RetryFixed || t == jobdef.RetryExponential {
			jf.RetryInterval = a.RetryPolicy.IntervalText
			if jf.RetryInterval == "" {
				jf.RetryInterval = jobdef.FormatISODuration(a.RetryPolicy.Interval)
			}
			jf.RetryCount = strconv.Itoa(a.RetryPolicy.Count)
		}
		if a.RetryPolicy.Type == jobdef.RetryExponential {
			jf.MaxRetryInterval = a.RetryPolicy.MaxIntervalText
		}
	}
	jf.Timeout = a.TimeoutText
	if ea := a.ErrorAction; ea != nil {
		if ea.Request == nil || ea.Request.Authentication != nil || len(ea.Request.Headers) > 0 || ea.HasRetryPolicy {
			return jf, "an error action with more than a method, a URL and a body"
		}
		jf.ErrorAction, jf.ErrorMethod, jf.ErrorURI, jf.ErrorBody = true, ea.Request.Method, ea.Request.URI, ea.Request.Body
	}
	jf.State = string(job.State)
	jf.Misfire, jf.Concurrency = string(job.MisfirePolicy), string(job.Concurrency)
	jf.Deadline = deadlineOf(job)
	loc := job.Location()
	wall := func(d jobdef.DateTime) string {
		if d.DateOnly {
			return d.Time.Format("2006-01-02") + "T00:00"
		}
		t := d.Time
		if d.HasOffset {
			t = t.In(loc)
		}
		return t.Format("2006-01-02T15:04")
	}
	if job.StartTime != nil {
		jf.StartTime = wall(*job.StartTime)
	}
	if t := job.Trigger; t != nil {
		jf.fillTrigger(t)
	}
	if r := job.Recurrence; r != nil {
		jf.ExcludeCalendars, jf.OnExcluded = calendarsOfJob(r)
		jf.TimeZone = r.TimeZone
		jf.Frequency = string(r.Frequency)
		jf.Interval = strconv.Itoa(r.Interval)
		jf.Window = r.WindowText
		jf.End = "never"
		if r.Count > 0 {
			jf.End, jf.Count = "count", strconv.Itoa(r.Count)
			if r.EndTime != nil {
				return jf, "both a count and an end time"
			}
		} else if r.EndTime != nil {
			jf.End, jf.EndTime = "until", wall(*r.EndTime)
		}
		if s := r.Schedule; s != nil {
			jf.Minutes, jf.Hours, jf.MonthDays, jf.Months = sorted(s.Minutes), sorted(s.Hours), sorted(s.MonthDays), sorted(s.Months)
			for _, d := range s.WeekDays {
				jf.WeekDays = append(jf.WeekDays, strings.ToLower(d.String()))
			}
			for _, o := range s.MonthlyOccurrences {
				jf.Occurrences = append(jf.Occurrences, fmt.Sprintf("%d:%s", o.Occurrence, strings.ToLower(o.Day.String())))
			}
			for _, d := range s.MonthDays {
				if d < -1 {
					return jf, "month days counted from the end other than the last day"
				}
			}
		}
	}
	return jf, ""
}

// sorted is a sorted copy of v.
func sorted(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

// calendarsOfJob is the form's calendars of a job's recurrence.
func calendarsOfJob(r *jobdef.Recurrence) ([]string, string) {
	if r == nil || r.Calendars == nil {
		return nil, string(jobdef.ExcludedSkip)
	}
	return slices.Clone(r.Calendars.Exclude), string(r.Calendars.OnExcluded)
}

// calendarsJSON is recurrence.calendars of the form's calendars, or nil
// when none is chosen.
func calendarsJSON(exclude []string, onExcluded string) map[string]any {
	if len(exclude) == 0 {
		return nil
	}
	out := map[string]any{"exclude": exclude}
	if onExcluded == "" {
		onExcluded = string(jobdef.ExcludedSkip)
	}
	out["onExcluded"] = onExcluded
	return out
}
