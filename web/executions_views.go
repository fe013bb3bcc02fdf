package web

import "sked/models"

// View models of the execution detail page, the running-now page and the
// job's trends. The presenters are in present_execution.go,
// present_running.go and present_trends.go.

// ExecutionPageView is the detail page of one history entry: what was
// sent and received, when, where, and the re-run button.
type ExecutionPageView struct {
	// ID is the entry's id; Title names it ("Execution 42 of nightly").
	ID, Title                      string
	JobName, JobURL, HistoryURL    string
	Collection, CollectionURL      string
	Badge                          BadgeView
	Action, RetryCount, Occurrence string
	Lateness, Duration             string
	// LimitWait says how long the attempt waited for its host's target
	// limit (part of Lateness), "" when it did not.
	LimitWait string
	// Times are the entry's moments in order: expected, due, claimed,
	// sent, ended (those known).
	Times []LabelledInstant
	// Instance is the engine instance that ran the attempt ("" unknown).
	Instance       string
	IdempotencyKey string
	// RerunNote says the entry belongs to a re-run ("Re-run of entry 12
	// by alice"), RerunOfURL links to that entry.
	RerunNote, RerunOfURL string
	// Changes are the changes of a run with changes (SPEC §16.4), as
	// indented JSON with secret header values masked; "" for a run as
	// defined.
	Changes string
	// Reruns are the entries that re-ran this one's occurrence from it.
	Reruns []LinkView
	// Triggers are the upstream executions that triggered this run and
	// the runs its end triggered (SPEC §17.1, triggers_views.go).
	Triggers ExecutionTriggersView
	Message  string
	// Request and Response are nil when none was stored; NoExchange says
	// why.
	Request    *ExchangeRequestView
	Response   *ExchangeResponseView
	NoExchange string
	// CanRerun shows the re-run form (a failed entry, an operator);
	// RerunURL is its target.
	CanRerun            bool
	RerunURL, CSRFToken string
	// Flash confirms a re-run (role=status); Error says why one was
	// refused (role=alert).
	Flash, Error string
	// Zone is the job's time zone, the one the times are shown in.
	Zone string
}

// LabelledInstant is a moment with what it is.
type LabelledInstant struct {
	Label string
	At    Instant
}

// LinkView is a link's text and URL.
type LinkView struct {
	Text, URL string
}

// ExchangeRequestView is a stored request as the page shows it.
type ExchangeRequestView struct {
	Method, URL string
	Headers     []models.HeaderField
	Body        string
	// Notes say what was cut or left out ("body cut at 8 KiB").
	Notes []string
}

// ExchangeResponseView is a stored response as the page shows it.
type ExchangeResponseView struct {
	Status  string
	Badge   BadgeView
	Headers []models.HeaderField
	Body    string
	Notes   []string
}

// RunningView is the running-now page of a workspace and its
// #running-now fragment, which htmx refreshes every few seconds.
type RunningView struct {
	Workspace string
	// URL is the fragment's (and the page's) address.
	URL  string
	Rows []RunningRow
	// Summary counts the attempts in flight; More says the list is cut.
	Summary, More string
	// AsOf is when the list was read.
	AsOf Instant
}

// RunningRow is one attempt in flight.
type RunningRow struct {
	ID                               string
	Job, JobURL, Collection          string
	Action, Attempt, Occurrence      string
	Started                          Instant
	Elapsed, Late, Instance, RerunOf string
}

// TrendsView is the trends section of the job page: the duration and
// lateness of the last runs as a picture, and the success rates.
type TrendsView struct {
	// URL is the trends fragment, which refreshes itself with the history
	// (event sked-history-changed).
	URL   string
	Rates []RateView
	Chart TrendChart
	// Empty says the job has no run yet (the picture is left out).
	Empty bool
}

// RateView is the success rate of one period.
type RateView struct {
	Label, Value, Detail string
	Tone                 Tone
}

// TrendChart is the duration and lateness of the last runs, oldest on the
// left: one bar per run in each of two lanes. Width and Height are the
// picture's viewBox (bars only); the lanes' labels (DurLabel, DurMax,
// LateLabel, LateMax) are HTML beside it.
type TrendChart struct {
	Caption, Summary    string
	Width, Height       int
	PlotX1, PlotX2      int
	DurBaseY, LateBaseY int
	DurLabel, LateLabel string
	DurMax, LateMax     string
	Bars                []TrendBar
	Legend              []LegendItem
}

// TrendBar is one run: its duration bar (coloured by status) and its
// lateness bar, with the words a mark says.
type TrendBar struct {
	Label        string
	Status       models.HistoryStatus
	X, W         int
	DurY, DurH   int
	LateY, LateH int
	HitY, HitH   int
}
