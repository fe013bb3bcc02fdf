package forecast

import (
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// TestEachCountsDueTimes: the month view counts a run of a job with a
// spread window when it is due: a run whose time lies before the range but
// which is due in it counts, one due after the range does not.
func TestEachCountsDueTimes(t *testing.T) {
	job, err := jobdef.Parse([]byte(`{"action":{"type":"http","request":{"method":"GET","uri":"https://example.com/"}},
		"startTime":"2026-01-01T00:00:00Z","recurrence":{"frequency":"hour","window":"PT30M"}}`))
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rule, err := recurrence.Compile(job, base)
	if err != nil {
		t.Fatal(err)
	}
	// A key whose offset of the 10:00 run is at least a minute.
	var sp recurrence.Spread
	ten := base.Add(10 * time.Hour)
	for id := int64(1); ; id++ {
		if sp = recurrence.SpreadOf(job, id); sp.Offset(ten) >= time.Minute {
			break
		}
	}
	c := compiled{rule: rule, spread: sp, remaining: -1}
	from, to := ten.Add(sp.Offset(ten)/2), base.Add(12*time.Hour).Add(sp.Offset(base.Add(12*time.Hour)))
	var got []time.Time
	c.each(from, to, func(at time.Time) { got = append(got, at) })
	want := []time.Time{sp.Due(ten), sp.Due(base.Add(11 * time.Hour))}
	if len(got) != len(want) || !got[0].Equal(want[0]) || !got[1].Equal(want[1]) {
		t.Fatalf("runs in [%s, %s): %v, want %v", from, to, got, want)
	}
}
