package web

// MonthPageView is the month view of a workspace: how many runs fall on
// each day of the month.
type MonthPageView struct {
	Workspace string
	Title     string // "December 2026"
	Month     string // "2026-12"
	Zone      string
	Action    string // the month view's path (the zone form's action)
	PrevURL   string
	NextURL   string
	ListURL   string // the workspace's calendars
	Weeks     [][]MonthDayCell
	// Notes say what the counts leave out (past days, capped jobs, jobs
	// over the limit, jobs that could not be compiled).
	Notes []string
	Jobs  int
	// JobsText says how many jobs were counted ("3 enabled jobs counted").
	JobsText string
	// Detail is the chosen day (?d=) when the page is loaded without htmx.
	Detail *DayRunsView
	// Others are the user's other workspaces' month views.
	Others []JobLink
}

// MonthDayCell is one day of the month grid; Day 0 is an empty cell.
type MonthDayCell struct {
	Day      int
	Date     string
	Count    string // "12 runs", "10,000+ runs"
	Runs     int
	Past     bool
	Excluded string // the calendars that exclude the day, "" when none
	URL      string // the day's runs (htmx target #month-day)
	// Level is 0 (no run) to 4 (the month's busiest day): the cell's heat.
	Level int
}

// Class is the cell's Tailwind classes: shaded when a calendar excludes the
// day, dimmed when it is past.
func (d MonthDayCell) Class() string {
	switch {
	case d.Excluded != "":
		return "block h-20 rounded border border-rose-300 bg-rose-100 p-1 text-left hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	case d.Past:
		return "block h-20 rounded border border-slate-200 bg-slate-100 p-1 text-left text-slate-500 hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	case d.Level == 1:
		return "block h-20 rounded border border-slate-200 bg-indigo-50 p-1 text-left hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	case d.Level == 2:
		return "block h-20 rounded border border-slate-200 bg-indigo-100 p-1 text-left hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	case d.Level == 3:
		return "block h-20 rounded border border-slate-200 bg-indigo-200 p-1 text-left hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	case d.Level >= 4:
		return "block h-20 rounded border border-slate-200 bg-indigo-300 p-1 text-left hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	}
	return "block h-20 rounded border border-slate-200 bg-white p-1 text-left hover:ring-2 hover:ring-indigo-400 focus:outline-none focus:ring-2 focus:ring-indigo-500"
}

// DayRunsView is one day of the month view: the runs per hour (a heat
// map) and the runs one by one.
type DayRunsView struct {
	Date     string // "Thursday 24 December 2026"
	Zone     string
	Total    string // "12 runs"
	Excluded string
	Hours    []HourCell
	Runs     []RunRow
	More     int
	Notes    []string
}

// HourCell is one hour of the heat map.
type HourCell struct {
	Hour  string // "09"
	Count int
	Level int // 0 (none) to 4 (the busiest hour)
}

// Class is the hour's Tailwind classes by level.
func (h HourCell) Class() string {
	switch h.Level {
	case 1:
		return "rounded bg-indigo-100 p-1 text-center text-xs text-indigo-900"
	case 2:
		return "rounded bg-indigo-300 p-1 text-center text-xs text-indigo-950"
	case 3:
		return "rounded bg-indigo-500 p-1 text-center text-xs text-white"
	case 4:
		return "rounded bg-indigo-700 p-1 text-center text-xs text-white"
	}
	return "rounded bg-slate-100 p-1 text-center text-xs text-slate-500"
}

// RunRow is one run of the day.
type RunRow struct {
	Time string // on the view's zone: "09:30"
	UTC  string // "08:30 UTC"
	Job  string
	URL  string
}
