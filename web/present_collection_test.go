package web

import (
	"reflect"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

func TestCollectionStatus(t *testing.T) {
	occ := 100
	for _, tc := range []struct {
		name  string
		row   models.CollectionRow
		jobs  int64
		check func(t *testing.T, s CollectionStatus)
	}{
		{"enabled free", models.CollectionRow{WorkspaceID: "w", ResourceGroup: "rg", JobCollection: models.JobCollection{Name: "jc", State: models.CollectionEnabled, SKU: models.SKUFree}}, 4,
			func(t *testing.T, s CollectionStatus) {
				want := CollectionStatus{URL: "/c/w/rg/jc", CSRFToken: "tok", EnableURL: "/c/w/rg/jc/enable", DisableURL: "/c/w/rg/jc/disable",
					Badge: BadgeView{"Enabled", ToneGood}, CanDisable: true, Message: "Saved.", NoteMax: jobdef.MaxStateNote, JobCount: 4, MaxJobs: 5,
					QuotaText: "4 of 5 jobs", MaxRecurrence: "every " + models.SKUQuota(models.SKUFree).MaxRecurrence.String(), MaxOccurrence: "unlimited"}
				if !reflect.DeepEqual(s, want) {
					t.Errorf("got %+v, want %+v", s, want)
				}
			}},
		{"suspended premium with an occurrence cap", models.CollectionRow{WorkspaceID: "w", ResourceGroup: "rg",
			JobCollection: models.JobCollection{Name: "jc", State: models.CollectionSuspended, SKU: models.SKUP20Premium, MaxJobOccurrence: &occ}}, 1001,
			func(t *testing.T, s CollectionStatus) {
				if s.Badge != (BadgeView{"Suspended", ToneWarning}) || !s.CanEnable || s.CanDisable ||
					s.QuotaText != "1,001 of 1,000 jobs" || s.MaxOccurrence != "at most 100" {
					t.Errorf("got %+v", s)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, NewCollectionStatus(&tc.row, tc.jobs, "tok", "Saved."))
		})
	}
}

func TestJobList(t *testing.T) {
	row, _ := timelineJob()
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	_, _, berlin := berlinJob(t)
	failed := models.StatusFailed
	lastStart := now.Add(-26 * time.Hour)
	item := func(name, state string, next ...time.Time) JobListItem {
		j := &models.CollectionJob{Job: models.Job{Name: name, State: jobdef.State(state), ExecutionCount: 1234, CreatedAt: now}}
		return JobListItem{Job: j, Stored: berlin, Next: next}
	}
	t.Run("rows", func(t *testing.T) {
		with := item("a job", "enabled", now.Add(90*time.Minute))
		with.Job.LastStatus, with.Job.LastStartTime = &failed, &lastStart
		bad := item("broken", "enabled")
		bad.Stored = ParseStored([]byte(`{`))
		l := NewJobList(row, "", []JobListItem{with, item("off", "disabled"), item("done", "completed"), item("dead", "faulted"), bad}, now)
		for _, tc := range []struct {
			name      string
			got, want any
		}{
			{"no first page link", l.FirstURL, ""},
			{"no next page", l.NextURL, ""},
			{"url", l.Rows[0].URL, "/c/default/rg/jc/jobs/a%20job"},
			{"badge", l.Rows[0].Badge, BadgeView{"Enabled", ToneGood}},
			{"next", l.Rows[0].Next.Relative, "in 1 h"},
			{"next in the job's zone", l.Rows[0].Next.Local, "Thu 24 Dec 2026 14:30:00 CET"},
			{"last result", l.Rows[0].LastResult, BadgeView{"Failed", ToneBad}},
			{"last run", l.Rows[0].LastAt.Relative, "26 h ago"},
			{"counts", l.Rows[0].Executions, "1,234"},
			{"disabled", l.Rows[1].NextNote, "Disabled"},
			{"completed", l.Rows[2].NextNote, "None (completed)"},
			{"faulted", l.Rows[3].NextNote, "None (faulted)"},
			{"unreadable", l.Rows[4].Description, bad.Stored.Problem},
			{"enabled without a next run", l.Rows[4].NextNote, "None"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if !reflect.DeepEqual(tc.got, tc.want) {
					t.Errorf("got %+v, want %+v", tc.got, tc.want)
				}
			})
		}
	})
	t.Run("pages", func(t *testing.T) {
		var items []JobListItem
		for i := range JobListPageSize + 1 {
			items = append(items, item("job"+FormatCount(100+i), "enabled"))
		}
		l := NewJobList(row, "job0", items, now)
		if len(l.Rows) != JobListPageSize || l.FirstURL != "/c/default/rg/jc" || l.NextURL != "/c/default/rg/jc?after=job149" {
			t.Errorf("got %d rows, first %q, next %q", len(l.Rows), l.FirstURL, l.NextURL)
		}
	})
}

func TestDashboard(t *testing.T) {
	now := time.Date(2026, 12, 24, 12, 30, 0, 0, time.UTC)
	_, j, berlin := berlinJob(t)
	from := ActivityFrom(now)
	if want := time.Date(2026, 12, 23, 13, 0, 0, 0, time.UTC); !from.Equal(want) {
		t.Errorf("ActivityFrom = %v, want %v", from, want)
	}
	d := NewDashboard(
		[]models.CollectionSummary{{WorkspaceID: "w", ResourceGroup: "rg", Name: "jc", State: models.CollectionDisabled, SKU: "Standard", Enabled: 2}},
		[]UpcomingItem{{Run: models.UpcomingRun{JobName: "nightly", NextRunAt: now.Add(time.Hour), CreatedAt: now, Collection: "jc", ResourceGroup: "rg", WorkspaceID: "w"}, Stored: berlin}},
		[]models.HistoryWithJob{{HistoryEntry: models.HistoryEntry{StartTime: now.Add(-time.Hour), ActionName: models.MainAction, RetryCount: 3, Message: "500\nbody"},
			JobName: "nightly", Definition: j.Definition, Collection: "jc", ResourceGroup: "rg", WorkspaceID: "w"}},
		nil, from, now, time.UTC)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"new collection", d.NewCollectionURL, "/collections/new"},
		{"collection", d.Collections[0], CollectionRow{Workspace: "w", ResourceGroup: "rg", Name: "jc", URL: "/c/w/rg/jc",
			State: BadgeView{"Disabled", ToneNeutral}, SKU: "Standard", Enabled: 2}},
		{"upcoming links", []string{d.Upcoming[0].JobURL, d.Upcoming[0].CollectionURL}, []string{"/c/w/rg/jc/jobs/nightly", "/c/w/rg/jc"}},
		{"upcoming in the job's zone", d.Upcoming[0].At.Local, "Thu 24 Dec 2026 14:30:00 CET"},
		{"failure", []string{d.Failures[0].Attempt, d.Failures[0].Summary, d.Failures[0].At.Relative}, []string{"3", "500 …", "1 h ago"}},
		{"activity", d.Activity.Empty, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}
