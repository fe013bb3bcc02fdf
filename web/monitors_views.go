package web

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models/jobdef"
	"sked/models/monitordef"
	"sked/models/problem"
)

// MonitorsPageView is the Monitors page of a workspace (SPEC §17.3).
type MonitorsPageView struct {
	Workspace string
	Flash     string
	// CanEdit shows "New monitor" and the ping URLs.
	CanEdit bool
	NewURL  string
	Rows    []MonitorRow
}

// MonitorRow is one monitor of the list.
type MonitorRow struct {
	Name, URL, Description string
	Status                 BadgeView
	LastPing               Instant
	LastPingKind           string
	NextExpected           Instant
	// PingURL is "" for viewers who may not see it.
	PingURL string
}

// MonitorPageView is a monitor's page.
type MonitorPageView struct {
	Workspace, Name, Description string
	Flash                        string
	// LiveURL is where #monitor-live asks for itself again (the page's
	// URL: htmx gets the fragment).
	LiveURL string
	Status  BadgeView
	// StatusText says what the state means.
	StatusText string
	Schedule   string // the schedule's description
	Grace      string
	// MaxDuration is "" without a deadline.
	MaxDuration string
	CanEdit     bool
	// PingURL, RotateURL, EditURL, DeleteURL are for editors only.
	PingURL, RotateURL, EditURL, DeleteURL string
	ListURL                                string
	CSRFToken                              string
	Next                                   []Instant
	Pings                                  []MonitorPingRow
	Timeline                               MonitorTimeline
}

// MonitorPingRow is one received ping.
type MonitorPingRow struct {
	At      Instant
	Kind    BadgeView
	Message string
}

// MonitorTimeline is the picture of the last 24 hours of a monitor:
// occurrences met or missed and pings, placed by time on 0…1000.
type MonitorTimeline struct {
	From, To string
	Marks    []MonitorMark
}

// MonitorMark is one mark of a monitor's timeline.
type MonitorMark struct {
	X     int
	Title string
	// Kind is met, missed, success, start or fail (the mark's shape and
	// colour, timelineMarkClass).
	Kind string
}

// MonitorForm is the create/edit form of a monitor; its fields are the
// definition's, the schedule's spelled as the job form's recurrence
// fields: frequency, interval, hours and minutes as lists, time zone,
// calendars excluded.
type MonitorForm struct {
	Workspace, CSRFToken, Action, CancelURL string
	IsNew                                   bool
	Name, Frequency, Interval, Hours        string
	Minutes, WeekDays, TimeZone, Calendars  string
	Grace, MaxDuration, Description         string
	Paused                                  bool
	Errors                                  FieldErrors
	// Other lists problems without a field of their own.
	Other []string
}

// MonitorFrequencies are the form's choices of frequency.
var MonitorFrequencies = []string{"minute", "hour", "day", "week", "month"}

// MonitorStatusBadge is the badge of a monitor's state.
func MonitorStatusBadge(s monitordef.Status) BadgeView {
	switch s {
	case monitordef.StatusUp:
		return BadgeView{Text: "Up", Tone: ToneGood}
	case monitordef.StatusLate:
		return BadgeView{Text: "Late", Tone: ToneWarning}
	case monitordef.StatusDown:
		return BadgeView{Text: "Down", Tone: ToneBad}
	case monitordef.StatusPaused:
		return BadgeView{Text: "Paused", Tone: ToneNeutral}
	}
	return BadgeView{Text: "New", Tone: ToneDone}
}

// MonitorStatusText says what state s means.
func MonitorStatusText(s monitordef.Status) string {
	switch s {
	case monitordef.StatusUp:
		return "The last expected ping came in time."
	case monitordef.StatusLate:
		return "An expected ping is due and has not come yet: the monitor goes down when its grace ends."
	case monitordef.StatusDown:
		return "An expected ping did not come (or a failure was reported): the monitor is down until a success ping."
	case monitordef.StatusPaused:
		return "The monitor is paused: pings are recorded, nothing is expected or raised."
	}
	return "No expected ping has been due yet."
}

// pingBadges are the badges of the ping kinds.
var pingBadges = map[string]BadgeView{
	string(monitordef.PingSuccess): {Text: "Success", Tone: ToneGood},
	string(monitordef.PingStart):   {Text: "Start", Tone: ToneNeutral},
	string(monitordef.PingFail):    {Text: "Fail", Tone: ToneBad},
}

// PingBadge is the badge of a ping of kind.
func PingBadge(kind string) BadgeView { return pingBadges[kind] }

// NewMonitorTimeline places occurrences (expected time, met or not) and
// pings (time, kind) on the 24 hours before now.
func NewMonitorTimeline(now time.Time, loc *time.Location, occ map[time.Time]bool, pings []MonitorPingMark) MonitorTimeline {
	from := now.Add(-24 * time.Hour)
	x := func(t time.Time) int { return int(t.Sub(from) * 1000 / (24 * time.Hour)) }
	tl := MonitorTimeline{From: from.In(loc).Format("Mon 15:04"), To: now.In(loc).Format("Mon 15:04")}
	for t, met := range occ {
		if t.Before(from) || t.After(now) {
			continue
		}
		k, word := "missed", "missed"
		if met {
			k, word = "met", "met"
		}
		tl.Marks = append(tl.Marks, MonitorMark{X: x(t), Kind: k, Title: "Expected " + t.In(loc).Format("Mon 2 Jan 15:04") + ": " + word})
	}
	for _, p := range pings {
		if p.At.Before(from) || p.At.After(now) {
			continue
		}
		tl.Marks = append(tl.Marks, MonitorMark{X: x(p.At), Kind: p.Kind, Title: strings.ToUpper(p.Kind[:1]) + p.Kind[1:] + " ping " + p.At.In(loc).Format("Mon 2 Jan 15:04:05")})
	}
	return tl
}

// MonitorPingMark is a ping placed on the timeline.
type MonitorPingMark struct {
	At   time.Time
	Kind string
}

// timelineMarkY is the vertical place of a mark kind: occurrences on
// the upper line, pings on the lower.
func timelineMarkY(kind string) int {
	if kind == "met" || kind == "missed" {
		return 14
	}
	return 34
}

// MonitorFormOf fills a form from a stored definition.
func MonitorFormOf(def *monitordef.Monitor) MonitorForm {
	f := MonitorForm{Frequency: "hour", Interval: "1", Grace: "PT5M"}
	if def == nil {
		return f
	}
	r := def.Recurrence
	f.Frequency, f.Interval, f.TimeZone = string(r.Frequency), strconv.Itoa(r.Interval), r.TimeZone
	if s := r.Schedule; !s.IsEmpty() {
		f.Hours, f.Minutes = joinInts(s.Hours), joinInts(s.Minutes)
		days := make([]string, len(s.WeekDays))
		for i, d := range s.WeekDays {
			days[i] = strings.ToLower(d.String())
		}
		f.WeekDays = strings.Join(days, ", ")
	}
	if c := r.Calendars; c != nil {
		f.Calendars = strings.Join(c.Exclude, ", ")
	}
	f.Grace, f.Description, f.Paused = jobdef.FormatISODuration(def.Grace), def.Description, def.Paused
	if def.MaxDuration > 0 {
		f.MaxDuration = jobdef.FormatISODuration(def.MaxDuration)
	}
	return f
}

// joinInts writes a list of numbers as "1, 2".
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// JSON is the monitor definition the form describes; a list field that
// is not a list of numbers is a field error.
func (f *MonitorForm) JSON() ([]byte, FieldErrors) {
	errs := FieldErrors{}
	sched := map[string]any{}
	for _, fl := range []struct {
		id, key, value string
	}{{"hours", "hours", f.Hours}, {"minutes", "minutes", f.Minutes}} {
		if strings.TrimSpace(fl.value) == "" {
			continue
		}
		var ns []int
		for _, part := range strings.Split(fl.value, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				errs[fl.id] = fmt.Sprintf("%q is not a list of whole numbers such as 0, 30", fl.value)
				break
			}
			ns = append(ns, n)
		}
		sched[fl.key] = ns
	}
	if days := splitList(f.WeekDays); len(days) > 0 {
		sched["weekDays"] = days
	}
	rec := map[string]any{"frequency": f.Frequency}
	if strings.TrimSpace(f.Interval) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(f.Interval))
		if err != nil {
			errs["interval"] = fmt.Sprintf("%q is not a whole number", f.Interval)
		}
		rec["interval"] = n
	}
	if len(sched) > 0 {
		rec["schedule"] = sched
	}
	if z := strings.TrimSpace(f.TimeZone); z != "" {
		rec["timeZone"] = z
	}
	if cals := splitList(f.Calendars); len(cals) > 0 {
		rec["calendars"] = map[string]any{"exclude": cals}
	}
	doc := map[string]any{"schedule": rec, "grace": strings.TrimSpace(f.Grace), "description": f.Description, "paused": f.Paused}
	if strings.TrimSpace(f.Grace) == "" {
		delete(doc, "grace")
	}
	if d := strings.TrimSpace(f.MaxDuration); d != "" {
		doc["deadline"] = map[string]any{"maxDuration": d}
	}
	out, _ := json.Marshal(doc)
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// splitList splits "a, b" into its non-empty parts.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// monitorFields maps a problem's path to the form's field.
var monitorFields = []struct{ prefix, field string }{
	{"schedule.frequency", "frequency"}, {"schedule.interval", "interval"},
	{"schedule.schedule.hours", "hours"}, {"schedule.schedule.minutes", "minutes"},
	{"schedule.schedule.weekDays", "weekDays"}, {"schedule.timeZone", "timeZone"},
	{"schedule.calendars", "calendars"}, {"grace", "grace"}, {"deadline", "maxDuration"},
	{"description", "description"}, {"name", "name"},
}

// SetProblems puts a refused definition's problems on the form's fields
// (the rest in Other).
func (f *MonitorForm) SetProblems(l *problem.List) {
	if f.Errors == nil {
		f.Errors = FieldErrors{}
	}
	for _, p := range l.Problems {
		placed := false
		for _, m := range monitorFields {
			if strings.HasPrefix(p.Path, m.prefix) {
				if _, ok := f.Errors[m.field]; !ok {
					f.Errors[m.field] = p.Message
				}
				placed = true
				break
			}
		}
		if !placed {
			f.Other = append(f.Other, p.String())
		}
	}
}

// timelineMarkClass is the colour of a timeline mark of kind.
func timelineMarkClass(kind string) string {
	switch kind {
	case "met", "success":
		return "fill-emerald-600"
	case "missed", "fail":
		return "fill-red-600"
	}
	return "fill-slate-500"
}
