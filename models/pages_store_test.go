package models_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// pagesFixture is a database with a signed-up user (member of "default")
// and a second workspace "other" the user does not belong to.
type pagesFixture struct {
	t     *testing.T
	store *models.Store
	user  *models.User
	ctx   context.Context
	dsn   string
}

func newPagesFixture(t *testing.T) *pagesFixture {
	t.Helper()
	dsn := testdb.DSN(t)
	store := testdb.Open(t, dsn, testdb.Options())
	ctx := context.Background()
	user, err := store.CompleteSetup(ctx, models.NewUser{Username: "ada", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO workspaces (id, display_name) VALUES ('other', 'Other')`); err != nil {
		t.Fatal(err)
	}
	return &pagesFixture{t: t, store: store, user: user, ctx: ctx, dsn: dsn}
}

// joinOther makes the user a member of "other" too: then the user sees
// every workspace (the dashboard queries' other plan).
func (f *pagesFixture) joinOther() {
	f.t.Helper()
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ('other', $1, 'editor')`, f.user.ID); err != nil {
		f.t.Fatal(err)
	}
}

func (f *pagesFixture) collection(ws, name, state string) *models.JobCollection {
	f.t.Helper()
	c := &models.JobCollection{Name: name, State: models.CollectionState(state)}
	if err := f.store.CreateCollection(f.ctx, ws, "rg", c); err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *pagesFixture) job(c *models.JobCollection, name, state string, next *time.Time) *models.Job {
	f.t.Helper()
	return saveJob(f.t, f.store, models.JobWrite{CollectionID: c.ID, Name: name,
		Definition: json.RawMessage(`{"action":{"type":"http","request":{"uri":"https://example.com","method":"GET"}}}`),
		State:      jobdef.State(state), NextRunAt: next})
}

func (f *pagesFixture) history(j *models.Job, start time.Time, status, action string, lateMs int64) *models.HistoryEntry {
	f.t.Helper()
	e := &models.HistoryEntry{JobID: j.ID, StartTime: start, ExpectedExecutionTime: start.Add(-time.Duration(lateMs) * time.Millisecond),
		ActionName: models.ActionName(action), Status: models.HistoryStatus(status), Message: status + " at " + start.Format(time.RFC3339), LatenessMs: &lateMs}
	if err := f.store.AddHistory(f.ctx, e); err != nil {
		f.t.Fatal(err)
	}
	return e
}

func at(minutes int) time.Time {
	return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
}

func TestFilteredHistoryPagesByKeysetWithFilters(t *testing.T) {
	f := newPagesFixture(t)
	j := f.job(f.collection("default", "c", "Enabled"), "j", "enabled", nil)
	statuses := []string{"Completed", "Failed", "Postponed"}
	want := map[string]int{}
	for i := range 30 {
		st := statuses[i%3]
		action := "MainAction"
		if i%5 == 0 {
			action = "ErrorAction"
		}
		f.history(j, at(i/2), st, action, 0) // pairs share a start time: the id breaks the tie
		want[st]++
		want[action]++
		want[st+"/"+action]++
	}
	cases := []struct{ status, action string }{{"", ""}, {"Failed", ""}, {"", "ErrorAction"}, {"Completed", "MainAction"}}
	for _, c := range cases {
		var seen []models.HistoryEntry
		q := models.HistoryQuery{JobID: j.ID, Status: models.HistoryStatus(c.status), Action: models.ActionName(c.action), Limit: 4}
		for pages := 0; ; pages++ {
			if pages > 40 {
				t.Fatalf("%+v: paging does not end", c)
			}
			page, err := f.store.FilteredHistory(f.ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			seen = append(seen, page...)
			last := page[len(page)-1]
			q.BeforeStart, q.BeforeID = last.StartTime, last.ID
		}
		expect := 30
		switch {
		case c.status != "" && c.action != "":
			expect = want[c.status+"/"+c.action]
		case c.status != "":
			expect = want[c.status]
		case c.action != "":
			expect = want[c.action]
		}
		if len(seen) != expect {
			t.Errorf("%+v: %d entries over all pages, want %d", c, len(seen), expect)
		}
		ids := map[int64]bool{}
		for i, e := range seen {
			if ids[e.ID] {
				t.Errorf("%+v: entry %d on two pages", c, e.ID)
			}
			ids[e.ID] = true
			if (c.status != "" && string(e.Status) != c.status) || (c.action != "" && string(e.ActionName) != c.action) {
				t.Errorf("%+v: entry %d is %s/%s", c, e.ID, e.Status, e.ActionName)
			}
			if i > 0 {
				p := seen[i-1]
				if e.StartTime.After(p.StartTime) || (e.StartTime.Equal(p.StartTime) && e.ID > p.ID) {
					t.Errorf("%+v: entry %d (%v) follows %d (%v): not newest first", c, e.ID, e.StartTime, p.ID, p.StartTime)
				}
			}
		}
	}
}

func TestUpcomingRunsSoonestFirstOfMembersOnly(t *testing.T) {
	f := newPagesFixture(t)
	c := f.collection("default", "c", "Enabled")
	off := f.collection("default", "off", "Disabled")
	other := f.collection("other", "theirs", "Enabled")
	t3, t1, t2, t0 := at(30), at(10), at(20), at(1)
	f.job(c, "third", "enabled", &t3)
	f.job(c, "first", "enabled", &t1)
	f.job(c, "second", "enabled", &t2)
	f.job(c, "stopped", "disabled", &t0)
	f.job(off, "in-disabled-collection", "enabled", &t0)
	f.job(other, "not-mine", "enabled", &t0)
	runs, err := f.store.UpcomingRuns(f.ctx, f.user.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].JobName != "first" || runs[1].JobName != "second" {
		t.Fatalf("upcoming = %+v, want first and second", runs)
	}
	r := runs[0]
	if !r.NextRunAt.Equal(t1) || r.Collection != "c" || r.ResourceGroup != "rg" || r.WorkspaceID != "default" ||
		len(r.Definition) == 0 || r.ScheduleBase == nil || r.CreatedAt.IsZero() {
		t.Errorf("first upcoming run = %+v", r)
	}
	// Fewer than asked for: the user's own collections are read instead.
	mine, err := f.store.UpcomingRuns(f.ctx, f.user.ID, 10)
	if err != nil || len(mine) != 3 || mine[0].JobName != "first" || mine[2].JobName != "third" {
		t.Fatalf("all upcoming runs of the user = %+v, %v", mine, err)
	}
	none, err := f.store.UpcomingRuns(f.ctx, 424242, 10)
	if err != nil || len(none) != 0 {
		t.Errorf("a non-member sees %+v, %v", none, err)
	}
	// A member of every workspace: the soonest run is in "other" now.
	f.joinOther()
	runs, err = f.store.UpcomingRuns(f.ctx, f.user.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.JobName)
	}
	if strings.Join(names, ",") != "not-mine,first,second,third" {
		t.Errorf("upcoming of a member of everything: %v", names)
	}
}

func TestRecentFailuresAndExecutionBucketsOfMembersOnly(t *testing.T) {
	f := newPagesFixture(t)
	c := f.collection("default", "c", "Enabled")
	a, b := f.job(c, "a", "enabled", nil), f.job(c, "b", "enabled", nil)
	theirs := f.job(f.collection("other", "theirs", "Enabled"), "x", "enabled", nil)
	f.history(a, at(5), "Completed", "MainAction", 10)
	f.history(a, at(70), "Failed", "MainAction", 1500)
	f.history(b, at(75), "Failed", "ErrorAction", 20)
	f.history(b, at(80), "Completed", "MainAction", 30)
	f.history(theirs, at(90), "Failed", "MainAction", 40)
	f.history(a, at(-5), "Failed", "MainAction", 50) // before the range
	fails, err := f.store.RecentFailures(f.ctx, f.user.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(fails) != 2 || fails[0].JobName != "b" || fails[1].JobName != "a" || !fails[0].StartTime.Equal(at(75)) ||
		fails[0].ActionName != "ErrorAction" || fails[0].Collection != "c" || fails[0].WorkspaceID != "default" {
		t.Fatalf("recent failures = %+v", fails)
	}
	all, err := f.store.RecentFailures(f.ctx, f.user.ID, 10)
	if err != nil || len(all) != 3 || all[0].JobName != "b" || !all[2].StartTime.Equal(at(-5)) {
		t.Fatalf("all failures of the user = %+v, %v", all, err)
	}
	buckets, err := f.store.ExecutionBuckets(f.ctx, models.ExecutionBucketsParams{UserID: f.user.ID, From: at(0), To: at(24 * 60), Now: at(100)})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		bucket int
		status string
	}
	got := map[key]int64{}
	for _, bk := range buckets {
		got[key{bk.Bucket, string(bk.Status)}] = bk.Count
	}
	want := map[key]int64{{0, "Completed"}: 1, {1, "Failed"}: 2, {1, "Completed"}: 1}
	if len(got) != len(want) {
		t.Fatalf("buckets = %+v, want %v", buckets, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("bucket %v = %d, want %d (all: %+v)", k, got[k], n, buckets)
		}
	}
	for _, bk := range buckets {
		if bk.Bucket == 1 && bk.Status == "Failed" && (bk.MaxLatenessMs == nil || *bk.MaxLatenessMs != 1500) {
			t.Errorf("max lateness of bucket 1 Failed = %v, want 1500", bk.MaxLatenessMs)
		}
	}
	// A member of every workspace also sees "other"'s failure at 90 min.
	f.joinOther()
	fails, err = f.store.RecentFailures(f.ctx, f.user.ID, 10)
	if err != nil || len(fails) != 4 || fails[0].JobName != "x" || fails[0].WorkspaceID != "other" || fails[3].JobName != "a" {
		t.Fatalf("recent failures of a member of everything = %+v, %v", fails, err)
	}
	buckets, err = f.store.ExecutionBuckets(f.ctx, models.ExecutionBucketsParams{UserID: f.user.ID, From: at(0), To: at(24 * 60), Now: at(25 * 60)})
	if err != nil {
		t.Fatal(err)
	}
	got = map[key]int64{}
	for _, bk := range buckets {
		got[key{bk.Bucket, string(bk.Status)}] = bk.Count
	}
	if len(got) != 3 || got[key{1, "Failed"}] != 3 || got[key{0, "Completed"}] != 1 {
		t.Errorf("buckets of a member of everything = %+v", buckets)
	}
}

func TestCollectionJobsPageByNameWithLastResult(t *testing.T) {
	f := newPagesFixture(t)
	c := f.collection("default", "c", "Enabled")
	bJob := f.job(c, "b", "enabled", nil)
	f.job(c, "C", "disabled", nil)
	f.job(c, "A", "enabled", nil)
	f.history(bJob, at(1), "Completed", "MainAction", 0)
	f.history(bJob, at(2), "Failed", "MainAction", 0)
	var names []string
	after := ""
	for {
		page, err := f.store.CollectionJobs(f.ctx, c.ID, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, j := range page {
			names = append(names, j.Name)
			if j.Name == "b" {
				if j.LastStatus == nil || *j.LastStatus != "Failed" || !j.LastStartTime.Equal(at(2)) {
					t.Errorf("b's last result = %v at %v, want Failed at %v", j.LastStatus, j.LastStartTime, at(2))
				}
			} else if j.LastStatus != nil {
				t.Errorf("%s has last result %v, want none", j.Name, *j.LastStatus)
			}
			if len(j.Definition) == 0 {
				t.Errorf("%s without its definition", j.Name)
			}
		}
		after = page[len(page)-1].Name
	}
	if len(names) != 3 || names[0] != "A" || names[1] != "b" || names[2] != "C" {
		t.Fatalf("jobs in order %v, want [A b C]", names)
	}
}

func TestJobDetailAndHistoryOfARange(t *testing.T) {
	f := newPagesFixture(t)
	c := f.collection("default", "c", "Enabled")
	j := f.job(c, "Nightly", "enabled", nil)
	d, err := f.store.JobDetail(f.ctx, c.ID, "NIGHTLY")
	if err != nil || d.ID != j.ID || d.ScheduledCount != 0 {
		t.Fatalf("JobDetail = %+v, %v", d, err)
	}
	if _, err := f.store.JobDetail(f.ctx, c.ID, "missing"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("missing job: %v, want ErrNotFound", err)
	}
	for i := range 10 {
		st := "Completed"
		if i%4 == 0 {
			st = "Failed"
		}
		f.history(j, at(i*30), st, "MainAction", int64(i))
	}
	entries, err := f.store.HistoryBetween(f.ctx, models.HistoryBetweenParams{JobID: j.ID, From: at(60), To: at(180), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 || !entries[0].StartTime.Equal(at(150)) || !entries[3].StartTime.Equal(at(60)) {
		t.Fatalf("entries of [60, 180) min = %d, first %v", len(entries), entries)
	}
	limited, err := f.store.HistoryBetween(f.ctx, models.HistoryBetweenParams{JobID: j.ID, From: at(0), To: at(1000), Limit: 3})
	if err != nil || len(limited) != 3 || !limited[0].StartTime.Equal(at(270)) {
		t.Fatalf("limited = %v, %v", limited, err)
	}
	buckets, err := f.store.HistoryBuckets(f.ctx, models.HistoryBucketsParams{JobID: j.ID, From: at(0), To: at(300), Width: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, b := range buckets {
		total += b.Count
		if b.Bucket < 0 || b.Bucket > 4 {
			t.Errorf("bucket %d out of range", b.Bucket)
		}
	}
	if total != 10 || buckets[0].Bucket != 0 || buckets[0].Status != "Completed" || buckets[1].Status != "Failed" {
		t.Errorf("buckets = %+v (total %d)", buckets, total)
	}
}
