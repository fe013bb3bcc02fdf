package web

// The view models of the Targets page (SPEC §16.2): a workspace's limits
// of what its jobs send to one host, what runs under each now, and the
// form that adds, changes and removes them.

// TargetsView is the Targets page of a workspace.
type TargetsView struct {
	Workspace string
	Panel     TargetsPanel
}

// TargetsPanel is #targets: the limits and, for editors, the form; htmx
// swaps it whole after a change.
type TargetsPanel struct {
	Workspace string
	Rows      []TargetRow
	// CanEdit shows the form and the buttons (editors and owners).
	CanEdit   bool
	CSRFToken string
	// SaveURL is where the form posts.
	SaveURL string
	Form    TargetForm
	// Message says what the last change did; Error why it was refused.
	Message, Error string
}

// TargetRow is one host's limit.
type TargetRow struct {
	// ID is the row's element id ("target-1").
	ID, Host string
	// MaxConcurrent and MaxPerSecond read "—" when not limited.
	MaxConcurrent, MaxPerSecond string
	// InFlight and Waiting are the attempts running and waiting now
	// (every instance); LongestWait the longest wait in the last hour.
	InFlight, Waiting, LongestWait string
	// Busy marks a host with attempts waiting.
	Busy      bool
	DeleteURL string
}

// TargetForm is the add/change form's values and errors.
type TargetForm struct {
	Host, MaxConcurrent, MaxPerSecond string
	Errors                            FieldErrors
}
