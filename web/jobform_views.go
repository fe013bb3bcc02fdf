package web

// JobForm is the job form (SPEC §9): its fields map one-to-one to the job
// JSON (jobform_codec.go). Lists hold what is checked. Mode is "form" (the
// builder) or "json" (the raw JSON tab, whose text is JSON).
type JobForm struct {
	JobFormFrame

	Name, Mode, JSON                         string
	ActionType, Method, URI, Headers, Body   string
	AuthType, Username, Password, Pfx        string
	Tenant, Audience, ClientID, Secret       string
	StartTime, TimeZone                      string
	Frequency, Interval, End, Count, EndTime string
	// Window is recurrence.window, the spread window (ISO 8601).
	Window                            string
	Minutes, Hours, MonthDays, Months []int
	WeekDays                          []string
	// Occurrences are "n:weekday" ("-1:friday" is the last Friday).
	Occurrences                          []string
	RetryType, RetryInterval, RetryCount string
	// MaxRetryInterval caps an exponential policy's waits (ISO 8601).
	MaxRetryInterval                     string
	ErrorAction                          bool
	ErrorMethod, ErrorURI, ErrorBody     string
	State, Misfire, Concurrency, Timeout string
	// PreviewCount is how many occurrences the preview lists: 10, 25, 50
	// or 100.
	PreviewCount string
	// Cron is the crontab line pasted to fill the builder (SPEC §13.7).
	Cron string
	// ExcludeCalendars and OnExcluded are recurrence.calendars ("Skip
	// days in calendars").
	ExcludeCalendars []string
	OnExcluded       string
	// Deadline is properties.deadline (jobform_deadline.go).
	Deadline JobFormDeadline
	// TriggerAfter (one rg/jc/job per line), TriggerOn and TriggerWithin
	// are properties.trigger, when Frequency is FrequencyAfter
	// (jobform_trigger.go).
	TriggerAfter, TriggerOn, TriggerWithin string

	// Errors are field errors; Problems the ones no field shows; Notice a
	// message above the form (such as why the form cannot show a job).
	Errors   FieldErrors
	Problems []string
	Notice   string
	// Preview is the preview shown when the page opens.
	Preview JobPreview
}

// JobFormFrame is what the job form shows around its fields, the same
// whatever they hold: where it is and where it posts, and the choices
// it offers.
type JobFormFrame struct {
	// Collection locates the job's collection; Action is where the form
	// posts; Edit is true when an existing job is edited (its name is
	// fixed).
	Collection CollectionRef
	Action     string
	Edit       bool
	// CSRFToken goes into the form for requests without htmx.
	CSRFToken string
	// PreviewURL is where the live preview posts the form.
	PreviewURL string
	// Zones are the time zone names offered (IANA).
	Zones []string
	// CalendarOptions are the workspace's calendars, offered to "Skip
	// days in calendars", and CalendarsURL their page.
	CalendarOptions []string
	CalendarsURL    string
}

// CollectionRef names a collection for links.
type CollectionRef struct {
	Workspace, ResourceGroup, Name string
}

// JobPreview is the live preview of the job being edited.
type JobPreview struct {
	// Valid is false when the job has problems (then only Problems is
	// set).
	Valid       bool
	Description string
	Zone        string
	Occurrences []PreviewOccurrence
	Warnings    []string
	Problems    []string
	// Calendar is the next six weeks, Monday first.
	Calendar []CalendarDay
	// FieldErrors update the form's error slots out of band.
	FieldErrors FieldErrors
	// Compact, when set, makes the live preview's answer update the
	// builder's compact preview (#preview-compact) out of band too; the
	// JSON tab has none.
	Compact bool
}

// PreviewOccurrence is one upcoming occurrence.
type PreviewOccurrence struct {
	// RFC3339 is the instant; Local its wall time in the job's zone; UTC
	// the same in UTC.
	RFC3339, Local, UTC string
	// Note, when set, says why the run is there (StartNowNote).
	Note string
}

// CalendarDay is one day of the calendar strip.
type CalendarDay struct {
	Date, Label, Month string
	Count              int
	Today              bool
}

// NewCollectionForm creates a job collection.
type NewCollectionForm struct {
	// Workspace is where the collection goes (a hidden field ws; the
	// header's workspace switcher), "" for the user's first workspace.
	Workspace                string
	Name, ResourceGroup, SKU string
	Errors                   FieldErrors
	Problems                 []string
}
