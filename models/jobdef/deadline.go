package jobdef

import (
	"fmt"
	"strings"
	"time"
)

// Bounds of properties.deadline (SPEC §17.2).
const (
	// MinSucceedWithin and MaxSucceedWithin bound deadline.succeedWithin:
	// a minute (less would be lateness, not a deadline) to a week.
	MinSucceedWithin = time.Minute
	MaxSucceedWithin = 7 * 24 * time.Hour
	// MinMaxDuration bounds deadline.maxDuration from below; from above it
	// is bounded by the main action's timeout (an attempt ends by its
	// timeout first, so a longer maxDuration would never be reached).
	MinMaxDuration = time.Second
)

// Deadline is properties.deadline (extension, SPEC §17.2): when an
// occurrence must have succeeded, and how long one attempt may run before
// it is called slow. A zero field is not set.
type Deadline struct {
	// SucceedWithin is how long after its due time (the spread-shifted
	// time the engine starts it at) an occurrence must have succeeded,
	// retries and error action included; past it, deadlineMissed.
	SucceedWithin time.Duration
	// MaxDuration is how long an attempt may run before slowRun.
	MaxDuration time.Duration
}

// IsZero reports whether d sets nothing (a nil d included).
func (d *Deadline) IsZero() bool { return d == nil || (d.SucceedWithin == 0 && d.MaxDuration == 0) }

// parseDeadline reads deadline: {"succeedWithin", "maxDuration"}, both
// optional ISO 8601 durations in whole seconds. It runs after the action
// is parsed (maxDuration must be shorter than the main action's timeout).
func parseDeadline(o object, job *Job, ps *problems) {
	raw, ok := o.get("deadline")
	if !ok {
		return
	}
	d, ok := decodeObject(raw)
	if !ok {
		ps.add("deadline", `must be an object such as {"succeedWithin": "PT2H", "maxDuration": "PT10M"}, not `+article(kindOf(raw)))
		return
	}
	out := &Deadline{}
	for k := range d {
		switch strings.ToLower(k) {
		case "succeedwithin", "maxduration":
		default:
			ps.add("deadline."+k, "is not a field of deadline (succeedWithin, maxDuration)")
		}
	}
	if v, ok := deadlineDuration(d, "succeedWithin", ps); ok {
		switch {
		case v < MinSucceedWithin || v > MaxSucceedWithin:
			ps.add("deadline.succeedWithin", fmt.Sprintf("%s is outside PT1M to P7D", FormatISODuration(v)))
		default:
			out.SucceedWithin = v
		}
	}
	if v, ok := deadlineDuration(d, "maxDuration", ps); ok {
		timeout := DefaultTimeout
		if job.Action != nil {
			timeout = job.Action.Timeout
		}
		switch {
		case v < MinMaxDuration:
			ps.add("deadline.maxDuration", fmt.Sprintf("%s is shorter than PT1S", FormatISODuration(v)))
		case v >= timeout:
			ps.add("deadline.maxDuration", fmt.Sprintf("%s is not shorter than the action's timeout (%s): the attempt would end by its timeout first",
				FormatISODuration(v), FormatISODuration(timeout)))
		default:
			out.MaxDuration = v
		}
	}
	if !out.IsZero() {
		job.Deadline = out
	}
}

// deadlineDuration reads deadline.key: an ISO 8601 duration in whole
// seconds, without years or months (whose length varies). It reports a
// problem and false when it is present but not one.
func deadlineDuration(d object, key string, ps *problems) (time.Duration, bool) {
	path := "deadline." + key
	s, ok := stringField(d, key, path, ps)
	if !ok {
		return 0, false
	}
	v, err := ParseISODuration(strings.TrimSpace(s))
	switch {
	case err != nil || hasCalendarUnit(s):
		ps.add(path, fmt.Sprintf("%q is not an ISO 8601 duration in days, hours, minutes and seconds (e.g. PT2H)", s))
	case v%time.Second != 0:
		ps.add(path, fmt.Sprintf("%q is not a whole number of seconds", s))
	case v <= 0:
		ps.add(path, fmt.Sprintf("%q must be longer than zero", s))
	default:
		return v, true
	}
	return 0, false
}

// hasCalendarUnit reports whether the ISO 8601 duration s has years or
// months (a Y, or an M before the T).
func hasCalendarUnit(s string) bool {
	date, _, _ := strings.Cut(strings.ToUpper(s), "T")
	return strings.ContainsAny(date, "YM")
}

// marshal writes d in canonical form; nil for a zero d.
func (d *Deadline) marshal() []byte {
	if d.IsZero() {
		return nil
	}
	w := &objWriter{}
	if d.SucceedWithin > 0 {
		w.str("succeedWithin", FormatISODuration(d.SucceedWithin))
	}
	if d.MaxDuration > 0 {
		w.str("maxDuration", FormatISODuration(d.MaxDuration))
	}
	return w.done()
}
