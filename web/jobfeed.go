package web

import (
	"fmt"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
)

// JobFeed is the iCalendar feed of a job's coming occurrences (SPEC §13.6).
type JobFeed struct {
	// Name names the calendar (the job's name and collection).
	Name string
	// Stamp is DTSTAMP of every event: when the feed was made.
	Stamp time.Time
	// Events are the occurrences, in order.
	Events []FeedEvent
}

// FeedEvent is one occurrence of a job as a VEVENT.
type FeedEvent struct {
	// UID is stable for the job and the instant.
	UID string
	// Start is the occurrence's instant (written in UTC).
	Start time.Time
	// Duration is the event's length (the action's timeout).
	Duration time.Duration
	// Summary is the job's name; Description says what runs.
	Summary, Description string
	// URL links to the job's page.
	URL string
}

// JobFeedICS writes the feed as an iCalendar document (RFC 5545).
func JobFeedICS(f JobFeed) []byte {
	cal := ics.NewCalendarFor("Sked")
	cal.SetProductId("-//Sked//Job occurrences//EN")
	cal.SetMethod(ics.MethodPublish)
	cal.SetName(f.Name)
	cal.SetXWRCalName(f.Name)
	cal.SetRefreshInterval("PT1H")
	cal.SetXPublishedTTL("PT1H")
	for _, e := range f.Events {
		ev := cal.AddEvent(e.UID)
		ev.SetDtStampTime(f.Stamp.UTC())
		ev.SetStartAt(e.Start.UTC())
		ev.SetProperty(ics.ComponentPropertyDuration, isoDuration(e.Duration))
		ev.SetSummary(e.Summary)
		ev.SetDescription(e.Description)
		if e.URL != "" {
			ev.SetURL(e.URL)
		}
		ev.SetTimeTransparency(ics.TransparencyTransparent)
	}
	return []byte(cal.Serialize())
}

// isoDuration writes d (whole seconds, at least one minute) as an RFC 5545
// duration: PT1M, PT1M30S, PT10M.
func isoDuration(d time.Duration) string {
	s := int64(max(d, time.Minute) / time.Second)
	var b strings.Builder
	b.WriteString("PT")
	if m := s / 60; m > 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	if s%60 > 0 {
		fmt.Fprintf(&b, "%dS", s%60)
	}
	return b.String()
}
