package web

// The view models of the notifications' pages (SPEC §13.3): the Channels
// page of a workspace with its delivery log, the alert rules shown on the
// Channels, collection and job pages, the job page's bell, and the signing
// secret of a collection. Presenters: present_channels.go,
// present_alerts.go, present_deliveries.go, present_signing.go.

// Words of the notifications' pages that are spelt like job and history
// states but name other things.
const (
	// wordFailed is the badge of a delivery or a test event that did not
	// go through.
	wordFailed = "Failed"
	// wordFaulted is the occurrenceFaulted event as a rule's summary says
	// it ("faulted, recovered → #ops").
	wordFaulted = "faulted"
)

// ChannelsView is the Channels page of a workspace.
type ChannelsView struct {
	Workspace string
	// Can is what the viewer may do: Manage shows the forms.
	Can    Can
	Panel  ChannelsPanel
	Alerts AlertsPanel
	Log    DeliveryLog
}

// ChannelsPanel is #channels: the channels, the secret of a webhook just
// created (shown once), the outcome of the last change and the forms
// that add channels.
type ChannelsPanel struct {
	Workspace, CSRFToken string
	// CanManage shows the forms and the delete and test buttons.
	CanManage bool
	// CreateURL is where the forms post.
	CreateURL string
	Channels  []ChannelRow
	// NewSecret is the signing secret of the webhook channel just
	// created: shown this once.
	NewSecret *NewSecret
	// Message confirms the last change (role=status); Error says why it
	// was refused (role=alert).
	Message, Error string
	// Forms are the forms of the four channel types, in the order webhook,
	// slack, teams, email; the one with errors is open.
	Forms []ChannelForm
}

// NewSecret is a secret shown once: what it belongs to and its value.
type NewSecret struct {
	// ID is the element id of its text ("new-secret-value").
	ID    string
	Owner string
	Value string
}

// ChannelRow is one channel of the list, <li id="channel-NAME">.
type ChannelRow struct {
	ID, Name, Description string
	// Type is "webhook", "slack", "teams" or "email"; TypeLabel says it
	// for people ("Slack").
	Type, TypeLabel string
	// Target is where it sends, without secrets: a URL, "hooks.slack.com",
	// "smtp.example.com:587 → ops@example.com".
	Target string
	// Default marks the channel the job page's bell sends to.
	Default bool
	// Rules counts the alert rules that send to it ("2 alert rules").
	Rules string
	// CSRFToken goes into the row's forms (the row is swapped alone).
	CSRFToken string
	// CanManage shows the test and delete buttons.
	CanManage          bool
	TestURL, DeleteURL string
	// Test is the answer of "send a test event", shown in place.
	Test *TestAnswer
}

// TestAnswer is the outcome of a test event.
type TestAnswer struct {
	Badge BadgeView
	// Text is the peer's answer: "HTTP 200 OK · 12 ms", "250 2.0.0 Ok";
	// Error what went wrong.
	Text, Error string
}

// ChannelForm is the form that adds a channel of one type. Its fields
// apply as the type says; their ids are Type + "-" + the field.
type ChannelForm struct {
	// Summary opens the form ("Add a Slack channel"); Title names the
	// type ("Slack").
	Type, Title, Summary, Help string
	Open                       bool
	Name, Description          string
	// URL is a webhook's, Slack's or Teams' address.
	URL string
	// The SMTP settings of an email channel.
	Host, Port, Security, User, From, To string
	Errors                               FieldErrors
}

// IsEmail says that the form is the email channel's.
func (f ChannelForm) IsEmail() bool { return f.Type == "email" }

// FieldID is the element id of the form's field name.
func (f ChannelForm) FieldID(name string) string { return f.Type + "-" + name }

// DeliveryLog is #delivery-log: a page of the workspace's notifications,
// newest first, with its filters.
type DeliveryLog struct {
	// URL is the log without a cursor (the filter form's action and the
	// refresh link).
	URL    string
	Filter DeliveryFilterView
	Rows   []DeliveryRow
	// Filtered says that a filter is set (for the empty message).
	Filtered bool
	// OlderURL is the next page; NewestURL the first (when on a later
	// page); "" when there is none.
	OlderURL, NewestURL string
	// Zone names the time zone of the times.
	Zone string
}

// DeliveryFilterView is the delivery log's filter form.
type DeliveryFilterView struct {
	Channel, Status, Event, Since string
	Channels, Statuses, Events    []Choice
	SinceChoices                  []Choice
}

// DeliveryRow is one notification of the log.
type DeliveryRow struct {
	ID                   string
	Channel, Rule, Event string
	// Job names the job the event is about ("jc / j"), "" for a test.
	Job    string
	Badge  BadgeView
	At     Instant
	Tries  string
	Answer string
	// Next says when a pending notification is tried again.
	Next string
}

// AlertsPanel is #alerts: the alert rules that apply to a page's scope
// (workspace, collection or job), with the form that adds one there, and
// on the job page the bell.
type AlertsPanel struct {
	CSRFToken string
	// Scope is the page's scope; ScopeText says it ("this job").
	ResourceGroup, Collection, Job, ScopeText string
	// CanManage shows the add form and the remove buttons.
	CanManage bool
	Rules     []AlertRow
	// AddURL is where the add form posts; ChannelsURL the Channels page.
	AddURL, ChannelsURL string
	// Channels are the workspace's channels (the add form's select);
	// empty means rules cannot be added yet.
	Channels []Choice
	Events   []EventChoice
	Form     AlertForm
	// Message confirms the last change; Error says why it was refused.
	Message, Error string
	// Bell is the job page's "tell me when this job fails"; nil elsewhere.
	Bell *Bell
	// OOB marks the panel as an out-of-band swap (htmx hx-swap-oob): it
	// rides along with the Channels panel after a channel changed.
	OOB bool
}

// EventChoice is one event checkbox of the add form.
type EventChoice struct {
	Value, Label string
	Checked      bool
}

// AlertForm is what the add form holds after a refused submission.
type AlertForm struct {
	Channel, Threshold, MinInterval string
	Errors                          FieldErrors
}

// AlertRow is one rule: "faulted, recovered → #ops-slack".
type AlertRow struct {
	ID, Name string
	// Summary is the events and the channel; Scope where it applies
	// ("whole workspace", "collection rg / jc"); Throttle its minInterval
	// ("at most one message per 15 min"), "" without one.
	Summary, Scope, Throttle string
	// RemoveURL removes it (POST).
	RemoveURL string
}

// Bell is the job page's quick "tell me when this job fails".
type Bell struct {
	// On says that a rule already tells of the job's faults.
	On bool
	// URL creates the rule (POST); "" when the workspace has no channel:
	// then SetupURL links to the Channels page.
	URL, SetupURL string
	// Label says what the bell does or did.
	Label string
}

// SigningPanel is #collection-signing: whether the collection signs its
// jobs' requests, the secret just made (shown once) and the controls.
type SigningPanel struct {
	CSRFToken string
	Enabled   bool
	// Text says the state ("Requests are signed since …"); Overlap says
	// until when a rotated secret still signs, "" when none does.
	Text, Overlap string
	// CanEdit shows the controls.
	CanEdit bool
	// NewURL generates or rotates (POST, field overlap); RemoveURL
	// removes.
	NewURL, RemoveURL string
	// Overlaps are the rotation's choices.
	Overlaps  []Choice
	NewSecret *NewSecret
	// Message confirms the last change; Error says why it was refused.
	Message, Error string
}
