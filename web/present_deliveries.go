package web

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"sked/models"
)

// DeliveryPageSize is how many notifications a page of the delivery log
// shows.
const DeliveryPageSize = 50

// DeliveryStatuses are the delivery log's status filter choices.
var DeliveryStatuses = []Choice{
	{"", "Any status"},
	{models.NotificationDelivered, "Delivered"},
	{models.NotificationFailed, wordFailed},
	{models.NotificationPending, "Waiting to retry"},
	{models.NotificationSending, "Sending"},
}

// DeliverySinceChoices are the delivery log's time filter choices.
var DeliverySinceChoices = []Choice{
	{"", "Any time"},
	{"1h", "Last hour"},
	{"24h", "Last 24 hours"},
	{"7d", "Last 7 days"},
	{"30d", "Last 30 days"},
}

// deliverySince is the span of each DeliverySinceChoices value.
var deliverySince = map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// DeliveryParams are the delivery log's query parameters: channel,
// status, event, since (a DeliverySinceChoices value) and before (the
// keyset cursor: the last id of the previous page).
type DeliveryParams struct {
	Channel, Status, Event, Since string
	Before                        int64
}

// ValidDeliveryStatus reports whether s is a status filter value.
func ValidDeliveryStatus(s string) bool { return choiceHas(DeliveryStatuses, s) }

// ValidDeliveryEvent reports whether s is an event filter value ("" or an
// event type, "test" included).
func ValidDeliveryEvent(s string) bool { return s == "" || s == "test" || choiceHas(EventLabels, s) }

// ValidDeliverySince reports whether s is a time filter value.
func ValidDeliverySince(s string) bool { return choiceHas(DeliverySinceChoices, s) }

// choiceHas reports whether one of cs has value v.
func choiceHas(cs []Choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

// Filter is the store's filter of p at now for workspace ws, one row
// more than a page (to know whether an older page exists).
func (p DeliveryParams) Filter(ws string, now time.Time) models.DeliveryFilter {
	f := models.DeliveryFilter{WorkspaceID: ws, Channel: p.Channel, Status: p.Status, EventType: p.Event,
		BeforeID: p.Before, Limit: DeliveryPageSize + 1}
	if d, ok := deliverySince[p.Since]; ok {
		f.Since = now.Add(-d)
	}
	return f
}

// Query is p as URL parameters, with the cursor when withCursor.
func (p DeliveryParams) Query(withCursor bool) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"channel": p.Channel, "status": p.Status, "event": p.Event, "since": p.Since} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if withCursor && p.Before > 0 {
		q.Set("before", strconv.FormatInt(p.Before, 10))
	}
	return q
}

// NewDeliveryLog is the #delivery-log fragment: rows (up to
// DeliveryPageSize+1, newest first, as the store returns them for
// p.Filter) in loc, the filter form with the workspace's channels, and
// the links to the older and the newest page.
func NewDeliveryLog(ws string, p DeliveryParams, channels []string, rows []models.Notification, loc *time.Location, now time.Time) DeliveryLog {
	l := DeliveryLog{URL: DeliveriesPath(ws, p.Query(false)), Zone: locName(loc),
		Filtered: p.Channel != "" || p.Status != "" || p.Event != "" || p.Since != ""}
	l.Filter = DeliveryFilterView{Channel: p.Channel, Status: p.Status, Event: p.Event, Since: p.Since,
		Statuses: DeliveryStatuses, SinceChoices: DeliverySinceChoices}
	l.Filter.Channels = append(l.Filter.Channels, Choice{"", "Any channel"})
	for _, c := range channels {
		l.Filter.Channels = append(l.Filter.Channels, Choice{c, c})
	}
	if p.Channel != "" && !choiceHas(l.Filter.Channels, p.Channel) { // a deleted channel's log
		l.Filter.Channels = append(l.Filter.Channels, Choice{p.Channel, p.Channel + " (deleted)"})
	}
	l.Filter.Events = append(l.Filter.Events, Choice{"", "Any event"}, Choice{"test", "test"})
	l.Filter.Events = append(l.Filter.Events, EventLabels...)
	if len(rows) > DeliveryPageSize {
		rows = rows[:DeliveryPageSize]
		older := p
		older.Before = rows[len(rows)-1].ID
		l.OlderURL = DeliveriesPath(ws, older.Query(true))
	}
	if p.Before > 0 {
		l.NewestURL = l.URL
	}
	for i := range rows {
		l.Rows = append(l.Rows, NewDeliveryRow(&rows[i], loc, now))
	}
	return l
}

// locName is loc's name, UTC for nil.
func locName(loc *time.Location) string {
	if loc == nil {
		return "UTC"
	}
	return loc.String()
}

// NewDeliveryRow is one notification of the log.
func NewDeliveryRow(n *models.Notification, loc *time.Location, now time.Time) DeliveryRow {
	r := DeliveryRow{ID: "delivery-" + strconv.FormatInt(n.ID, 10), Channel: n.ChannelName, Rule: n.RuleName,
		Event: eventLabel(n.EventType), At: InstantIn(n.CreatedAt, loc, now), Tries: Plural(int64(n.Attempts), "try", "tries")}
	var ev struct{ Collection, Job string }
	if json.Unmarshal(n.Event, &ev) == nil && ev.Job != "" {
		r.Job = ev.Collection + " / " + ev.Job
	}
	switch n.Status {
	case models.NotificationDelivered:
		r.Badge = BadgeView{Text: "Delivered", Tone: ToneGood}
	case models.NotificationFailed:
		r.Badge = BadgeView{Text: wordFailed, Tone: ToneBad}
	case models.NotificationSending:
		r.Badge = BadgeView{Text: "Sending", Tone: ToneNeutral}
	default:
		r.Badge = BadgeView{Text: "Waiting to retry", Tone: ToneWarning}
		if n.Attempts == 0 {
			r.Badge.Text = "Queued"
		}
		r.Next = "next try " + RelativeTime(n.NextAttemptAt.Sub(now))
	}
	var parts []string
	if n.LastStatusCode != 0 && !strings.HasPrefix(n.LastAnswer, "HTTP ") {
		parts = append(parts, "HTTP "+strconv.Itoa(n.LastStatusCode))
	}
	for _, s := range []string{n.LastAnswer, n.LastError} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	r.Answer = strings.Join(parts, " · ")
	return r
}

// eventLabel is an event type for people.
func eventLabel(t string) string {
	for _, l := range EventLabels {
		if l.Value == t {
			return l.Label
		}
	}
	return t
}
