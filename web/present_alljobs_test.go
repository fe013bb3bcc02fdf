package web

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

func TestParseAllJobsParams(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		query string
		want  AllJobsParams
		bad   string // the parameter named by the error
	}{
		{"", AllJobsParams{Sort: models.SortNext}, ""},
		{"q=+pay+&state=enabled&result=none&tz=Europe%2FBerlin&failed=24h&sort=name&collection=default%2Frg%2Fjc",
			AllJobsParams{Query: "pay", State: string(jobdef.Enabled), Result: "none", Zone: "Europe/Berlin", Failed24h: true, Sort: models.SortName, Collection: "default/rg/jc"}, ""},
		{"after=2026-11-21T10%3A00%3A00Z%2C7", AllJobsParams{Sort: models.SortNext, After: &models.JobCursor{Time: &at, ID: 7}}, ""},
		{"after=none%2C7", AllJobsParams{Sort: models.SortNext, After: &models.JobCursor{ID: 7}}, ""},
		{"sort=name&after=job-1%2C3", AllJobsParams{Sort: models.SortName, After: &models.JobCursor{Name: "job-1", ID: 3}}, ""},
		{"sort=failures&after=12%2C3", AllJobsParams{Sort: models.SortFailures, After: &models.JobCursor{Count: 12, ID: 3}}, ""},
		{"sort=soon", AllJobsParams{}, "sort"},
		{"state=paused", AllJobsParams{}, "state"},
		{"result=ok", AllJobsParams{}, "result"},
		{"tz=Mars%2FBase", AllJobsParams{}, "tz"},
		{"failed=yes", AllJobsParams{}, "failed"},
		{"alerts=1", AllJobsParams{HasAlerts: true, Sort: models.SortNext}, ""},
		{"alerts=1&failed=24h&sort=name&after=job-1%2C3", AllJobsParams{HasAlerts: true, Failed24h: true, Sort: models.SortName, After: &models.JobCursor{Name: "job-1", ID: 3}}, ""},
		{"alerts=", AllJobsParams{Sort: models.SortNext}, ""},
		{"alerts=yes", AllJobsParams{}, "alerts"},
		{"alerts=0", AllJobsParams{}, "alerts"},
		{"alerts=true", AllJobsParams{}, "alerts"},
		{"collection=jc", AllJobsParams{}, "collection"},
		{"after=7", AllJobsParams{}, "after"},
		{"after=yesterday%2C7", AllJobsParams{}, "after"},
		{"sort=failures&after=-1%2C7", AllJobsParams{}, "after"},
		{"sort=name&after=Job%2C7", AllJobsParams{}, "after"},
		{"after=none%2C0", AllJobsParams{}, "after"},
		{"q=" + strings.Repeat("x", MaxSearchLength+1), AllJobsParams{}, "q"},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		got, err := ParseAllJobsParams(q)
		if c.bad != "" {
			pe, ok := err.(*ParamError)
			if !ok || pe.Param != c.bad {
				t.Errorf("%s: error %v, want one naming %s", c.query, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.want)
		if string(gj) != string(wj) {
			t.Errorf("%s:\n got %s\nwant %s", c.query, gj, wj)
		}
		// The URL the page writes reads back the same.
		back, err := ParseAllJobsParams(got.Values(true))
		if bj, _ := json.Marshal(back); err != nil || string(bj) != string(gj) {
			t.Errorf("%s: round trip %s, %v", c.query, bj, err)
		}
	}
}

func TestNewAllJobsResults(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	next := now.Add(90 * time.Minute)
	failed := models.StatusFailed
	lastAt := now.Add(-2 * time.Hour)
	def := json.RawMessage(`{"action":{"type":"https","request":{"uri":"https://x","method":"GET"}},"recurrence":{"frequency":"day","interval":1,"timeZone":"Europe/Berlin"}}`)
	item := func(i int) AllJobsItem {
		return AllJobsItem{Row: &models.JobSearchRow{ID: int64(i + 1), Name: "job-" + string(rune('a'+i%26)), Definition: def, State: jobdef.Enabled,
			NextRunAt: &next, CreatedAt: now, Collection: "jc", ResourceGroup: "rg", WorkspaceID: "default"},
			Stored: ParseStored(def), Next: []time.Time{next}}
	}
	t.Run("a row", func(t *testing.T) {
		it := item(0)
		it.Row.LastStatus, it.Row.LastStartTime, it.Row.RecentFailures = &failed, &lastAt, 3
		r := NewAllJobsResults(AllJobsParams{Sort: models.SortNext}, []AllJobsItem{it}, now)
		if len(r.Rows) != 1 || r.NextURL != "" || r.FirstURL != "" || r.Summary != "1 job, soonest next run first." {
			t.Fatalf("%+v", r)
		}
		row := r.Rows[0]
		want := AllJobsRow{Name: "job-a", URL: "/c/default/rg/jc/jobs/job-a", Collection: "rg/jc", CollectionURL: "/c/default/rg/jc",
			Workspace: "default", Badge: BadgeView{"Enabled", ToneGood}, LastResult: BadgeView{"Failed", ToneBad},
			Failures24h: "3", HasFailures24h: true}
		if row.Name != want.Name || row.URL != want.URL || row.Collection != want.Collection || row.CollectionURL != want.CollectionURL ||
			row.Workspace != want.Workspace || row.Badge != want.Badge || row.LastResult != want.LastResult ||
			row.Failures24h != want.Failures24h || !row.HasFailures24h {
			t.Errorf("row %+v", row)
		}
		if row.Next.Relative != "in 1 h 30 min" && !strings.HasPrefix(row.Next.Relative, "in ") || !strings.Contains(row.Next.Local, "CET") || row.LastAt.Relative != "2 h ago" {
			t.Errorf("times %+v %+v", row.Next, row.LastAt)
		}
		if !strings.Contains(row.Description, "day") {
			t.Errorf("description %q", row.Description)
		}
	})
	t.Run("pages", func(t *testing.T) {
		items := make([]AllJobsItem, AllJobsPageSize+1)
		for i := range items {
			items[i] = item(i)
		}
		p := AllJobsParams{Query: "job", Sort: models.SortName}
		r := NewAllJobsResults(p, items, now)
		if len(r.Rows) != AllJobsPageSize || r.NextURL != "/jobs?after=job-x%2C50&q=job&sort=name" || r.FirstURL != "" ||
			r.Summary != "The first 50 jobs, by name." {
			t.Errorf("first page: next %q first %q summary %q", r.NextURL, r.FirstURL, r.Summary)
		}
		p.After = &models.JobCursor{Name: "job-x", ID: 50}
		r = NewAllJobsResults(p, items[:2], now)
		if r.NextURL != "" || r.FirstURL != "/jobs?q=job&sort=name" || r.Summary != "The next 2 jobs, by name." {
			t.Errorf("last page: next %q first %q summary %q", r.NextURL, r.FirstURL, r.Summary)
		}
	})
	t.Run("empty", func(t *testing.T) {
		for _, c := range []struct {
			p    AllJobsParams
			want string
		}{
			{AllJobsParams{}, "You have no jobs yet"},
			{AllJobsParams{Query: "x"}, "No job matches"},
			{AllJobsParams{After: &models.JobCursor{ID: 1}}, "No more jobs match"},
		} {
			if r := NewAllJobsResults(c.p, nil, now); !strings.HasPrefix(r.Empty, c.want) || len(r.Rows) != 0 {
				t.Errorf("%+v: %q", c.p, r.Empty)
			}
		}
	})
}

func TestAllJobsSearchAndForm(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := AllJobsSearch(AllJobsParams{State: string(jobdef.Disabled), Failed24h: true, Sort: models.SortLast}, nil, true, now)
	if !s.AllCollections || len(s.States) != 1 || s.States[0] != "disabled" || !s.FailedSince.Equal(now.Add(-24*time.Hour)) ||
		!s.FailuresSince.Equal(s.FailedSince) || s.Limit != AllJobsPageSize+1 || s.Sort != models.SortLast {
		t.Errorf("%+v", s)
	}
	if s := AllJobsSearch(AllJobsParams{}, nil, false, now); !s.FailedSince.IsZero() || s.States != nil {
		t.Errorf("no filter: %+v", s)
	}
	f := NewAllJobsForm(AllJobsParams{Query: "x", Sort: models.SortName}, []models.VisibleCollection{{Name: "jc", ResourceGroup: "rg", WorkspaceID: "default"}}, []string{"UTC"})
	if f.Action != "/jobs" || f.ClearURL != "/jobs?sort=name" || len(f.Collections) != 2 || f.Collections[1].Value != "default/rg/jc" {
		t.Errorf("%+v", f)
	}
	if s := AllJobsSearch(AllJobsParams{HasAlerts: true}, nil, true, now); !s.HasAlerts || !s.FailedSince.IsZero() {
		t.Errorf("has alerts: %+v", s)
	}
	if f := NewAllJobsForm(AllJobsParams{HasAlerts: true, Sort: models.SortNext}, nil, nil); !f.HasAlerts || f.ClearURL != "/jobs" {
		t.Errorf("has alerts form: %+v", f)
	}
	if u := AllJobsPath(AllJobsParams{HasAlerts: true, Sort: models.SortNext, After: &models.JobCursor{ID: 4}}.Values(true)); u != "/jobs?after=none%2C4&alerts=1" {
		t.Errorf("the next page's URL %q does not keep alerts=1", u)
	}
	if f := NewAllJobsForm(AllJobsParams{Sort: models.SortNext}, nil, nil); f.ClearURL != "" {
		t.Errorf("unfiltered form has a clear link %q", f.ClearURL)
	}
}
