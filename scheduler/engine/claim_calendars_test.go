package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"sked/scheduler/recurrence"
)

// countingCalendars is a CalendarSource that counts its look-ups per
// collection and answers with a stamp naming the look-up.
type countingCalendars struct {
	mu    sync.Mutex
	calls map[int64]int
}

func (c *countingCalendars) CollectionCalendars(_ context.Context, id int64) (recurrence.Calendars, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[id]++
	return recurrence.Calendars{}, fmt.Sprintf("%d/%d", id, c.calls[id]), nil
}

// TestClaimCalendarsLookUpOncePerCollectionAndClaim: during a claim each
// collection's calendars are looked up once; outside a claim, and in the
// next claim, every call reaches the source again (an edited calendar is
// seen by the next claim).
func TestClaimCalendarsLookUpOncePerCollectionAndClaim(t *testing.T) {
	src := &countingCalendars{calls: map[int64]int{}}
	e := &Engine{calendars: newClaimCalendars(src)}
	ctx := context.Background()
	stamp := func(id int64) string {
		t.Helper()
		_, s, err := e.calendars.CollectionCalendars(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	steps := []struct {
		claim bool
		id    int64
		want  string
	}{
		{false, 1, "1/1"},
		{false, 1, "1/2"},
		{true, 1, "1/3"},
		{true, 1, "1/3"},
		{true, 2, "2/1"},
		{true, 2, "2/1"},
		{false, 1, "1/4"},
		{true, 1, "1/5"}, // a new claim
	}
	var end func()
	for i, s := range steps {
		switch {
		case s.claim && end == nil:
			end = e.claimScope()
		case !s.claim && end != nil:
			end()
			end = nil
		}
		if got := stamp(s.id); got != s.want {
			t.Errorf("step %d (claim %v, collection %d): look-up %s, want %s", i, s.claim, s.id, got, s.want)
		}
	}
	if end != nil {
		end()
	}
	if (&Engine{calendars: newClaimCalendars(nil)}).calendars != nil {
		t.Error("no calendar source must stay nil")
	}
}
