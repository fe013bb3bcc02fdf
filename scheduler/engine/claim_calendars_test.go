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

// TestClaimCalendarsOfOverlappingClaims: a claim that begins while another
// runs starts a new memo, which both use from then on (never a look-up
// older than the newer claim's begin); the memo lasts until the last claim
// ends, and then every call reaches the source again.
func TestClaimCalendarsOfOverlappingClaims(t *testing.T) {
	src := &countingCalendars{calls: map[int64]int{}}
	c := newClaimCalendars(src)
	stamp := func() string {
		t.Helper()
		_, s, err := c.CollectionCalendars(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	c.begin() // claim A
	steps := []struct {
		do   func()
		want string
	}{
		{nil, "1/1"},
		{nil, "1/1"},
		{c.begin, "1/2"}, // claim B begins: a new memo, for both
		{nil, "1/2"},
		{c.end, "1/2"}, // one of them ends: the other keeps the memo
		{c.end, "1/3"}, // the last ends: passed through
		{nil, "1/4"},
	}
	for i, s := range steps {
		if s.do != nil {
			s.do()
		}
		if got := stamp(); got != s.want {
			t.Errorf("step %d: look-up %s, want %s", i, got, s.want)
		}
	}
}

// beginningCalendars is a CalendarSource whose look-up lets another claim
// begin while it runs (during, once).
type beginningCalendars struct {
	countingCalendars
	during func()
}

func (c *beginningCalendars) CollectionCalendars(ctx context.Context, id int64) (recurrence.Calendars, string, error) {
	if f := c.during; f != nil {
		c.during = nil
		f()
	}
	return c.countingCalendars.CollectionCalendars(ctx, id)
}

// TestClaimCalendarsKeepNoLookUpOlderThanTheMemo: a look-up that began
// before another claim began is returned to its caller but not kept in the
// newer memo, whose claims look the calendars up again.
func TestClaimCalendarsKeepNoLookUpOlderThanTheMemo(t *testing.T) {
	src := &beginningCalendars{countingCalendars: countingCalendars{calls: map[int64]int{}}}
	c := newClaimCalendars(src)
	src.during = c.begin
	c.begin()
	for i, want := range []string{"1/1", "1/2", "1/2"} {
		_, s, err := c.CollectionCalendars(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if s != want {
			t.Errorf("look-up %d: %s, want %s", i, s, want)
		}
	}
	c.end()
	c.end()
}
