package web

import "sked/models"

// View models of the dashboard, the collection page and the job page with
// its history. The presenters (present_*.go) fill them: every time is
// already formatted, every coordinate of the pictures already computed,
// every URL already built; colours are meanings (Tone, Series), mapped to
// classes in pages_classes.go.

// Instant is a moment as the pages show it. ISO is the RFC 3339 value of
// the <time datetime> attribute, in the zone shown; Local is the readable
// time in that zone; UTC the same moment in UTC, shown alongside (empty
// when the zone is UTC); Relative says how far it is from now ("in 4 min",
// "2 h ago"). The zero Instant is "none".
type Instant struct {
	ISO, Local, UTC, Relative string
}

// IsZero reports whether the instant is "none".
func (i Instant) IsZero() bool { return i.ISO == "" }

// BadgeView is a status badge: its meaning is in Text, the colour only
// repeats it. Tone is what the colour says (badgeClass picks it).
type BadgeView struct {
	Text string
	Tone Tone
}

// ChartTick is a text label of a picture at (X, Y), with its SVG
// text-anchor (start, middle or end).
type ChartTick struct {
	X, Y   int
	Text   string
	Anchor string
}

// LegendItem names a colour (and shape) of a picture.
type LegendItem struct {
	Text   string
	Series Series
}

// ---------------------------------------------------------------- dashboard

// Dashboard is the home page after sign-in.
type Dashboard struct {
	Collections []CollectionRow
	Upcoming    []UpcomingRow
	Failures    []FailureRow
	Activity    ActivityChart
	// NewCollectionURL creates a collection.
	NewCollectionURL string
}

// CollectionRow is one job collection on the dashboard, with its jobs
// counted by state.
type CollectionRow struct {
	Workspace     string
	ResourceGroup string
	Name          string
	URL           string
	State         BadgeView
	SKU           string
	Enabled       int64
	Disabled      int64
	Completed     int64
	Faulted       int64
}

// UpcomingRow is one upcoming occurrence on the dashboard.
type UpcomingRow struct {
	Job, JobURL, Collection, CollectionURL, Description string
	At                                                  Instant
}

// FailureRow is one recent failure on the dashboard.
type FailureRow struct {
	Job, JobURL, Collection, CollectionURL string
	At                                     Instant
	Action, Attempt                        string
	// Summary is the message's first line, shortened; Message the whole.
	Summary, Message string
}

// ActivityChart is the dashboard's picture of the last 24 hours: one
// stacked bar per hour (Completed, Failed, Postponed), with the count as
// text above each bar.
type ActivityChart struct {
	Caption       string
	Width, Height int
	Bars          []ActivityBar
	XTicks        []ChartTick
	YTicks        []ChartTick
	Legend        []LegendItem
	// BaseY is the y of the x axis; PlotX1, PlotX2 its ends.
	BaseY, PlotX1, PlotX2 int
	// Summary counts the whole range in words.
	Summary string
	Empty   bool
}

// ActivityBar is one hour of the activity chart. Label says everything
// (it is the bar's title and aria-label).
type ActivityBar struct {
	Label          string
	Segments       []BarSegment
	Count          string
	CountX, CountY int
	HitX, HitW     int
	HitY, HitH     int
	HasExecutions  bool
}

// BarSegment is one status's part of a bar; Status (a history status)
// picks its fill.
type BarSegment struct {
	X, Y, W, H int
	Status     models.HistoryStatus
}

// --------------------------------------------------------------- collection

// CollectionHead names a collection and links to it.
type CollectionHead struct {
	Workspace, ResourceGroup, Name, URL, SKU, Location string
}

// CollectionPageView is the collection page.
type CollectionPageView struct {
	Head CollectionHead
	// Can is what the viewer may do here: New job and Export need Edit.
	Can       Can
	NewJobURL string
	// Flash is a message from the previous request (a deleted job).
	Flash  string
	Status CollectionStatus
	Jobs   JobList
	// LastChanged is who changed the collection last (audit log).
	LastChanged LastChangedView
	// Signing is the collection's signing secret; Alerts the alert rules
	// that apply to it (notify_views.go).
	Signing SigningPanel
	Alerts  AlertsPanel
}

// CollectionStatus is the #collection-status fragment: the state with the
// enable/disable control and the quota use.
type CollectionStatus struct {
	URL, CSRFToken string
	// EnableURL and DisableURL change the state (POST).
	EnableURL, DisableURL string
	Badge                 BadgeView
	// CanEnable and CanDisable say which button shows.
	CanEnable, CanDisable bool
	// Message confirms the last change (role=status).
	Message string
	// StateNote is who paused the collection, when and why (none unless
	// it is not Enabled, SPEC §13.2); NoteMax bounds the disable form's
	// note.
	StateNote StateNoteView
	NoteMax   int
	// NoteEdit changes the note while the collection is paused (nil: not
	// shown).
	NoteEdit *NoteEdit
	// JobCount and MaxJobs feed a <meter>; QuotaText says "12 of 50 jobs".
	JobCount, MaxJobs                       int
	QuotaText, MaxRecurrence, MaxOccurrence string
}

// JobList is the #collection-jobs fragment: a page of the collection's
// jobs, in name order.
type JobList struct {
	Rows []JobRow
	// NextURL is the next page (keyset), FirstURL the first page when
	// this is not it.
	NextURL, FirstURL string
}

// JobRow is one job of a collection.
type JobRow struct {
	Name, URL   string
	Badge       BadgeView
	Description string
	Next        Instant
	// NextNote replaces Next when there is no next run ("disabled").
	NextNote                      string
	LastResult                    BadgeView
	LastAt                        Instant
	Executions, Failures, Faulted string
	// StateNote is who paused the job, when and why (Text "" when not
	// paused or without a note).
	StateNote StateNoteView
}

// ---------------------------------------------------------------------- job

// JobHead names a job and links to its pages.
type JobHead struct {
	Workspace, ResourceGroup, Collection, CollectionURL string
	Name, URL, EditURL, ExportURL, HistoryURL           string
	Description, Zone, Target                           string
	// Problem is set when the stored definition cannot be read.
	Problem string
	// Cron is the crontab line equivalent to the schedule, "" when none.
	Cron string
	// FeedURL is the job's iCalendar feed with its token (absolute).
	FeedURL string
}

// JobPageView is the job page; HistoryOnly makes it the history page
// (the same history sections without the status and actions).
type JobPageView struct {
	Head JobHead
	// Can is what the viewer may do here: Edit and Export need Edit.
	Can         Can
	HistoryOnly bool
	Status      JobStatus
	Timeline    TimelineView
	Filter      HistoryFilter
	Table       HistoryTable
	// LastChanged is who changed the job last (audit log).
	LastChanged LastChangedView
	// Trends are the success rates and the chart of the last runs (the
	// job page only).
	Trends TrendsView
	// Alerts are the alert rules that apply to the job, with the bell
	// (notify_views.go); not on the history page.
	Alerts AlertsPanel
	// RunChanges is the "Run with changes…" form; nil when the viewer may
	// not edit or the job's action is not http or https.
	RunChanges *RunChangesForm
	// Backfill is the backfill block (SPEC §16.3): the form for operators
	// and up, and the job's backfills; nil on the history page.
	Backfill *BackfillPanel
	// Deadline is the deadline block (present_deadline.go); nil for a job
	// without a deadline or deadline events, and on the history page.
	Deadline *JobDeadlineView
	// Chain are the jobs it runs after and that run after it (SPEC
	// §17.1, triggers_views.go); empty on the history page.
	Chain TriggerChainView
}

// JobStatus is the #job-status fragment: state, counters, next
// occurrences and the buttons that change them.
type JobStatus struct {
	URL, CSRFToken string
	// RunURL, EnableURL, DisableURL and DeleteURL are the buttons'
	// targets.
	RunURL, EnableURL, DisableURL, DeleteURL string
	Name                                     string
	Badge                                    BadgeView
	// CanRun, CanEnable, CanDisable say which buttons show.
	CanRun, CanEnable, CanDisable bool
	// CanDelete shows the delete button (Allow clears it for viewers who
	// are not editors).
	CanDelete bool
	// CollectionNote warns that the collection is not enabled.
	CollectionNote string
	// Message confirms the last action (role=status); Error says why it
	// failed (role=alert).
	Message, Error                string
	Executions, Failures, Faulted string
	LastRun                       Instant
	LastResult                    BadgeView
	Next                          []Instant
	// NextNote explains an empty Next.
	NextNote string
	// Zone is the job's time zone (the one the times are shown in).
	Zone string
	// StateNote is who paused the job, when and why (none unless it is
	// disabled); NoteMax the longest note the disable form takes.
	StateNote StateNoteView
	NoteMax   int
	// NoteEdit changes the note while the job is disabled (nil: not
	// shown).
	NoteEdit *NoteEdit
}

// TimelineView is the #job-timeline fragment: the history over a range as
// a picture, each execution (or, when there are too many, each group of
// them) a focusable mark.
type TimelineView struct {
	// URL refreshes the fragment with the current range.
	URL     string
	Ranges  []RangeLink
	Caption string
	// Summary counts the range in words; Note says when marks are groups.
	Summary, Note string
	Width, Height int
	Lanes         []TimelineLane
	Ticks         []ChartTick
	GridLines     []int
	// PlotX1, PlotX2 bound the plot; AxisY is the y of the time axis;
	// LateY1, LateY2 bound the lateness lane.
	PlotX1, PlotX2, AxisY, LateY1, LateY2 int
	LateLabel, LateMax                    string
	Marks                                 []TimelineMark
	Legend                                []LegendItem
	Empty                                 bool
	// FirstRun, for a job that never ran, says so and when it first runs;
	// the picture is then left out.
	FirstRun string
	// DetailX, DetailY, DetailW place the text shown when a mark has the
	// pointer or the focus.
	DetailX, DetailY, DetailW int
}

// RangeLink switches the timeline's range.
type RangeLink struct {
	Label, Value, URL, HXURL string
	Current                  bool
}

// TimelineLane is one status's row of the timeline.
type TimelineLane struct {
	Label     string
	Y, LabelY int
}

// TimelineMark is one execution (or group) on the timeline. Shape is
// "circle" (Completed), "square" (Failed, and groups) or "diamond"
// (Postponed); Points holds the diamond's points. A lateness line runs
// from LateX1 (expected) to X (started) when HasLateLine; LateBarH > 0
// draws its bar in the lateness lane.
type TimelineMark struct {
	Label, Shape               string
	Status                     models.HistoryStatus
	X, Y, R                    int
	RectX, RectY, RectW, RectH int
	Points                     string
	HasLateLine                bool
	LateX1                     int
	LateBarX, LateBarY         int
	LateBarW, LateBarH         int
	Detail                     string
}

// HistoryFilter is the history table's filter form.
type HistoryFilter struct {
	URL, Status, Action string
	Statuses, Actions   []Choice
}

// HistoryTable is the #history-table fragment: one page of the history,
// newest first, with links to older pages (keyset).
type HistoryTable struct {
	// URL reloads this very page (filters and cursor kept).
	URL  string
	Rows []HistoryRow
	// OlderURL is the next page; NewestURL the first (empty on it).
	OlderURL, NewestURL string
	// Filtered is true when a filter is set (for the empty message).
	Filtered bool
	// Zone is the zone the times are shown in.
	Zone string
	// CanRerun shows the re-run buttons of failed entries (operators);
	// CSRFToken goes into their forms.
	CanRerun  bool
	CSRFToken string
}

// HistoryRow is one history entry.
type HistoryRow struct {
	ID                          string
	Start, Expected             Instant
	Badge                       BadgeView
	Action, Attempt, Occurrence string
	Lateness, Duration          string
	// LimitWait says how long the entry waited for its host's target
	// limit (part of Lateness), "" when it did not.
	LimitWait        string
	Summary, Message string
	// DetailURL opens the entry's detail page; RerunURL re-runs a failed
	// entry's occurrence ("" for other entries); RerunNote says the entry
	// belongs to a re-run ("re-run of entry 12 by alice").
	DetailURL, RerunURL, RerunNote string
}

// JobDeleteView is the page that confirms deleting a job (used without
// htmx; htmx asks with hx-confirm).
type JobDeleteView struct {
	Name, Collection, URL, CancelURL, CSRFToken, Error string
}
