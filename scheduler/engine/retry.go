package engine

import (
	"time"

	"sked/models/jobdef"
)

// retryDelay returns how long after attempt n (1 for the first) of an
// action ended its retry is due (SPEC §4, §13.1): retryInterval for a
// fixed policy; for an exponential one retryInterval after the first
// attempt, twice the previous wait after each later one, at most
// maxRetryInterval.
func retryDelay(p jobdef.RetryPolicy, n int) time.Duration {
	d := p.Interval
	if p.Type != jobdef.RetryExponential || p.MaxInterval <= 0 {
		return d
	}
	for i := 1; i < n && d < p.MaxInterval; i++ {
		d *= 2
	}
	return min(d, p.MaxInterval)
}
