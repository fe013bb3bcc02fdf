package calics

import (
	"fmt"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"sked/models/caldef"
)

// ExportYears is how many years from the current one rule entries are
// expanded into single days on export.
const ExportYears = 10

// Expander lists the days of a rule entry of a calendar from from to to
// (both included).
type Expander func(e caldef.Entry, from, to caldef.Date) ([]caldef.Date, error)

// Export writes the calendar name as an iCalendar file of all-day events:
// a date or range as one event (DTEND exclusive), a yearly entry as a
// yearly RRULE event (UNTIL, EXDATE), a rule entry as one event per day
// from the start of now's year for ExportYears years (expand lists them).
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
	stamp := now.UTC()
	from := caldef.Date{Year: now.Year(), Month: time.January, Day: 1}
	to := caldef.Date{Year: now.Year() + ExportYears - 1, Month: time.December, Day: 31}
	for i, e := range cal.Entries {
		uid := fmt.Sprintf("%s-%d", strings.ToLower(name), i+1)
		switch e.Kind {
		case caldef.KindDate:
			addDayEvent(out, uid, stamp, e.Label, e.Date, e.Date)
		case caldef.KindRange:
			addDayEvent(out, uid, stamp, e.Label, e.Date, e.To)
		case caldef.KindYearly:
			addYearlyEvent(out, uid, stamp, e)
		case caldef.KindRule:
			lo, hi := from, to
			if e.Since != nil && lo.Before(*e.Since) {
				lo = *e.Since
			}
			if e.Until != nil && e.Until.Before(hi) {
				hi = *e.Until
			}
			if hi.Before(lo) {
				continue
			}
			days, err := expand(e, lo, hi)
			if err != nil {
				return "", fmt.Errorf("calics: export entry %d: %w", i+1, err)
			}
			for _, d := range days {
				addDayEvent(out, uid+"-"+d.String(), stamp, e.Label, d, d)
			}
		}
	}
	return out.Serialize(), nil
}

// addDayEvent adds an all-day event from first to last (included).
func addDayEvent(out *ics.Calendar, uid string, stamp time.Time, label string, first, last caldef.Date) *ics.VEvent {
	ev := out.AddEvent(uid + "@sked")
	ev.SetDtStampTime(stamp)
	ev.SetAllDayStartAt(first.Time())
	ev.SetAllDayEndAt(addDays(last, 1).Time())
	if label != "" {
		ev.SetSummary(label)
	}
	ev.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT")
	return ev
}

// addYearlyEvent adds a yearly entry as a recurring all-day event that
// starts on its first day on or after since (1900 or, for 02-29, 1904,
// without since).
func addYearlyEvent(out *ics.Calendar, uid string, stamp time.Time, e caldef.Entry) {
	since := caldef.Date{Year: caldef.FirstYear, Month: time.January, Day: 1}
	if e.Since != nil {
		since = *e.Since
	}
	first, ok := firstYearly(e.Month, e.Day, since)
	if !ok || (e.Until != nil && e.Until.Before(first)) {
		return
	}
	ev := addDayEvent(out, uid, stamp, e.Label, first, first)
	rule := fmt.Sprintf("FREQ=YEARLY;BYMONTH=%d;BYMONTHDAY=%d", int(e.Month), e.Day)
	if e.Until != nil {
		rule += ";UNTIL=" + e.Until.Time().Format("20060102")
	}
	ev.AddRrule(rule)
	if len(e.Except) > 0 {
		days := make([]string, len(e.Except))
		for i, d := range e.Except {
			days[i] = d.Time().Format("20060102")
		}
		ev.AddExdate(strings.Join(days, ","), ics.WithValue(string(ics.ValueDataTypeDate)))
	}
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
