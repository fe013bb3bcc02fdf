package calics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"

	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/problem"
)

// File is a parsed iCalendar file.
type File struct {
	cal *ics.Calendar
	// TimeZone is the file's X-WR-TIMEZONE, "" when absent or unknown.
	TimeZone string
	// Name is the file's X-WR-CALNAME, "" when absent.
	Name string
}

// Item is a calendar entry converted from an event of the file.
type Item struct {
	// Entry is the entry; its Label is the event's SUMMARY.
	Entry caldef.Entry
	// Event describes the event: its summary and start.
	Event string
}

// Skipped is an event of the file that became no entry, with the reason.
type Skipped struct {
	Event  string
	Reason string
}

// Read parses an iCalendar file. A file that is not one is a
// *problem.List on "file".
func Read(data []byte) (*File, error) {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, fileProblem("is not UTF-8 text")
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		return nil, fileProblem(fmt.Sprintf("is not an iCalendar file (%v)", err))
	}
	f := &File{cal: cal}
	for _, p := range cal.CalendarProperties {
		switch strings.ToUpper(p.IANAToken) {
		case "X-WR-TIMEZONE":
			if _, err := jobdef.LoadZone(strings.TrimSpace(p.Value)); err == nil {
				f.TimeZone = strings.TrimSpace(p.Value)
			}
		case "X-WR-CALNAME":
			f.Name = strings.TrimSpace(p.Value)
		}
	}
	return f, nil
}

// fileProblem is a validation problem with the uploaded file.
func fileProblem(msg string) error {
	return &problem.List{Problems: []problem.Problem{{Path: "file", Message: msg}}}
}

// Convert turns the file's events into entries of a calendar whose days
// are on loc's wall clock, in the file's order. Events that cannot be
// expressed are skipped with the reason.
func (f *File) Convert(loc *time.Location) ([]Item, []Skipped) {
	var items []Item
	var skipped []Skipped
	for _, ev := range f.cal.Events() {
		got, reason := convertEvent(ev, loc)
		desc := describeEvent(ev)
		if reason != "" {
			skipped = append(skipped, Skipped{Event: desc, Reason: reason})
			continue
		}
		for _, e := range got {
			items = append(items, Item{Entry: e, Event: desc})
		}
	}
	return items, skipped
}

// describeEvent is "Summary (DTSTART value)".
func describeEvent(ev *ics.VEvent) string {
	s := strings.TrimSpace(propValue(ev, ics.ComponentPropertySummary))
	if s == "" {
		s = "(no summary)"
	}
	if v := propValue(ev, ics.ComponentPropertyDtStart); v != "" {
		s += " (" + v + ")"
	}
	return s
}

// propValue is the value of the event's first prop, or "".
func propValue(ev *ics.VEvent, prop ics.ComponentProperty) string {
	if p := ev.GetProperty(prop); p != nil {
		return p.Value
	}
	return ""
}

// convertEvent turns one event into entries, or says why it cannot.
func convertEvent(ev *ics.VEvent, loc *time.Location) ([]caldef.Entry, string) {
	if strings.EqualFold(propValue(ev, ics.ComponentPropertyStatus), "CANCELLED") {
		return nil, "the event is cancelled"
	}
	if ev.GetProperty(ics.ComponentPropertyRecurrenceId) != nil {
		return nil, "a changed instance of a recurring event (RECURRENCE-ID) cannot be expressed"
	}
	sp := ev.GetProperty(ics.ComponentPropertyDtStart)
	if sp == nil {
		return nil, "the event has no DTSTART"
	}
	start, err := parseValue(sp.Value, param(sp, "TZID"), loc)
	if err != nil {
		return nil, "DTSTART: " + err.Error()
	}
	first, last, reason := eventDays(ev, start, loc)
	if reason != "" {
		return nil, reason
	}
	label := strings.TrimSpace(propValue(ev, ics.ComponentPropertySummary))
	if utf8.RuneCountInString(label) > caldef.MaxLabel {
		label = string([]rune(label)[:caldef.MaxLabel])
	}
	fields := map[string]any{}
	var extra []caldef.Date
	if rr := propValue(ev, ics.ComponentPropertyRrule); rr != "" {
		if first != last {
			return nil, "a recurring event of several days cannot be expressed"
		}
		var reason string
		if fields, extra, reason = recurringFields(ev, rr, first, loc); reason != "" {
			return nil, reason
		}
	} else if first == last {
		fields["date"] = first.String()
	} else {
		fields["from"], fields["to"] = first.String(), last.String()
	}
	var out []caldef.Entry
	for _, f := range append([]map[string]any{fields}, datesFields(extra)...) {
		if label != "" {
			f["label"] = label
		}
		e, reason := validEntry(f)
		if reason != "" {
			return nil, reason
		}
		out = append(out, e)
	}
	return out, ""
}

// eventDays returns the first and last day the event touches on loc's
// wall clock: all-day events end the day before DTEND; a timed event
// ending at midnight does not touch the day it ends on.
func eventDays(ev *ics.VEvent, start moment, loc *time.Location) (first, last caldef.Date, reason string) {
	var end moment
	hasEnd := false
	if ep := ev.GetProperty(ics.ComponentPropertyDtEnd); ep != nil {
		m, err := parseValue(ep.Value, param(ep, "TZID"), loc)
		if err != nil {
			return first, last, "DTEND: " + err.Error()
		}
		end, hasEnd = m, true
	} else if dp := ev.GetProperty(ics.ComponentPropertyDuration); dp != nil {
		d, ok := parseDuration(dp.Value)
		if !ok || d < 0 {
			return first, last, fmt.Sprintf("DURATION %q is not a duration", dp.Value)
		}
		if start.allDay {
			end = moment{allDay: true, date: addDays(start.date, int(d/(24*time.Hour)))}
		} else {
			end = moment{t: start.t.Add(d)}
		}
		hasEnd = true
	}
	if start.allDay {
		first, last = start.date, start.date
		if hasEnd && end.allDay && start.date.Before(end.date) {
			last = addDays(end.date, -1)
		}
	} else {
		s := start.t.In(loc)
		first = caldef.DateOf(s)
		last = first
		if hasEnd && !end.allDay && end.t.After(start.t) {
			e := end.t.In(loc)
			last = caldef.DateOf(e)
			if e.Hour() == 0 && e.Minute() == 0 && e.Second() == 0 {
				last = addDays(last, -1)
			}
		}
	}
	if last.DayNumber()-first.DayNumber() >= caldef.MaxRangeDays {
		return first, last, fmt.Sprintf("the event lasts over %d days", caldef.MaxRangeDays)
	}
	return first, last, ""
}

// recurringFields converts a recurring one-day event: the entry's fields
// (yearly or rule, with since, until and except) and the extra days of
// its RDATEs.
func recurringFields(ev *ics.VEvent, rr string, day caldef.Date, loc *time.Location) (map[string]any, []caldef.Date, string) {
	r, err := parseRRule(rr)
	if err != nil {
		return nil, nil, "RRULE: " + err.Error()
	}
	fields, reason := ruleEntry(r, day)
	if reason != "" {
		return nil, nil, reason
	}
	if day.Year >= caldef.FirstYear+5 {
		// Earlier starts stand for "always" (as export writes them).
		fields["since"] = day.String()
	}
	if r.until != "" {
		u, err := parseValue(r.until, "", time.UTC)
		if err != nil {
			return nil, nil, "RRULE UNTIL: " + err.Error()
		}
		fields["until"] = u.dayIn(loc).String()
	}
	ex, err := propMoments(ev.GetProperties(ics.ComponentPropertyExdate), loc)
	if err != nil {
		return nil, nil, "EXDATE: " + err.Error()
	}
	if len(ex) > 0 {
		days := make([]string, len(ex))
		for i, m := range ex {
			days[i] = m.dayIn(loc).String()
		}
		fields["except"] = days
	}
	rd, err := propMoments(ev.GetProperties(ics.ComponentPropertyRdate), loc)
	if err != nil {
		return nil, nil, "RDATE: " + err.Error()
	}
	var extra []caldef.Date
	for _, m := range rd {
		extra = append(extra, m.dayIn(loc))
	}
	return fields, extra, ""
}

// datesFields are date entries' fields for days.
func datesFields(days []caldef.Date) []map[string]any {
	out := make([]map[string]any, len(days))
	for i, d := range days {
		out[i] = map[string]any{"date": d.String()}
	}
	return out
}

// validEntry parses fields as a calendar entry, or says what is wrong.
func validEntry(fields map[string]any) (caldef.Entry, string) {
	raw, err := json.Marshal(map[string]any{"entries": []any{fields}})
	if err != nil {
		return caldef.Entry{}, err.Error()
	}
	cal, err := caldef.Parse(raw)
	if err != nil {
		if ve := problem.As(err); ve != nil && len(ve.Problems) > 0 {
			p := ve.Problems[0]
			return caldef.Entry{}, strings.TrimPrefix(strings.TrimPrefix(p.Path, "entries[0]"), ".") + " " + p.Message
		}
		return caldef.Entry{}, err.Error()
	}
	return cal.Entries[0], ""
}
