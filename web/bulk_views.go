package web

// The view models of a job's state note (SPEC §13.2) and of the bulk
// actions of the "All jobs" page (alljobs_bulk.templ); the presenters are
// present_statenote.go and present_bulk.go.

// StateNoteView says who paused a job, when and why. The zero value (a
// job that is not disabled) shows nothing.
type StateNoteView struct {
	// Text is the whole sentence ("Paused by alice 2 h ago: waiting for
	// the vendor's maintenance"), for lists and titles.
	Text string
	// By is who paused it ("" when unknown), When when (zero when
	// unknown), Note why ("" for no note).
	By   string
	When Instant
	Note string
	// Tail ends the sentence after who and when: ": " and the note, or
	// ".".
	Tail string
}

// BulkBar is the bulk actions' form below the "All jobs" results: the
// selection (the rows' checkboxes, or every job that matches the filter)
// and the actions.
type BulkBar struct {
	// Action is the form's target (POST); CSRFToken its hidden field.
	Action, CSRFToken string
	// Filter are the hidden fields that carry the filter (for "all
	// matching").
	Filter []FormField
	// MatchLabel labels the "all matching" checkbox ("All 1,234 jobs that
	// match the filter"); "" hides it (one page holds every match).
	MatchLabel string
	// NoteMax is the longest note (characters).
	NoteMax int
}

// BulkConfirm is the page that asks before a bulk delete: how many jobs
// and which, with the form that deletes them.
type BulkConfirm struct {
	Action, CSRFToken string
	// Hidden are the fields that carry the selection again.
	Hidden []FormField
	// Title is "Delete 3 jobs?"; Names the jobs' paths (the first
	// BulkConfirmNames), More how many are not listed ("and 12 more").
	Title string
	Names []string
	More  string
	// Button is the delete button's text; BackURL the page to return to.
	Button, BackURL string
}

// BulkError is the page of a refused bulk action: what went wrong and the
// way back.
type BulkError struct {
	Message, BackURL string
}

// FormField is a hidden field of a form: its name and value.
type FormField struct {
	Name, Value string
}
