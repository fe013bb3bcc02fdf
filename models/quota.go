package models

import (
	"fmt"
	"time"

	"sked/models/jobdef"
)

// The SKUs of a job collection (SPEC §6).
const (
	SKUFree       = "Free"
	SKUStandard   = "Standard"
	SKUP10Premium = "P10Premium"
	SKUP20Premium = "P20Premium"
)

// SKUs lists the SKU names in order.
var SKUs = []string{SKUFree, SKUStandard, SKUP10Premium, SKUP20Premium}

// Recurrence is a span written as a frequency and an interval ("every 1
// hour").
type Recurrence struct {
	Frequency jobdef.Frequency
	Interval  int
}

// Shortest returns the smallest gap that still counts as "every Interval
// Frequency": calendar units use their shortest length (a month 28 days,
// a year 365 days) and spans of a day or more lose one hour to
// daylight-saving changes, so that a daily job at 09:00 satisfies "once a
// day" on the day clocks spring forward.
func (r Recurrence) Shortest() time.Duration {
	n := time.Duration(max(r.Interval, 1))
	day := 24 * time.Hour
	var d time.Duration
	switch r.Frequency {
	case jobdef.Second:
		return n * time.Second
	case jobdef.Minute:
		return n * time.Minute
	case jobdef.Hour:
		return n * time.Hour
	case jobdef.Day:
		d = n * day
	case jobdef.Week:
		d = n * 7 * day
	case jobdef.Month:
		d = n * 28 * day
	case jobdef.Year:
		d = n * 365 * day
	default:
		return n * time.Minute
	}
	return d - time.Hour
}

// String says "1 minute", "2 hours".
func (r Recurrence) String() string {
	unit := string(r.Frequency)
	if r.Interval != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", r.Interval, unit)
}

// Quota is the effective quota of a collection: what it sets, else its
// SKU's default.
type Quota struct {
	MaxJobCount int
	// MaxJobOccurrence, when above zero, caps a job's recurrence.count.
	MaxJobOccurrence int
	MaxRecurrence    Recurrence
	// OutboundAuth reports whether jobs may use outbound authentication
	// (not on Free).
	OutboundAuth bool
}

// SKUQuota returns the default quota of a SKU: Free 5 jobs at most
// hourly, Standard and P10Premium 50 jobs, P20Premium 1,000 jobs, at most
// every minute. An unknown SKU gets Standard's.
func SKUQuota(sku string) Quota {
	switch sku {
	case SKUFree:
		return Quota{MaxJobCount: 5, MaxRecurrence: Recurrence{jobdef.Hour, 1}}
	case SKUP20Premium:
		return Quota{MaxJobCount: 1000, MaxRecurrence: Recurrence{jobdef.Minute, 1}, OutboundAuth: true}
	}
	return Quota{MaxJobCount: 50, MaxRecurrence: Recurrence{jobdef.Minute, 1}, OutboundAuth: true}
}

// SKUMostOften returns the shortest maxRecurrence a collection of a SKU
// may set (SPEC §16.5): Free every hour, every other SKU every second. The
// SKU's default (SKUQuota) is one minute or more, so a job running more
// often than every minute needs a collection whose quota allows it.
func SKUMostOften(sku string) Recurrence {
	if sku == SKUFree {
		return Recurrence{jobdef.Hour, 1}
	}
	return Recurrence{jobdef.Second, 1}
}

// Quota returns the collection's effective quota.
func (c *JobCollection) Quota() Quota {
	q := SKUQuota(c.SKU)
	if c.MaxJobCount != nil {
		q.MaxJobCount = *c.MaxJobCount
	}
	if c.MaxJobOccurrence != nil {
		q.MaxJobOccurrence = *c.MaxJobOccurrence
	}
	if c.MaxRecurrenceFrequency != nil && c.MaxRecurrenceInterval != nil {
		q.MaxRecurrence = Recurrence{jobdef.Frequency(*c.MaxRecurrenceFrequency), *c.MaxRecurrenceInterval}
	}
	return q
}
