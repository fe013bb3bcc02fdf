package catalog

import (
	"regexp"
	"time"

	"sked/models"
)

// Catalog changes collections and jobs. Create it with New.
type Catalog struct {
	store *models.Store
	now   func() time.Time
	cals  *calendarCache
}

// New returns a Catalog writing to store; now is the clock (nil means
// time.Now), used to decide whether a job's end already passed and to
// measure its recurrence against the quota.
func New(store *models.Store, now func() time.Time) *Catalog {
	if now == nil {
		now = time.Now
	}
	return &Catalog{store: store, now: now, cals: &calendarCache{m: map[int64]compiledCalendar{}}}
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
