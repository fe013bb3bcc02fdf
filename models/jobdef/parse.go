package jobdef

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Parse reads one job in either shape of SPEC §1 and validates it.
//
// The ARM shape is recognised by a top-level "properties" object; its "id",
// "name" and "type" are kept in the Job for information only. Field names are
// matched case-insensitively, unknown fields and "status" are ignored, and
// JSON null counts as absent. Defaults: interval 1, state enabled,
// misfirePolicy skip, concurrency allow, timeouts 60 s, zone UTC.
//
// On any problem Parse returns a nil Job and a *problem.List listing every
// problem found (not only the first), each as "path: message" with the path
// relative to the job's properties (the same for both shapes), for example
// `recurrence.schedule.weekDays: can only be used with frequency "week"`.
// Parse never panics, whatever the input.
func Parse(data []byte) (*Job, error) {
	return ParseWith(data, Options{})
}

// Options changes how ParseWith reads a job. The zero value is Parse.
type Options struct {
	// Keep supplies the secrets of the stored job that the input replaces:
	// a secret field that the input leaves out (absent, null or "") takes
	// the kept value when it sits at the same path in an object of the same
	// type. This is how a PUT or PATCH that leaves a secret out keeps it.
	Keep Secrets
	// SecretsOptional accepts a job whose secrets are left out (a stored
	// definition, read for display): no "is required" for them, and a
	// clientCertificate without its pfx keeps the certificateThumbprint,
	// certificateSubjectName and certificateExpirationDate it states.
	SecretsOptional bool
	// Stored marks a definition read back from the database rather than
	// sent by a user: the checks added after it may have been stored (a
	// retryPolicy without retryType, a request URI with characters RFC 3986
	// forbids, text PostgreSQL cannot hold) are left out, so that a job
	// accepted by an older Sked keeps running and showing.
	Stored bool
}

// ParseWith is Parse with options.
func ParseWith(data []byte, opts Options) (*Job, error) {
	ps := problems{keep: opts.Keep, secretsOptional: opts.SecretsOptional, stored: opts.Stored}
	if len(data) > MaxJobBytes {
		ps.add("job", fmt.Sprintf("the job JSON is %d bytes, over the maximum of %d", len(data), MaxJobBytes))
		return nil, ps.err()
	}
	if !opts.Stored {
		var te *TextError
		if errors.As(CheckText(data), &te) {
			ps.add("job", te.Error())
			return nil, ps.err()
		}
	}
	if msg := syntaxProblem(data); msg != "" {
		ps.add("job", msg)
		return nil, ps.err()
	}
	top, ok := decodeObject(data)
	if !ok {
		ps.add("job", "must be a JSON object, not "+article(kindOf(data)))
		return nil, ps.err()
	}
	job := &Job{
		State:         Enabled,
		MisfirePolicy: MisfireSkip,
		Concurrency:   ConcurrencyAllow,
	}
	props := top
	if raw, present := top.get("properties"); present {
		p, ok := decodeObject(raw)
		if !ok {
			ps.add("properties", "must be an object, not "+article(kindOf(raw)))
			return nil, ps.err()
		}
		props = p
		job.Shape = ShapeARM
		job.ID = optString(top, "id")
		job.Name = optString(top, "name")
		job.Type = optString(top, "type")
	}

	parseStartTime(props, job, &ps)
	if raw, ok := props.get("recurrence"); ok {
		job.Recurrence = parseRecurrence(raw, &ps)
		defaultCronStart(raw, job) // cron.go
	}
	parseTrigger(props, job, &ps) // trigger.go
	parseState(props, job, &ps)
	parseStateNote(props, job, &ps)
	job.MisfirePolicy = MisfirePolicy(parseEnum(props, "misfirePolicy", string(MisfireSkip),
		[]string{string(MisfireSkip), string(MisfireRunOnce)}, &ps))
	job.Concurrency = Concurrency(parseEnum(props, "concurrency", string(ConcurrencyAllow),
		[]string{string(ConcurrencyAllow), string(ConcurrencyForbid)}, &ps))
	parseAction(props, job, &ps)
	parseDeadline(props, job, &ps) // deadline.go

	if err := ps.err(); err != nil {
		return nil, err
	}
	return job, nil
}

// syntaxProblem returns a message for data that is not valid JSON, or "".
func syntaxProblem(data []byte) string {
	if json.Valid(data) {
		return ""
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON: %s (at byte %d)", se.Error(), se.Offset)
	}
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	return "not valid JSON"
}

// article prefixes a JSON kind with "a"/"an" for messages.
func article(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "null", "nothing":
		return kind
	}
	return "a " + kind
}

// optString returns a string field, or "" when absent or not a string.
func optString(o object, key string) string {
	raw, ok := o.get(key)
	if !ok {
		return ""
	}
	s, _ := decodeString(raw)
	return s
}

// stringField reads a string field; it reports a problem and returns false
// when the field is present but not a string.
func stringField(o object, key, path string, ps *problems) (string, bool) {
	raw, ok := o.get(key)
	if !ok {
		return "", false
	}
	s, ok := decodeString(raw)
	if !ok {
		ps.add(path, "must be a string, not "+article(kindOf(raw)))
		return "", false
	}
	return s, true
}

// parseStartTime reads startTime.
func parseStartTime(o object, job *Job, ps *problems) {
	s, ok := stringField(o, "startTime", "startTime", ps)
	if !ok {
		return
	}
	dt, err := ParseDateTime(s, true)
	if err != nil {
		ps.add("startTime", fmt.Sprintf("%q is not an ISO 8601 date-time (e.g. 2024-05-01T09:30:00Z)", s))
		return
	}
	job.StartTime = &dt
}

// parseState reads state: enabled or disabled (completed and faulted are
// accepted so that exported jobs import unchanged).
func parseState(o object, job *Job, ps *problems) {
	s, ok := stringField(o, "state", "state", ps)
	if !ok {
		return
	}
	switch st := State(strings.ToLower(s)); st {
	case Enabled, Disabled, Completed, Faulted:
		job.State = st
	default:
		ps.add("state", fmt.Sprintf("%q is not one of enabled, disabled", s))
	}
}

// parseEnum reads a case-insensitive string enumeration and returns its
// canonical spelling, or def when absent or invalid.
func parseEnum(o object, key, def string, values []string, ps *problems) string {
	s, ok := stringField(o, key, key, ps)
	if !ok {
		return def
	}
	for _, v := range values {
		if strings.EqualFold(s, v) {
			return v
		}
	}
	ps.add(key, fmt.Sprintf("%q is not one of %s", s, strings.Join(values, ", ")))
	return def
}

// parseAction reads and validates the action and its error action.
func parseAction(o object, job *Job, ps *problems) {
	raw, ok := o.get("action")
	if !ok {
		ps.add("action", "is required")
		return
	}
	job.Action = parseActionObject(raw, "action", true, ps)
}

// parseTimeout reads an ISO 8601 per-attempt timeout: default PT60S, at most
// PT10M, positive.
func parseTimeout(o object, path string, ps *problems) (time.Duration, string) {
	s, ok := stringField(o, "timeout", path, ps)
	if !ok {
		return DefaultTimeout, ""
	}
	d, err := ParseISODuration(s)
	switch {
	case err != nil:
		ps.add(path, fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT30S)", s))
	case d <= 0:
		ps.add(path, fmt.Sprintf("%q must be longer than zero", s))
	case d > MaxTimeout:
		ps.add(path, fmt.Sprintf("%q is over the maximum of PT10M", s))
	default:
		return d, s
	}
	return DefaultTimeout, ""
}
