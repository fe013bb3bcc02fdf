package caldef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sked/models/jobdef"
	"sked/models/problem"
)

// Parse reads and validates a calendar document. Every problem is reported
// at once, as a *problem.List whose paths name the field
// ("entries[3].to", "timeZone"); "calendar" stands for the document.
func Parse(data []byte) (*Calendar, error) {
	ps := &problems{}
	var doc map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil || doc == nil {
		ps.add("calendar", "must be a JSON object with \"entries\" (and optionally \"timeZone\" and \"description\")")
		return nil, ps.err()
	}
	c := &Calendar{Location: time.UTC}
	for _, key := range sortedKeys(doc) {
		raw := doc[key]
		switch strings.ToLower(key) {
		case "timezone":
			s, ok := str(raw)
			if !ok {
				ps.add("timeZone", "must be a string")
				continue
			}
			if s == "" {
				continue
			}
			loc, err := jobdef.LoadZone(s)
			if err != nil {
				ps.add("timeZone", fmt.Sprintf("%q is not a known IANA or Windows time zone", s))
				continue
			}
			c.TimeZone, c.Location = s, loc
		case "description":
			s, ok := str(raw)
			switch {
			case !ok:
				ps.add("description", "must be a string")
			case utf8.RuneCountInString(s) > MaxDescription:
				ps.add("description", fmt.Sprintf("is longer than %d characters", MaxDescription))
			default:
				c.Description = s
			}
		case "entries":
			c.Entries = parseEntries(raw, ps)
		case "name", "id", "version", "updatedat", "days":
			// Written by exports and answers; the name comes from the URL.
		default:
			ps.add(key, "is not a field of a calendar (entries, timeZone, description)")
		}
	}
	if _, ok := lookup(doc, "entries"); !ok {
		ps.add("entries", "is required (an empty list is allowed)")
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// parseEntries reads the entries array.
func parseEntries(raw json.RawMessage, ps *problems) []Entry {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		ps.add("entries", "must be an array of entries")
		return nil
	}
	if len(items) > MaxEntries {
		ps.add("entries", fmt.Sprintf("has %d entries, over the maximum of %d", len(items), MaxEntries))
		return nil
	}
	out := make([]Entry, 0, len(items))
	for i, item := range items {
		if e, ok := parseEntry(item, fmt.Sprintf("entries[%d]", i), ps); ok {
			out = append(out, e)
		}
	}
	return out
}

// parseEntry reads one entry at path.
func parseEntry(raw json.RawMessage, path string, ps *problems) (Entry, bool) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		ps.add(path, `must be an object with one of "date", "from"/"to", "yearly" or "rule"`)
		return Entry{}, false
	}
	before := len(ps.list)
	var e Entry
	kinds := 0
	for _, key := range sortedKeys(o) {
		switch strings.ToLower(key) {
		case "date", "from", "yearly", "rule":
			kinds++
		case "to", "label", "since", "until", "except":
		default:
			ps.add(path+"."+key, "is not a field of a calendar entry (date, from, to, yearly, rule, label, since, until, except)")
		}
	}
	if kinds != 1 {
		ps.add(path, `must have exactly one of "date", "from" (with "to"), "yearly" or "rule"`)
		return Entry{}, false
	}
	if raw, ok := lookup(o, "label"); ok {
		s, isStr := str(raw)
		switch {
		case !isStr:
			ps.add(path+".label", "must be a string")
		case utf8.RuneCountInString(s) > MaxLabel:
			ps.add(path+".label", fmt.Sprintf("is longer than %d characters", MaxLabel))
		default:
			e.Label = s
		}
	}
	date := func(key string) (Date, bool) {
		raw, ok := lookup(o, key)
		if !ok {
			return Date{}, false
		}
		s, isStr := str(raw)
		if !isStr {
			ps.add(path+"."+key, "must be a date string (YYYY-MM-DD)")
			return Date{}, false
		}
		d, err := ParseDate(s)
		if err != nil {
			ps.add(path+"."+key, err.Error())
			return Date{}, false
		}
		return d, true
	}
	switch {
	case has(o, "date"):
		e.Kind = KindDate
		e.Date, _ = date("date")
	case has(o, "from"):
		e.Kind = KindRange
		from, okFrom := date("from")
		to, okTo := date("to")
		if !has(o, "to") {
			ps.add(path+".to", `is required with "from": the last day of the range (included)`)
		}
		if okFrom && okTo {
			switch n := to.DayNumber() - from.DayNumber(); {
			case n < 0:
				ps.add(path+".to", fmt.Sprintf("%s comes before from (%s)", to, from))
			case n >= MaxRangeDays:
				ps.add(path+".to", fmt.Sprintf("the range has %d days, over the maximum of %d", n+1, MaxRangeDays))
			}
		}
		e.Date, e.To = from, to
	case has(o, "yearly"):
		e.Kind = KindYearly
		raw, _ := lookup(o, "yearly")
		s, _ := str(raw)
		t, err := time.Parse("2006-01-02", "2000-"+strings.TrimSpace(s)) // 2000 is a leap year: 02-29 parses
		if err != nil {
			ps.add(path+".yearly", fmt.Sprintf("%q is not a month and day (MM-DD, e.g. 12-25)", s))
		} else {
			e.Month, e.Day = t.Month(), t.Day()
		}
	default:
		e.Kind = KindRule
		raw, _ := lookup(o, "rule")
		e.Rule, e.RuleJSON = parseRule(raw, path+".rule", ps)
	}
	if e.Kind == KindYearly || e.Kind == KindRule {
		if d, ok := date("since"); ok {
			e.Since = &d
		}
		if d, ok := date("until"); ok {
			e.Until = &d
		}
		if e.Since != nil && e.Until != nil && e.Until.Before(*e.Since) {
			ps.add(path+".until", fmt.Sprintf("%s comes before since (%s)", e.Until, e.Since))
		}
		if raw, ok := lookup(o, "except"); ok {
			e.Except = parseExcept(raw, path+".except", ps)
		}
	} else {
		for _, key := range []string{"since", "until", "except"} {
			if has(o, key) {
				ps.add(path+"."+key, `applies only to "yearly" and "rule" entries`)
			}
		}
		if e.Kind == KindDate && has(o, "to") {
			ps.add(path+".to", `applies only with "from"`)
		}
	}
	return e, len(ps.list) == before
}

// parseRule reads the recurrence of a rule entry and checks that it names
// days only.
func parseRule(raw json.RawMessage, path string, ps *problems) (*jobdef.Recurrence, json.RawMessage) {
	rec, err := jobdef.ParseRecurrence(raw)
	if err != nil {
		if ve := problem.As(err); ve != nil {
			for _, p := range ve.Problems {
				ps.add(path+strings.TrimPrefix(p.Path, "recurrence"), p.Message)
			}
			return nil, nil
		}
		ps.add(path, err.Error())
		return nil, nil
	}
	switch rec.Frequency {
	case jobdef.Day, jobdef.Week, jobdef.Month, jobdef.Year:
	default:
		ps.add(path+".frequency", fmt.Sprintf("%q is not a frequency of days: use day, week, month or year", rec.Frequency))
	}
	if s := rec.Schedule; s != nil && (len(s.Hours) > 0 || len(s.Minutes) > 0) {
		ps.add(path+".schedule", "a calendar rule names days: hours and minutes do not apply")
	}
	if rec.TimeZone != "" {
		ps.add(path+".timeZone", "a rule uses the calendar's time zone")
	}
	if rec.Count > 0 || rec.EndTime != nil {
		ps.add(path, `use the entry's "since" and "until" to bound a rule, not count or endTime`)
	}
	if rec.Calendars != nil {
		ps.add(path+".calendars", "a calendar rule cannot exclude calendars")
	}
	return rec, append(json.RawMessage(nil), raw...)
}

// parseExcept reads an except list of dates.
func parseExcept(raw json.RawMessage, path string, ps *problems) []Date {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		ps.add(path, "must be an array of dates (YYYY-MM-DD)")
		return nil
	}
	if len(items) > MaxExcept {
		ps.add(path, fmt.Sprintf("has %d dates, over the maximum of %d", len(items), MaxExcept))
		return nil
	}
	var out []Date
	for i, item := range items {
		s, ok := str(item)
		if !ok {
			ps.add(fmt.Sprintf("%s[%d]", path, i), "must be a date string (YYYY-MM-DD)")
			continue
		}
		d, err := ParseDate(s)
		if err != nil {
			ps.add(fmt.Sprintf("%s[%d]", path, i), err.Error())
			continue
		}
		out = append(out, d)
	}
	return out
}

// problems accumulates validation problems.
type problems struct{ list []problem.Problem }

// add records one problem.
func (p *problems) add(path, msg string) {
	p.list = append(p.list, problem.Problem{Path: path, Message: msg})
}

// err returns the problems as a *problem.List, or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &problem.List{Problems: p.list}
}

// lookup returns the value of key, matched without regard to case, and
// whether it is present and not null.
func lookup(o map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	for k, v := range o {
		if strings.EqualFold(k, key) {
			return v, !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
		}
	}
	return nil, false
}

// has reports whether key is present and not null.
func has(o map[string]json.RawMessage, key string) bool {
	_, ok := lookup(o, key)
	return ok
}

// sortedKeys returns the keys of o in order, so that problems come out in
// the same order every time.
func sortedKeys(o map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(o))
}

// str decodes a JSON string.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
