package calics

import (
	"fmt"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"sked/models/caldef"
)

// ExportYears is how many years from the current one the rule entries
// that no RRULE can express are expanded into single days on export.
const ExportYears = 10

// Expander lists the days of a rule entry of a calendar from from to to
// (both included).
type Expander func(e caldef.Entry, from, to caldef.Date) ([]caldef.Date, error)

// Export writes the calendar name as an iCalendar file of all-day events:
// a date or range as one event (DTEND exclusive), a yearly entry as a
// yearly RRULE event (UNTIL, EXDATE), a rule entry as an RRULE event when
// iCalendar can say it (ruleRRULE), else as one event per day from the
// start of now's year for ExportYears years. expand lists a rule's days;
// now also stamps the events (DTSTAMP).
func Export(name string, cal *caldef.Calendar, now time.Time, expand Expander) (string, error) {
	out := ics.NewCalendarFor("Sked")
	out.SetProductId("-//Sked//Calendars//EN")
	out.SetMethod(ics.MethodPublish)
	out.SetXWRCalName(name)
	if cal.TimeZone != "" {
		out.SetXWRTimezone(cal.Location.String())
	}
	if cal.Description != "" {
		out.SetXWRCalDesc(cal.Description)
	}
	w := &calendarWriter{cal: out, stamp: now.UTC()}
	from := caldef.Date{Year: now.Year(), Month: time.January, Day: 1}
	to := caldef.Date{Year: now.Year() + ExportYears - 1, Month: time.December, Day: 31}
	for i, e := range cal.Entries {
		uid := fmt.Sprintf("%s-%d", strings.ToLower(name), i+1)
		switch e.Kind {
		case caldef.KindDate:
			w.day(uid, e.Label, e.Date, e.Date)
		case caldef.KindRange:
			w.day(uid, e.Label, e.Date, e.To)
		case caldef.KindYearly:
			w.yearly(uid, e)
		case caldef.KindRule:
			done, err := addRuleEvent(w, uid, e, expand)
			if err != nil {
				return "", fmt.Errorf("calics: export entry %d: %w", i+1, err)
			}
			if !done {
				if err := w.expanded(uid, e, from, to, expand); err != nil {
					return "", fmt.Errorf("calics: export entry %d: %w", i+1, err)
				}
			}
		}
	}
	return out.Serialize(), nil
}

// calendarWriter adds all-day events to an iCalendar file.
type calendarWriter struct {
	cal   *ics.Calendar
	stamp time.Time
}

// day adds an all-day event from first to last (included).
func (w *calendarWriter) day(uid, label string, first, last caldef.Date) *ics.VEvent {
	ev := w.cal.AddEvent(uid + "@sked")
	ev.SetDtStampTime(w.stamp)
	ev.SetAllDayStartAt(first.Time())
	ev.SetAllDayEndAt(addDays(last, 1).Time())
	if label != "" {
		ev.SetSummary(label)
	}
	ev.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT")
	return ev
}

// recurring adds a recurring all-day event from start by rule, leaving
// out except.
func (w *calendarWriter) recurring(uid, label string, start caldef.Date, rule string, except []caldef.Date) {
	ev := w.day(uid, label, start, start)
	ev.AddRrule(rule)
	if len(except) > 0 {
		days := make([]string, len(except))
		for i, d := range except {
			days[i] = d.Time().Format("20060102")
		}
		ev.AddExdate(strings.Join(days, ","), ics.WithValue(string(ics.ValueDataTypeDate)))
	}
}

// yearly adds a yearly entry as a recurring event that starts on its first
// day on or after since (1900 or, for 02-29, 1904, without since).
func (w *calendarWriter) yearly(uid string, e caldef.Entry) {
	since := caldef.Date{Year: caldef.FirstYear, Month: time.January, Day: 1}
	if e.Since != nil {
		since = *e.Since
	}
	first, ok := firstYearly(e.Month, e.Day, since)
	if !ok || (e.Until != nil && e.Until.Before(first)) {
		return
	}
	rule := fmt.Sprintf("FREQ=YEARLY;BYMONTH=%d;BYMONTHDAY=%d", int(e.Month), e.Day)
	if e.Until != nil {
		rule += ";UNTIL=" + e.Until.Time().Format("20060102")
	}
	w.recurring(uid, e.Label, first, rule, e.Except)
}

// expanded adds the days of a rule entry from from to to (within its since
// and until), one event each.
func (w *calendarWriter) expanded(uid string, e caldef.Entry, from, to caldef.Date, expand Expander) error {
	if e.Since != nil && from.Before(*e.Since) {
		from = *e.Since
	}
	if e.Until != nil && e.Until.Before(to) {
		to = *e.Until
	}
	if to.Before(from) {
		return nil
	}
	days, err := expand(e, from, to)
	if err != nil {
		return err
	}
	for _, d := range days {
		w.day(uid+"-"+d.String(), e.Label, d, d)
	}
	return nil
}

// firstYearly is the first month/day on or after since that exists (02-29
// only in leap years), within caldef's years.
func firstYearly(month time.Month, day int, since caldef.Date) (caldef.Date, bool) {
	for y := since.Year; y <= caldef.LastYear; y++ {
		t := time.Date(y, month, day, 0, 0, 0, 0, time.UTC)
		if t.Day() != day {
			continue // 02-29 in a common year
		}
		d := caldef.DateOf(t)
		if !d.Before(since) {
			return d, true
		}
	}
	return caldef.Date{}, false
}
