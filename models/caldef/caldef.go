// Package caldef is the wire format of a calendar (SPEC §13.6): the days of
// a workspace on which the jobs that exclude it do not run. It parses and
// validates the calendar JSON and writes it back in canonical form. It is
// pure: no clock, no database. Expanding the entries into days (rules need
// the recurrence core) is recurrence.CompileCalendar's work.
//
// The JSON:
//
//	{"timeZone": "Europe/Berlin", "description": "Public holidays",
//	 "entries": [
//	   {"date": "2026-12-24", "label": "Christmas Eve"},
//	   {"from": "2026-12-27", "to": "2026-12-31", "label": "Between the years"},
//	   {"yearly": "12-25", "label": "Christmas Day", "except": ["2030-12-25"]},
//	   {"rule": {"frequency": "year", "schedule": {"months": [5],
//	     "monthlyOccurrences": [{"day": "monday", "occurrence": -1}]}},
//	    "label": "Memorial Day", "since": "2000-01-01"}]}
//
// Each entry has exactly one of date, from/to, yearly or rule; yearly and
// rule entries may have since, until (inclusive dates bounding them) and
// except (days they leave out, as iCalendar's EXDATE).
package caldef

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"sked/models/jobdef"
)

// Limits of a calendar.
const (
	// MaxEntries bounds the entries of one calendar.
	MaxEntries = 2000
	// MaxRangeDays bounds the length of one date range.
	MaxRangeDays = 3660
	// MaxExcept bounds the except list of one entry.
	MaxExcept = 1000
	// MaxLabel bounds a label's length in characters.
	MaxLabel = 200
	// MaxDescription bounds the description's length in characters.
	MaxDescription = 1000
	// FirstYear and LastYear bound every date of a calendar; rules and
	// yearly entries are expanded over these years.
	FirstYear, LastYear = 1900, 2199
)

// Kind is the kind of a calendar entry.
type Kind string

// The kinds of entries.
const (
	KindDate   Kind = "date"   // one day
	KindRange  Kind = "range"  // the days from Date to To, both included
	KindYearly Kind = "yearly" // the same month and day every year
	KindRule   Kind = "rule"   // the days of a recurrence rule
)

// Date is a calendar day without a zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// String returns the date as 2006-01-02.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// Time returns 00:00 UTC of the date.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// DayNumber returns the days from 1970-01-01 to d.
func (d Date) DayNumber() int64 { return d.Time().Unix() / 86400 }

// Before reports whether d comes before e.
func (d Date) Before(e Date) bool { return d.DayNumber() < e.DayNumber() }

// DateOf returns the date of t's own clock fields.
func DateOf(t time.Time) Date { return Date{t.Year(), t.Month(), t.Day()} }

// ParseDate parses 2006-01-02 within the years FirstYear–LastYear.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return Date{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
	}
	if y := t.Year(); y < FirstYear || y > LastYear {
		return Date{}, fmt.Errorf("%q is outside the years %d–%d", s, FirstYear, LastYear)
	}
	return DateOf(t), nil
}

// Entry is one entry of a calendar.
type Entry struct {
	// Kind says which of the fields below apply.
	Kind Kind
	// Label names the entry ("Christmas Day"); may be empty.
	Label string
	// Date is the day of a date entry and the first day of a range.
	Date Date
	// To is the last day of a range (included).
	To Date
	// Month and Day are the day of a yearly entry (02-29: leap years only).
	Month time.Month
	Day   int
	// Rule is the recurrence of a rule entry: frequency day, week, month or
	// year with day elements only (no hours, minutes, time zone, count,
	// endTime or calendars).
	Rule *jobdef.Recurrence
	// RuleJSON is the rule as given, kept for output.
	RuleJSON json.RawMessage
	// Since and Until bound a yearly or rule entry (both included); nil
	// means from FirstYear or to LastYear. A rule is anchored at Since
	// (default 1900-01-01), which matters for intervals above 1.
	Since, Until *Date
	// Except lists days a yearly or rule entry leaves out.
	Except []Date
}

// Calendar is a parsed calendar.
type Calendar struct {
	// TimeZone is the zone as given (IANA or Windows name), "" for UTC.
	TimeZone string
	// Location is the resolved zone, UTC when TimeZone is empty. A day of
	// the calendar runs from 00:00 to 24:00 on this zone's wall clock.
	Location *time.Location
	// Description is free text.
	Description string
	// Entries are the entries in the order given.
	Entries []Entry
}
