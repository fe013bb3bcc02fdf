package jobdef

import "time"

// Shape tells which of the two accepted JSON shapes a job was read from.
type Shape int

const (
	// ShapeFlat is the seed-style shape {"startTime": …, "action": …}.
	ShapeFlat Shape = iota
	// ShapeARM is the REST API shape {"properties": {…}, "id", "name", "type"}.
	ShapeARM
)

// Frequency is the unit of a recurrence, always lowercase.
type Frequency string

// The frequencies of SPEC §1, and Second (extension, SPEC §16.5).
const (
	Second Frequency = "second"
	Minute Frequency = "minute"
	Hour   Frequency = "hour"
	Day    Frequency = "day"
	Week   Frequency = "week"
	Month  Frequency = "month"
	Year   Frequency = "year"
)

// MaxInterval returns the largest interval allowed for the frequency
// (second 86,400, minute/hour 1000, day 548, week 78, month 18, year 1),
// or 0 for an unknown frequency.
func (f Frequency) MaxInterval() int {
	switch f {
	case Second:
		return 86400
	case Minute, Hour:
		return 1000
	case Day:
		return 548
	case Week:
		return 78
	case Month:
		return 18
	case Year:
		return 1
	}
	return 0
}

// State is the state of a job, always lowercase.
type State string

// The job states. Enabled is the default; Completed and Faulted are set by the
// engine (they are accepted on input so that exported jobs import unchanged).
const (
	Enabled   State = "enabled"
	Disabled  State = "disabled"
	Completed State = "completed"
	Faulted   State = "faulted"
)

// MisfirePolicy says what happens to occurrences missed while the job could
// not run (Sked extension, SPEC §4). The default is MisfireSkip.
type MisfirePolicy string

// The misfire policies.
const (
	MisfireSkip    MisfirePolicy = "skip"
	MisfireRunOnce MisfirePolicy = "runOnce"
)

// Concurrency says whether an occurrence may start while the previous one of
// the same job still runs (Sked extension, SPEC §4). The default is
// ConcurrencyAllow.
type Concurrency string

// The concurrency policies.
const (
	ConcurrencyAllow  Concurrency = "allow"
	ConcurrencyForbid Concurrency = "forbid"
)

// DefaultTimeout is the per-attempt action timeout when none is given.
const DefaultTimeout = 60 * time.Second

// MaxTimeout is the largest per-attempt action timeout.
const MaxTimeout = 10 * time.Minute

// MaxJobBytes is the largest accepted job JSON document, in bytes.
const MaxJobBytes = 16000

// Job is a parsed and validated job definition. The zero value is not a valid
// job; obtain one from Parse.
type Job struct {
	// Shape is the JSON shape the job was read from.
	Shape Shape
	// ID, Name and Type are the ARM envelope fields; informational only, empty
	// for the flat shape.
	ID, Name, Type string

	// StartTime is the job's startTime, or nil when absent.
	StartTime *DateTime
	// Recurrence is the recurrence, or nil for a one-time job.
	Recurrence *Recurrence
	// Trigger is properties.trigger (extension, SPEC §17.1), or nil: a
	// job with a trigger has no recurrence and runs only after its
	// upstream jobs (trigger.go).
	Trigger *Trigger
	// State is the requested state; Enabled when absent.
	State State
	// StateNote is why the job is disabled (properties.stateNote,
	// extension, SPEC §13.2), trimmed; "" for none. It is not part of the
	// stored definition: the store keeps it in a column of its own.
	StateNote string
	// StateNoteGiven reports whether the definition named stateNote, even
	// as "": an editor that shows no note (the job form's builder) leaves
	// it out, and the stored note is then kept (Catalog.EditJob), while an
	// explicit "" clears it.
	StateNoteGiven bool
	// MisfirePolicy defaults to MisfireSkip.
	MisfirePolicy MisfirePolicy
	// Concurrency defaults to ConcurrencyAllow.
	Concurrency Concurrency
	// Deadline is properties.deadline (extension, SPEC §17.2), nil when
	// absent or empty.
	Deadline *Deadline

	// Action is the validated action (with its error action); never nil
	// in a Job returned by Parse.
	Action *Action
}

// Location returns the job's time zone: recurrence.timeZone when set,
// otherwise UTC. It never returns nil.
func (j *Job) Location() *time.Location {
	if j != nil && j.Recurrence != nil && j.Recurrence.Location != nil {
		return j.Recurrence.Location
	}
	return time.UTC
}

// ExcludesCalendars reports whether the job's recurrence names calendars
// (recurrence.calendars), whose days its schedule then needs.
func (j *Job) ExcludesCalendars() bool {
	return j != nil && j.Recurrence != nil && j.Recurrence.Calendars != nil
}

// Recurrence is the parsed recurrence object.
type Recurrence struct {
	// Frequency is required and lowercase.
	Frequency Frequency
	// Interval is at least 1 (the default) and at most Frequency.MaxInterval().
	Interval int
	// Count is the total number of executions, 0 when unlimited.
	Count int
	// EndTime is the inclusive end, or nil when absent.
	EndTime *DateTime
	// Schedule is the advanced schedule, or nil when absent or empty.
	Schedule *Schedule
	// TimeZone is recurrence.timeZone as given (IANA or Windows name), "" when
	// absent.
	TimeZone string
	// Location is the resolved zone: UTC when TimeZone is empty.
	Location *time.Location
	// Calendars is recurrence.calendars (extension, SPEC §13.6), or nil.
	Calendars *Calendars
	// Window is recurrence.window (extension, SPEC §16.1): each
	// occurrence is due at a stable offset in [time, time+Window), whole
	// seconds, at most MaxWindow; zero (the default) runs every occurrence
	// at its time. WindowText is the window as given, "" when absent.
	Window     time.Duration
	WindowText string
}

// MaxWindow is the longest recurrence.window.
const MaxWindow = time.Hour

// Schedule is the advanced schedule. Every list is de-duplicated and keeps the
// order of first appearance; a nil list means the element was not given.
type Schedule struct {
	Minutes            []int
	Hours              []int
	WeekDays           []time.Weekday
	MonthDays          []int
	MonthlyOccurrences []MonthlyOccurrence
	Months             []int
}

// IsEmpty reports whether no element of the schedule is given; an empty
// schedule means the same as no schedule.
func (s *Schedule) IsEmpty() bool {
	return s == nil || (len(s.Minutes) == 0 && len(s.Hours) == 0 && len(s.WeekDays) == 0 &&
		len(s.MonthDays) == 0 && len(s.MonthlyOccurrences) == 0 && len(s.Months) == 0)
}

// MonthlyOccurrence selects the n-th given weekday of a month: Occurrence 1
// to 5 counts from the start, -1 to -5 from the end, and 0 (absent in the
// JSON) means every such weekday of the month.
type MonthlyOccurrence struct {
	Day        time.Weekday
	Occurrence int
}
