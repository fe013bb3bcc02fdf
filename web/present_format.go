package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"sked/models"
	"sked/models/jobdef"
)

// The formatting of the dashboard, collection and job pages: every time
// and number the templates show is made here (the templates do no time
// arithmetic).

// InstantIn is t as the pages show it: in loc, with UTC alongside (unless
// loc is UTC) and how far it is from now.
func InstantIn(t time.Time, loc *time.Location, now time.Time) Instant {
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	i := Instant{
		ISO:      lt.Format(time.RFC3339),
		Local:    lt.Format("Mon 2 Jan 2006 15:04:05 MST"),
		Relative: RelativeTime(t.Sub(now)),
	}
	if loc.String() != "UTC" {
		i.UTC = t.UTC().Format("2 Jan 15:04:05") + " UTC"
	}
	return i
}

// InstantPtr is InstantIn for an optional time: the zero Instant for nil.
func InstantPtr(t *time.Time, loc *time.Location, now time.Time) Instant {
	if t == nil {
		return Instant{}
	}
	return InstantIn(*t, loc, now)
}

// AccountTimeAt is t as the account pages (tokens, sessions, users,
// members) show it: the one format of every page, in UTC, with how far
// it is from now beside it (TimeBeside).
func AccountTimeAt(t, now time.Time) AccountTime {
	i := InstantIn(t, time.UTC, now)
	return AccountTime{Text: i.Local, ISO: i.ISO, Relative: i.Relative, Full: TimeBeside(i.Local, t, now)}
}

// TimeBeside is an absolute time as a page writes it (abs, the text of t)
// with how far t is from now beside it: "Sun 22 Nov 2026 18:36:00 UTC
// (3 h ago)", "… (in 4 min)", "… (now)".
func TimeBeside(abs string, t, now time.Time) string {
	return abs + " (" + RelativeTime(t.Sub(now)) + ")"
}

// RelativeTime says how far a moment is: "in 4 min", "2 h ago", "now".
func RelativeTime(d time.Duration) string {
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

// SpanText writes a duration for people: "0 ms", "120 ms", "1.2 s",
// "2 min 5 s", "3 h 4 min", "2 days 3 h".
func SpanText(d time.Duration) string {
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

// LatenessText is the lateness of an entry, or "—" when it has none.
func LatenessText(ms *int64) string {
	if ms == nil {
		return "—"
	}
	return SpanText(time.Duration(*ms) * time.Millisecond)
}

// LimitWaitText says how long an entry waited for its host's target
// limit ("waited 3.2 s for the target limit"), "" when no limit held it
// or it did not wait.
func LimitWaitText(ms *int64) string {
	if ms == nil || *ms <= 0 {
		return ""
	}
	return "waited " + SpanText(time.Duration(*ms)*time.Millisecond) + " for the target limit"
}

// FormatCount formats a counter with thousands separators: "12,345".
func FormatCount[N ~int | ~int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
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

// Plural is "1 job", "2 jobs".
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return FormatCount(n) + " " + many
}

// jobStateBadge is the badge of a job's state.
func jobStateBadge(state jobdef.State) BadgeView {
	switch state {
	case jobdef.Enabled:
		return BadgeView{Text: state.Label(), Tone: ToneGood}
	case jobdef.Disabled:
		return BadgeView{Text: state.Label(), Tone: ToneNeutral}
	case jobdef.Completed:
		return BadgeView{Text: state.Label(), Tone: ToneDone}
	case jobdef.Faulted:
		return BadgeView{Text: state.Label(), Tone: ToneBad}
	}
	return BadgeView{Text: string(state), Tone: ToneNeutral}
}

// collectionStateBadge is the badge of a collection's state.
func collectionStateBadge(state models.CollectionState) BadgeView {
	switch state {
	case models.CollectionEnabled:
		return BadgeView{Text: string(state), Tone: ToneGood}
	case models.CollectionDisabled:
		return BadgeView{Text: string(state), Tone: ToneNeutral}
	case models.CollectionSuspended:
		return BadgeView{Text: string(state), Tone: ToneWarning}
	}
	return BadgeView{Text: string(state), Tone: ToneNeutral}
}

// historyBadge is the badge of a history entry's status.
func historyBadge(status models.HistoryStatus) BadgeView {
	switch status {
	case models.StatusCompleted:
		return BadgeView{Text: string(status), Tone: ToneGood}
	case models.StatusFailed:
		return BadgeView{Text: string(status), Tone: ToneBad}
	case models.StatusPostponed:
		return BadgeView{Text: string(status), Tone: ToneWarning}
	}
	return BadgeView{Text: string(status), Tone: ToneNeutral}
}

// MessageSummary is the first line of a message, at most 80 characters.
func MessageSummary(msg string) string {
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
