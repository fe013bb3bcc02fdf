package recurrence

import (
	"fmt"
	"time"

	"sked/models/jobdef"
)

// Occurrences returns the first n executions (n ≥ 0) of job as if it were
// created at now: the start-time table of SPEC §2, count counted from
// creation, nothing after endTime. Fewer than n come back when the job ends
// sooner. The instants are in the job's zone.
func Occurrences(job *jobdef.Job, now time.Time, n int) ([]time.Time, error) {
	r, err := Compile(job, now)
	if err != nil {
		return nil, fmt.Errorf("occurrences: %w", err)
	}
	return r.Take(n), nil
}

// Take returns the first n executions of the rule from its creation on,
// honouring count. It allocates one slice of at most n elements.
func (r *Rule) Take(n int) []time.Time {
	occ := r.take(n)
	out := make([]time.Time, len(occ))
	for i, o := range occ {
		out[i] = time.Unix(o.at, 0).In(r.zone.loc)
	}
	return out
}

// take returns the first n executions with their resolution details.
func (r *Rule) take(n int) []execution {
	if r.count > 0 && n > r.count {
		n = r.count
	}
	if n <= 0 {
		return nil
	}
	out := make([]execution, 0, min(n, 1024))
	t0 := int64(-1 << 62)
	for len(out) < n {
		o, ok := r.first(t0)
		if !ok {
			break
		}
		out = append(out, o)
		t0 = o.at + 1
	}
	return out
}
