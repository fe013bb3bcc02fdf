package catalog

import (
	"context"
	"errors"
	"regexp"
	"time"

	"sked/models"
)

// Catalog changes collections and jobs. Create it with New.
type Catalog struct {
	store  *models.Store
	now    func() time.Time
	cals   *calendarCache
	runner Runner
	// onChange, when not nil, sees every change passing changed (tests).
	onChange func(context.Context, Actor, Change)
}

// Runner starts runs of jobs at once: the execution engine
// (*engine.Engine), which wakes up for them.
type Runner interface {
	// Wake tells the engine that the write service committed attempts
	// due now (Run now), so that it looks for them at once.
	Wake()
}

// ErrNoEngine is the error of RunNow on a Catalog without a Runner: no
// engine runs in this process.
var ErrNoEngine = errors.New("catalog: the engine is not running in this process")

// New returns a Catalog writing to store; now is the clock (nil means
// time.Now), used to decide whether a job's end already passed and to
// measure its recurrence against the quota.
func New(store *models.Store, now func() time.Time) *Catalog {
	if now == nil {
		now = time.Now
	}
	return &Catalog{store: store, now: now, cals: &calendarCache{m: map[int64]compiledCalendar{}}}
}

// WithRunner returns a copy of c whose RunNow starts runs through r (the
// engine); a nil r leaves RunNow answering ErrNoEngine. The copy shares
// c's compiled calendars.
func (c *Catalog) WithRunner(r Runner) *Catalog {
	cp := *c
	cp.runner = r
	return &cp
}

// Name rules of the ARM paths (the database checks them too).
var (
	resourceNameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)
	resourceGroupRE = regexp.MustCompile(`^[-\w._()]{1,90}$`)
)

// ValidName reports whether s may name a job collection or a job: a
// letter or digit, then up to 99 letters, digits, '-' or '_'.
func ValidName(s string) bool { return resourceNameRE.MatchString(s) }

// ValidResourceGroup reports whether s may name a resource group.
func ValidResourceGroup(s string) bool { return resourceGroupRE.MatchString(s) }
