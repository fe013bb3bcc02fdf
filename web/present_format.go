package handlers

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
	"sked/web"
)

// The formatting of the dashboard, collection and job pages: every time
// and number the templates show is made here (web does no time
// arithmetic).

// instantIn is t as the pages show it: in loc, with UTC alongside (unless
// loc is UTC) and how far it is from now.
func instantIn(t time.Time, loc *time.Location, now time.Time) web.Instant {
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	i := web.Instant{
		ISO:      lt.Format(time.RFC3339),
		Local:    lt.Format("Mon 2 Jan 2006 15:04:05 MST"),
		Relative: relativeTime(t.Sub(now)),
	}
	if loc.String() != "UTC" {
		i.UTC = t.UTC().Format("2 Jan 15:04:05") + " UTC"
	}
	return i
}

// instantPtr is instantIn for an optional time: the zero Instant for nil.
func instantPtr(t *time.Time, loc *time.Location, now time.Time) web.Instant {
	if t == nil {
		return web.Instant{}
	}
	return instantIn(*t, loc, now)
}

// relativeTime says how far a moment is: "in 4 min", "2 h ago", "now".
func relativeTime(d time.Duration) string {
	future := d > 0
	if d < 0 {
		d = -d
	}
	var s string
	switch {
	case d < time.Second:
		return "now"
	case d < time.Minute:
		s = fmt.Sprintf("%d s", int(d/time.Second))
	case d < time.Hour:
		s = fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%d h", int(d/time.Hour))
	default:
		s = fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// spanText writes a duration for people: "0 ms", "120 ms", "1.2 s",
// "2 min 5 s", "3 h 4 min", "2 days 3 h".
func spanText(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		m := int(d / time.Minute)
		if s := int((d % time.Minute) / time.Second); s != 0 {
			return fmt.Sprintf("%d min %d s", m, s)
		}
		return fmt.Sprintf("%d min", m)
	case d < 48*time.Hour:
		h := int(d / time.Hour)
		if m := int((d % time.Hour) / time.Minute); m != 0 {
			return fmt.Sprintf("%d h %d min", h, m)
		}
		return fmt.Sprintf("%d h", h)
	}
	days := int(d / (24 * time.Hour))
	if h := int((d % (24 * time.Hour)) / time.Hour); h != 0 {
		return fmt.Sprintf("%d days %d h", days, h)
	}
	return fmt.Sprintf("%d days", days)
}

// latenessText is the lateness of an entry, or "—" when it has none.
func latenessText(ms *int64) string {
	if ms == nil {
		return "—"
	}
	return spanText(time.Duration(*ms) * time.Millisecond)
}

// fmtCount formats a counter with thousands separators: "12,345".
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtPlural is "1 job", "2 jobs".
func fmtPlural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmtCount(n) + " " + many
}

// jobStateBadge is the badge of a job's state.
func jobStateBadge(state string) web.BadgeView {
	switch state {
	case "enabled":
		return web.BadgeView{Text: "Enabled", Class: web.BadgeGreen}
	case "disabled":
		return web.BadgeView{Text: "Disabled", Class: web.BadgeSlate}
	case "completed":
		return web.BadgeView{Text: "Completed", Class: web.BadgeBlue}
	case "faulted":
		return web.BadgeView{Text: "Faulted", Class: web.BadgeRed}
	}
	return web.BadgeView{Text: state, Class: web.BadgeSlate}
}

// collectionStateBadge is the badge of a collection's state.
func collectionStateBadge(state string) web.BadgeView {
	switch state {
	case "Enabled":
		return web.BadgeView{Text: "Enabled", Class: web.BadgeGreen}
	case "Disabled":
		return web.BadgeView{Text: "Disabled", Class: web.BadgeSlate}
	case "Suspended":
		return web.BadgeView{Text: "Suspended", Class: web.BadgeAmber}
	}
	return web.BadgeView{Text: state, Class: web.BadgeSlate}
}

// historyBadge is the badge of a history entry's status.
func historyBadge(status string) web.BadgeView {
	switch status {
	case models.StatusCompleted:
		return web.BadgeView{Text: "Completed", Class: web.BadgeGreen}
	case models.StatusFailed:
		return web.BadgeView{Text: "Failed", Class: web.BadgeRed}
	case models.StatusPostponed:
		return web.BadgeView{Text: "Postponed", Class: web.BadgeAmber}
	}
	return web.BadgeView{Text: status, Class: web.BadgeSlate}
}

// messageSummary is the first line of a message, at most 80 characters.
func messageSummary(msg string) string {
	line, _, more := strings.Cut(strings.TrimSpace(msg), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > 80 {
		r := []rune(line)
		return string(r[:79]) + "…"
	}
	if more {
		return line + " …"
	}
	return line
}

// parsedJob is a stored job's definition read back for display: nil Job
// and a Problem when it does not parse.
type parsedJob struct {
	Job     *jobdef.Job
	Problem string
	// cals are the calendars of the job's workspace (see with); nil when
	// not loaded, which is enough for jobs that exclude none.
	cals recurrence.Calendars
}

// parseStoredIn reads a stored definition of a job of workspace ws with
// the workspace's calendars when the job excludes some (no query when it
// excludes none).
func (s *Server) parseStoredIn(ctx context.Context, ws string, def []byte) (parsedJob, error) {
	pj := parseStored(def)
	cals, err := s.catalog.CalendarsFor(ctx, ws, pj.Job)
	if err != nil {
		return pj, err
	}
	return pj.with(cals), nil
}

// with returns the parsed job with the calendars of its workspace, which
// its description and next runs need when it excludes some.
func (p parsedJob) with(cals recurrence.Calendars) parsedJob {
	p.cals = cals
	return p
}

// parseStored reads a stored definition (secrets are never in it).
func parseStored(def []byte) parsedJob {
	job, err := jobdef.ParseWith(def, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return parsedJob{Problem: "The stored definition of this job cannot be read: " + err.Error()}
	}
	return parsedJob{Job: job}
}

// zone is the job's time zone, UTC for an unreadable one.
func (p parsedJob) zone() *time.Location {
	if p.Job == nil {
		return time.UTC
	}
	return p.Job.Location()
}

// describe is the plain-English schedule of the job as if scheduled from
// base (its schedule base, or its creation).
func (p parsedJob) describe(base time.Time) string {
	if p.Job == nil {
		return "Unreadable definition"
	}
	rule, err := recurrence.CompileWith(p.Job, base, recurrence.Options{Calendars: p.cals})
	if err != nil {
		return "Unreadable schedule"
	}
	return rule.Description()
}

// target says what the job calls: "POST https://…", "Storage queue
// account/queue", "Service Bus topic ns/path".
func (p parsedJob) target() string {
	if p.Job == nil || p.Job.Action == nil {
		return ""
	}
	a := p.Job.Action
	switch {
	case a.Request != nil:
		return a.Request.Method + " " + a.Request.URI
	case a.QueueMessage != nil:
		return "Storage queue " + a.QueueMessage.StorageAccount + "/" + a.QueueMessage.QueueName
	case a.ServiceBusMessage != nil && a.ServiceBusMessage.TopicPath != "":
		return "Service Bus topic " + a.ServiceBusMessage.Namespace + "/" + a.ServiceBusMessage.TopicPath
	case a.ServiceBusMessage != nil:
		return "Service Bus queue " + a.ServiceBusMessage.Namespace + "/" + a.ServiceBusMessage.QueueName
	}
	return a.Type
}

// scheduleBase is where a job's schedule counts from: its schedule base,
// or its creation.
func scheduleBase(base *time.Time, created time.Time) time.Time {
	if base != nil {
		return *base
	}
	return created
}

// collectionPath is the page path of a collection from its names.
func collectionPath(ws, rg, name string) string {
	return "/c/" + url.PathEscape(ws) + "/" + url.PathEscape(rg) + "/" + url.PathEscape(name)
}

// jobPath is the page path of a job from its names.
func jobPath(ws, rg, coll, job string) string {
	return collectionPath(ws, rg, coll) + "/jobs/" + url.PathEscape(job)
}
