package web

import (
	"strconv"
	"time"

	"sked/models"
)

// The presenter of the dashboard.

// UpcomingItem is an upcoming run of the dashboard with its job's
// definition read back (with the calendars it excludes).
type UpcomingItem struct {
	Run    models.UpcomingRun
	Stored StoredJob
}

// ActivityFrom is the start of the activity chart at now: the 24 hours
// that end with the current UTC hour (the store buckets by UTC hour).
func ActivityFrom(now time.Time) time.Time {
	return now.UTC().Truncate(time.Hour).Add(-(ActivityHours - 1) * time.Hour)
}

// NewDashboard is the dashboard at now: the collections the user may see,
// the upcoming runs (in their job's zone), the recent failures and the
// hourly buckets of the executions since from (ActivityFrom). The failure
// times and the activity chart are in zone, the user's time zone (nil is
// UTC).
func NewDashboard(collections []models.CollectionSummary, upcoming []UpcomingItem, failures []models.HistoryWithJob,
	buckets []models.HistoryBucket, from, now time.Time, zone *time.Location) Dashboard {
	d := Dashboard{NewCollectionURL: NewCollectionPath}
	for _, r := range collections {
		d.Collections = append(d.Collections, CollectionRow{
			Workspace: r.WorkspaceID, ResourceGroup: r.ResourceGroup, Name: r.Name,
			URL:   CollectionPath(r.WorkspaceID, r.ResourceGroup, r.Name),
			State: collectionStateBadge(r.State), SKU: r.SKU,
			Enabled: r.Enabled, Disabled: r.Disabled, Completed: r.Completed, Faulted: r.Faulted,
		})
	}
	for _, it := range upcoming {
		u, pj := it.Run, it.Stored
		d.Upcoming = append(d.Upcoming, UpcomingRow{
			Job: u.JobName, JobURL: JobPath(u.WorkspaceID, u.ResourceGroup, u.Collection, u.JobName),
			Collection: u.Collection, CollectionURL: CollectionPath(u.WorkspaceID, u.ResourceGroup, u.Collection),
			Description: pj.Describe(ScheduleBase(u.ScheduleBase, u.CreatedAt)),
			At:          InstantIn(u.NextRunAt, pj.Zone(), now),
		})
	}
	for _, f := range failures {
		d.Failures = append(d.Failures, FailureRow{
			Job: f.JobName, JobURL: JobPath(f.WorkspaceID, f.ResourceGroup, f.Collection, f.JobName),
			Collection: f.Collection, CollectionURL: CollectionPath(f.WorkspaceID, f.ResourceGroup, f.Collection),
			At:     InstantIn(f.StartTime, zone, now),
			Action: string(f.ActionName), Attempt: strconv.Itoa(f.RetryCount),
			Summary: MessageSummary(f.Message), Message: f.Message,
		})
	}
	d.Activity = NewActivityChart(buckets, from, zone)
	return d
}
