package plan

import "time"

// Between returns the occurrences of a job's rule, compiled by compile for
// the job's schedule base base, in [from, to), in order (SPEC §16.3,
// backfill): the expected times the engine gives them, calendars
// applied. recurrence.count is not applied (a backfill names its range
// itself), endTime is. It returns at most limit+1 of them, so that a
// caller can tell that the range holds more than limit; an error when the
// rule does not compile.
func Between(compile Compile, base, from, to time.Time, limit int) ([]time.Time, error) {
	rule, err := compile(base)
	if err != nil {
		return nil, err
	}
	var out []time.Time
	// The rule works in whole seconds: start a second early, so that an
	// occurrence at from itself is found.
	for t, ok := rule.Next(from.Add(-time.Second)); ok && t.Before(to) && len(out) <= limit; t, ok = rule.Next(t) {
		if !t.Before(from) {
			out = append(out, t)
		}
	}
	return out, nil
}
