package web

// CalendarsPageView is the calendars of a workspace.
type CalendarsPageView struct {
	Workspace string
	Flash     string
	NewURL    string
	ImportURL string
	MonthURL  string
	Rows      []CalendarRow
	// Others are the user's other workspaces' calendar pages.
	Others []JobLink
}

// CalendarRow is one calendar in the list.
type CalendarRow struct {
	Name    string
	URL     string
	Zone    string
	Entries int
	// Next are the next excluded days ("Thu 24 Dec 2026 · Christmas Eve").
	Next []string
	// Jobs are the jobs that exclude the calendar.
	Jobs []JobLink
}

// JobLink is a job's path and page.
type JobLink struct {
	Name string
	URL  string
}

// CalendarPageView is a calendar with its year view.
type CalendarPageView struct {
	Workspace   string
	Name        string
	Zone        string
	Description string
	Version     int64
	Entries     int
	Year        int
	Flash       string
	ListURL     string
	PrevURL     string
	NextURL     string
	EditURL     string
	ImportURL   string
	ExportURL   string
	DeleteURL   string
	Months      []MonthGrid
	// Days are the excluded days of the year, in order.
	Days []ExcludedDayView
	Jobs []JobLink
}

// MonthGrid is a small month of the year view: weeks from Monday.
type MonthGrid struct {
	Title string
	Weeks [][]DayCell
}

// DayCell is one day of a month grid; Day 0 is an empty cell.
type DayCell struct {
	Day      int
	Date     string
	Excluded bool
	Label    string
}

// Class is the cell's Tailwind classes.
func (d DayCell) Class() string {
	if d.Excluded {
		return "rounded bg-rose-200 font-semibold text-rose-900"
	}
	return "text-slate-700"
}

// ExcludedDayView is one excluded day in the list below the year.
type ExcludedDayView struct {
	Date  string
	Label string
}

// CalendarForm creates or edits a calendar: the entries are edited as the
// JSON array of the calendar's entries.
type CalendarForm struct {
	Workspace   string
	IsNew       bool
	Name        string
	TimeZone    string
	Description string
	Entries     string
	// Version is the calendar's version when the form was opened (0 for
	// a new one): a save after someone else's is refused.
	Version   int64
	Action    string
	CancelURL string
	CSRFToken string
	// Conflict says that someone else saved the calendar in the meantime.
	Conflict string
	Errors   FieldErrors
	// EntryProblems are the problems of single entries
	// ("entries[3].to: …").
	EntryProblems []string
}

// CalendarImportView is the import of an .ics file: the upload, then the
// dry run's report with the button that imports.
type CalendarImportView struct {
	Workspace string
	Name      string
	TimeZone  string
	Action    string
	CancelURL string
	CSRFToken string
	Errors    FieldErrors
	// Report is the dry run's (or the import's) report; nil before an
	// upload.
	Report *CalendarImportReport
	// ICS carries the uploaded file to the import step.
	ICS string
}

// CalendarImportReport is what an import adds.
type CalendarImportReport struct {
	DryRun      bool
	Created     bool
	TimeZone    string
	Entries     int
	Added       []ICSRow
	Existing    []ICSRow
	NotImported []ICSRow
	CalendarURL string
}

// ICSRow is one event of the file and what became of it.
type ICSRow struct {
	Event string
	Entry string
	Note  string
}

// CalendarDeleteView asks to confirm a calendar's deletion.
type CalendarDeleteView struct {
	Workspace string
	Name      string
	Action    string
	CancelURL string
	CSRFToken string
	Error     string
	Jobs      []JobLink
}
