// Package calics converts between calendars (models/caldef) and iCalendar
// files (RFC 5545), read and written with github.com/arran4/golang-ical.
//
// Import turns each VEVENT into calendar entries: an all-day event into a
// date or a range (DTEND is exclusive), a timed event into the days it
// touches on the calendar's wall clock, a yearly RRULE on a fixed day into
// a yearly entry (since = DTSTART, until from UNTIL, except from EXDATE),
// and other RRULEs into rule entries in the recurrence JSON where they
// can be expressed; the rest is reported as not imported, with the reason.
// Export writes every entry as an all-day VEVENT: yearly entries as
// yearly RRULE events, rule entries as RRULE events where iCalendar means
// the same days by one (interval 1: week days, month days, week days of
// the month, months), the others expanded into their days over a window
// of years.
package calics
