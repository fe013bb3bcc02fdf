package caldef

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Marshal writes the calendar in canonical form: timeZone (when set),
// description (when set), then the entries with their fields in a fixed
// order. Parse reads it back unchanged.
func (c *Calendar) Marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	if c.TimeZone != "" {
		fmt.Fprintf(&b, `"timeZone":%s,`, quote(c.TimeZone))
	}
	if c.Description != "" {
		fmt.Fprintf(&b, `"description":%s,`, quote(c.Description))
	}
	b.WriteString(`"entries":[`)
	for i, e := range c.Entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.Marshal())
	}
	b.WriteString("]}")
	return b.Bytes()
}

// Marshal writes one entry in canonical form.
func (e Entry) Marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	switch e.Kind {
	case KindDate:
		fmt.Fprintf(&b, `"date":%q`, e.Date.String())
	case KindRange:
		fmt.Fprintf(&b, `"from":%q,"to":%q`, e.Date.String(), e.To.String())
	case KindYearly:
		fmt.Fprintf(&b, `"yearly":"%02d-%02d"`, int(e.Month), e.Day)
	case KindRule:
		var compact bytes.Buffer
		if err := json.Compact(&compact, e.RuleJSON); err != nil {
			compact.WriteString("null")
		}
		b.WriteString(`"rule":`)
		b.Write(compact.Bytes())
	}
	if e.Label != "" {
		fmt.Fprintf(&b, `,"label":%s`, quote(e.Label))
	}
	if e.Since != nil {
		fmt.Fprintf(&b, `,"since":%q`, e.Since.String())
	}
	if e.Until != nil {
		fmt.Fprintf(&b, `,"until":%q`, e.Until.String())
	}
	if len(e.Except) > 0 {
		b.WriteString(`,"except":[`)
		for i, d := range e.Except {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q", d.String())
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// quote returns s as a JSON string.
func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}
