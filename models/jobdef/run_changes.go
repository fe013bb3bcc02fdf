package jobdef

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"sked/models/problem"
)

// RunChanges are the changes of one run of an http or https job (SPEC
// §16.4, "run now with changes"): headers merged over the action's
// headers (a header of the same name, matched case-insensitively,
// replaces the action's) and a body that replaces the action's. They
// apply to the main action's request only; the error action runs as
// defined. The zero value changes nothing.
type RunChanges struct {
	// Headers are merged over the action's headers, in the order given.
	Headers []Header
	// Body, when not nil, replaces the action's body ("" sends none).
	Body *string
}

// Empty reports whether c changes nothing.
func (c *RunChanges) Empty() bool { return c == nil || (len(c.Headers) == 0 && c.Body == nil) }

// ParseRunChanges reads the body of a run with changes, {"request":
// {"headers": {…}, "body": "…"}}, checking the headers and the body as a
// job's request (names, values, counts and sizes, SPEC §1). An empty or
// null body, or one without "request", is no change (nil). Problems are
// one *problem.List with paths such as request.headers.X-Name and
// request.body.
func ParseRunChanges(raw []byte) (*RunChanges, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, nil
	}
	ps := &problems{}
	if !json.Valid(raw) {
		ps.add("request", "the body is not valid JSON")
		return nil, ps.err()
	}
	if isNull(raw) {
		return nil, nil
	}
	o, ok := decodeObject(raw)
	if !ok {
		ps.add("request", "the body must be an object such as {\"request\": {\"headers\": {…}, \"body\": \"…\"}}, not "+article(kindOf(raw)))
		return nil, ps.err()
	}
	r, ok := o.get("request")
	if !ok {
		return nil, nil
	}
	ro, ok := decodeObject(r)
	if !ok {
		ps.add("request", "must be an object with headers and body, not "+article(kindOf(r)))
		return nil, ps.err()
	}
	for k := range ro {
		if !strings.EqualFold(k, "headers") && !strings.EqualFold(k, "body") {
			ps.add("request."+k, "cannot be changed for one run: only request.headers and request.body can")
		}
	}
	c := &RunChanges{}
	if h, ok := ro.get("headers"); ok {
		c.Headers = parseHeaders(h, "request.headers", ps)
	}
	if b, ok := stringField(ro, "body", "request.body", ps); ok {
		if n := utf8.RuneCountInString(b); n > MaxBodyChars {
			ps.add("request.body", fmt.Sprintf("is %d characters long, over the maximum of %d", n, MaxBodyChars))
		}
		c.Body = &b
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	if c.Empty() {
		return nil, nil
	}
	return c, nil
}

// CheckRunChanges checks that changes c may apply to job: its main action
// must be http or https (a *problem.List naming request otherwise), and
// the merged headers must stay within the limits of a job's request.
func CheckRunChanges(job *Job, c *RunChanges) error {
	if c.Empty() {
		return nil
	}
	if job == nil || job.Action == nil || job.Action.Request == nil {
		return &problem.List{Problems: []problem.Problem{{Path: "request",
			Message: "only a job whose action is http or https can run with changes of its request"}}}
	}
	merged := c.Apply(job.Action.Request)
	total := 0
	for _, h := range merged.Headers {
		total += utf8.RuneCountInString(h.Name) + utf8.RuneCountInString(h.Value)
	}
	switch {
	case len(merged.Headers) > MaxHeaders:
		return &problem.List{Problems: []problem.Problem{{Path: "request.headers",
			Message: fmt.Sprintf("with the job's headers there would be %d headers, over the maximum of %d", len(merged.Headers), MaxHeaders)}}}
	case total > MaxHeaderChars:
		return &problem.List{Problems: []problem.Problem{{Path: "request.headers",
			Message: fmt.Sprintf("with the job's headers the headers would be %d characters long in total, over the maximum of %d", total, MaxHeaderChars)}}}
	}
	return nil
}

// Apply returns a copy of r with the changes c: c's headers replace the
// headers of r with the same name (case-insensitively) and the others are
// added after them; c's body, when set, replaces r's. r is not modified.
func (c *RunChanges) Apply(r *HTTPRequest) *HTTPRequest {
	if r == nil || c.Empty() {
		return r
	}
	out := *r
	out.Headers = make([]Header, 0, len(r.Headers)+len(c.Headers))
	for _, h := range r.Headers {
		if !c.hasHeader(h.Name) {
			out.Headers = append(out.Headers, h)
		}
	}
	out.Headers = append(out.Headers, c.Headers...)
	if c.Body != nil {
		out.Body = *c.Body
	}
	return &out
}

// hasHeader reports whether c changes header name.
func (c *RunChanges) hasHeader(name string) bool {
	for _, h := range c.Headers {
		if strings.EqualFold(http.CanonicalHeaderKey(h.Name), http.CanonicalHeaderKey(name)) {
			return true
		}
	}
	return false
}

// MarshalRunChanges writes c in the wire shape ParseRunChanges reads,
// {"request": {"headers": {…}, "body": "…"}}, passing each header's value
// through value (nil: as it is), so that a caller can mask secrets; nil
// for no change.
func MarshalRunChanges(c *RunChanges, value func(name, v string) string) json.RawMessage {
	if c.Empty() {
		return nil
	}
	var b strings.Builder
	b.WriteString(`{"request":{`)
	if len(c.Headers) > 0 {
		b.WriteString(`"headers":{`)
		for i, h := range c.Headers {
			if i > 0 {
				b.WriteByte(',')
			}
			v := h.Value
			if value != nil {
				v = value(h.Name, v)
			}
			k, _ := json.Marshal(h.Name)
			vv, _ := json.Marshal(v)
			b.Write(k)
			b.WriteByte(':')
			b.Write(vv)
		}
		b.WriteByte('}')
	}
	if c.Body != nil {
		if len(c.Headers) > 0 {
			b.WriteByte(',')
		}
		body, _ := json.Marshal(*c.Body)
		b.WriteString(`"body":`)
		b.Write(body)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}
