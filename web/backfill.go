package web

import (
	"fmt"
	"time"

	"sked/models"
)

// The job page's backfill block (SPEC §16.3): the form with its preview
// (a dry run) for operators and up, and the job's backfills with their
// progress and a Cancel button.

// BackfillPanel is #job-backfill.
type BackfillPanel struct {
	// Form is the backfill form; nil for viewers who may not backfill.
	Form *BackfillForm
	// List is the job's backfills.
	List BackfillList
}

// BackfillForm is #backfill-form: the fields as typed, their errors, the
// preview of the last dry run and the message of the last start.
type BackfillForm struct {
	URL, CSRFToken                       string
	From, To, Only, Order, MaxConcurrent string
	// Zone is the zone a local from or to is read in (the viewer's).
	Zone   string
	Errors FieldErrors
	// Message says what the last start did; Error why a backfill was
	// refused (the job is disabled or ended).
	Message, Error string
	Preview        *BackfillPreview
}

// BackfillPreview is the table of a dry run: each occurrence of the range
// and what a backfill would do with it.
type BackfillPreview struct {
	Rows        []BackfillPreviewRow
	Run, Skip   int
	Hidden      int // rows beyond those shown
	Description string
}

// BackfillPreviewRow is one occurrence of a dry run.
type BackfillPreviewRow struct {
	When   Instant
	Action BadgeView
	Reason string
}

// BackfillList is #job-backfills: the job's backfills, newest first; it
// refreshes itself every two seconds while one runs (Refresh) and when
// one starts. URL carries Seen, what the list shows (BackfillSeen).
type BackfillList struct {
	URL, CSRFToken string
	Refresh        bool
	Seen           string
	Items          []BackfillItem
}

// BackfillSeen sums up what a list of backfills shows of their runs: it
// changes when a run ends or a backfill is added.
func BackfillSeen(bs []models.Backfill) string {
	n := 0
	for i := range bs {
		n += bs[i].Done() + bs[i].Started
	}
	return fmt.Sprintf("%d.%d", len(bs), n)
}

// BackfillItem is one backfill with its progress.
type BackfillItem struct {
	ID       int64
	Label    string
	State    BadgeView
	Range    string
	Settings string
	// Progress says how many runs ended of how many, and how.
	Progress string
	// Percent is the share of runs that ended (0–100).
	Percent int
	By      string
	Created Instant
	// CancelURL is the Cancel button's target; "" when it cannot be
	// cancelled (ended, or the viewer may not).
	CancelURL string
}

// MaxPreviewRows caps the rows a preview shows.
const MaxPreviewRows = 500

// BackfillPreviewOf presents a dry run's decisions in loc at now.
func BackfillPreviewOf(ds []models.BackfillDecision, loc *time.Location, now time.Time) *BackfillPreview {
	p := &BackfillPreview{}
	for _, d := range ds {
		if d.Action == models.BackfillRun {
			p.Run++
		} else {
			p.Skip++
		}
		if len(p.Rows) >= MaxPreviewRows {
			p.Hidden++
			continue
		}
		row := BackfillPreviewRow{When: InstantIn(d.ExpectedTime, loc, now), Reason: d.Reason,
			Action: BadgeView{Text: "Run", Tone: ToneGood}}
		if d.Action != models.BackfillRun {
			row.Action = BadgeView{Text: "Skip", Tone: ToneNeutral}
		}
		p.Rows = append(p.Rows, row)
	}
	p.Description = fmt.Sprintf("%s in the range: %d to run, %d skipped.", plural(len(ds), "occurrence"), p.Run, p.Skip)
	return p
}

// BackfillListOf presents the job's backfills in loc at now; canCancel
// says whether the viewer may cancel (operators and up). cancelURL gives
// a backfill's Cancel target.
func BackfillListOf(bs []models.Backfill, loc *time.Location, now time.Time, canCancel bool, cancelURL func(id int64) string) []BackfillItem {
	out := make([]BackfillItem, 0, len(bs))
	for i := range bs {
		b := &bs[i]
		it := BackfillItem{ID: b.ID, Label: fmt.Sprintf("Backfill %d", b.ID), By: b.CreatedBy,
			Created:  InstantIn(b.CreatedAt, loc, now),
			Range:    fmt.Sprintf("%s – %s", b.From.In(orUTC(loc)).Format("2 Jan 2006 15:04"), b.To.In(orUTC(loc)).Format("2 Jan 2006 15:04 MST")),
			Settings: fmt.Sprintf("%s, %s, %d at once", onlyText(b.Only), orderText(b.Order), b.MaxConcurrent),
			Progress: fmt.Sprintf("%d of %d done: %d succeeded, %d failed, %d cancelled; %d running, %d queued; %d skipped",
				b.Done(), b.Total, b.Succeeded, b.Failed, b.Cancelled, b.Started, b.Queued, b.Skipped),
		}
		if b.Total > 0 {
			it.Percent = b.Done() * 100 / b.Total
		} else {
			it.Percent = 100
		}
		switch b.State {
		case models.BackfillRunning:
			it.State = BadgeView{Text: "Running", Tone: ToneGood}
			if canCancel {
				it.CancelURL = cancelURL(b.ID)
			}
		case models.BackfillDone:
			it.State = BadgeView{Text: "Done", Tone: ToneDone}
		default:
			it.State = BadgeView{Text: "Cancelled", Tone: ToneWarning}
		}
		out = append(out, it)
	}
	return out
}

// orUTC is loc, or UTC when nil.
func orUTC(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// onlyText says which occurrences a backfill runs.
func onlyText(o models.BackfillOnly) string {
	switch o {
	case models.BackfillOnlyFailed:
		return "failed ones"
	case models.BackfillAll:
		return "all"
	}
	return "missing ones"
}

// orderText says in which order a backfill runs.
func orderText(o models.BackfillOrder) string {
	if o == models.BackfillNewestFirst {
		return "newest first"
	}
	return "oldest first"
}

// BackfillOnlyOptions and BackfillOrderOptions are the form's choices.
var (
	BackfillOnlyOptions  = []Choice{{Value: string(models.BackfillMissing), Label: "Missing (not succeeded)"}, {Value: string(models.BackfillOnlyFailed), Label: "Those that failed"}, {Value: string(models.BackfillAll), Label: "All"}}
	BackfillOrderOptions = []Choice{{Value: string(models.BackfillOldestFirst), Label: "Oldest first"}, {Value: string(models.BackfillNewestFirst), Label: "Newest first"}}
)
