package web

import (
	"reflect"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

func TestNiceMax(t *testing.T) {
	for _, tc := range []struct{ n, want int64 }{
		{0, 1}, {1, 1}, {2, 2}, {3, 5}, {5, 5}, {6, 10}, {11, 20}, {21, 50}, {51, 100}, {101, 200},
	} {
		t.Run(FormatCount(tc.n), func(t *testing.T) {
			if got := niceMax(tc.n); got != tc.want {
				t.Errorf("niceMax(%d) = %d, want %d", tc.n, got, tc.want)
			}
		})
	}
}

func TestTimelineGeometry(t *testing.T) {
	from := time.Date(2026, 12, 23, 12, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"x of the start", xOf(from, from, to), tlPlotX1},
		{"x of the end", xOf(to, from, to), tlPlotX2},
		{"x of the middle", xOf(from.Add(12*time.Hour), from, to), 450},
		{"x before the start", xOf(from.Add(-time.Hour), from, to), tlPlotX1},
		{"x after the end", xOf(to.Add(time.Hour), from, to), tlPlotX2},
		{"x of an empty span", xOf(from, from, from), tlPlotX1},
		{"lane of Completed", laneY(models.StatusCompleted), 76},
		{"lane of Failed", laneY(models.StatusFailed), 108},
		{"lane of Postponed", laneY(models.StatusPostponed), 140},
		{"lane of anything else", laneY("odd"), 76},
		{"no lateness", lateBar(0, 10), 0},
		{"largest lateness", lateBar(10, 10), tlMaxLate},
		{"half", lateBar(5, 10), 18},
		{"tiny lateness shows", lateBar(1, 1000), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
}

func TestShapeMark(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   TimelineMark
	}{
		{string(models.StatusCompleted), TimelineMark{Status: models.StatusCompleted, Shape: "circle", X: 100, Y: 76, R: 6}},
		{string(models.StatusFailed), TimelineMark{Status: models.StatusFailed, Shape: "square", X: 100, Y: 76, RectX: 94, RectY: 70, RectW: 12, RectH: 12}},
		{string(models.StatusPostponed), TimelineMark{Status: models.StatusPostponed, Shape: "diamond", X: 100, Y: 76, Points: "100,68 108,76 100,84 92,76"}},
	} {
		t.Run(tc.status, func(t *testing.T) {
			m := TimelineMark{Status: models.HistoryStatus(tc.status)}
			shapeMark(&m, 100, 76)
			if m != tc.want {
				t.Errorf("got %+v, want %+v", m, tc.want)
			}
		})
	}
}

func TestTimelineTicks(t *testing.T) {
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	labels := func(ts []tick) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.label)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		r    TimelineRange
		want []string
	}{
		{"24 h: every 3 hours", TimelineRanges[0], []string{"12:00", "15:00", "18:00", "21:00", "00:00", "03:00", "06:00", "09:00", "12:00"}},
		{"7 d: every day", TimelineRanges[1], []string{"Fri 18", "Sat 19", "Sun 20", "Mon 21", "Tue 22", "Wed 23", "Thu 24"}},
		{"30 d: every 5 days", TimelineRanges[2], []string{"25 Nov", "30 Nov", "5 Dec", "10 Dec", "15 Dec", "20 Dec"}},
		{"60 d: every 10 days", TimelineRanges[3], []string{"26 Oct", "5 Nov", "15 Nov", "25 Nov", "5 Dec", "15 Dec"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := labels(timelineTicks(tc.r, now.Add(-tc.r.Span), now, time.UTC))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestActivityChart(t *testing.T) {
	from := time.Date(2026, 12, 24, 14, 0, 0, 0, time.UTC)
	buckets := []models.HistoryBucket{
		{Bucket: 0, Status: models.StatusCompleted, Count: 3},
		{Bucket: 0, Status: models.StatusFailed, Count: 1},
		{Bucket: 23, Status: models.StatusPostponed, Count: 2},
		{Bucket: 30, Status: models.StatusFailed, Count: 9}, // outside: left out
	}
	a := NewActivityChart(buckets, from, time.UTC)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"summary", a.Summary, "6 executions in the last 24 hours: 3 Completed, 1 Failed, 2 Postponed."},
		{"empty", a.Empty, false},
		{"bars", len(a.Bars), 24},
		{"y ticks (odd scale: no middle)", a.YTicks, []ChartTick{{X: 46, Y: 192, Text: "0", Anchor: "end"}, {X: 46, Y: 44, Text: "5", Anchor: "end"}}},
		{"x ticks", len(a.XTicks), 8},
		{"first x tick", a.XTicks[0], ChartTick{X: 69, Y: 212, Text: "14:00", Anchor: "middle"}},
		{"first bar's label", a.Bars[0].Label, "14:00–15:00 UTC: 4 executions (3 Completed, 1 Failed)"},
		{"first bar's segments", a.Bars[0].Segments, []BarSegment{
			{X: 57, Y: 103, W: 24, H: 89, Status: models.StatusCompleted},
			{X: 57, Y: 73, W: 24, H: 30, Status: models.StatusFailed}}},
		{"first bar's count", []int{a.Bars[0].CountX, a.Bars[0].CountY}, []int{69, 69}},
		{"first bar's hit area", []int{a.Bars[0].HitX, a.Bars[0].HitY, a.Bars[0].HitW, a.Bars[0].HitH}, []int{53, 14, 32, 178}},
		{"an empty hour", a.Bars[1].Label, "15:00–16:00 UTC: no execution"},
		{"an empty hour has no segment", a.Bars[1].HasExecutions, false},
		{"last bar", a.Bars[23].Segments, []BarSegment{{X: 839, Y: 133, W: 24, H: 59, Status: models.StatusPostponed}}},
		{"legend", a.Legend[1], LegendItem{Text: "Failed", Series: SeriesFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
	t.Run("nothing", func(t *testing.T) {
		e := NewActivityChart(nil, from, time.UTC)
		if !e.Empty || e.Summary != "No execution in the last 24 hours." || len(e.YTicks) != 2 || e.YTicks[1].Text != "1" {
			t.Errorf("got %+v", e)
		}
	})
}

// timelineJob is a job in a collection for the timeline and history tests.
func timelineJob() (*models.CollectionRow, *models.JobDetail) {
	row := &models.CollectionRow{WorkspaceID: "default", ResourceGroup: "rg", JobCollection: models.JobCollection{Name: "jc", State: models.CollectionEnabled}}
	j := &models.JobDetail{Job: models.Job{ID: 7, Name: "nightly", State: jobdef.Enabled,
		Definition: []byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"state":"enabled"}`)}}
	return row, j
}

func TestTimelineOfEntries(t *testing.T) {
	row, j := timelineJob()
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	start := now.Add(-6 * time.Hour)
	end := start.Add(2 * time.Second)
	late := int64(time.Hour / time.Millisecond)
	in := NewTimelineInput(row, j, TimelineRanges[0], now, false)
	in.Entries = []models.HistoryEntry{{ID: 1, StartTime: start, EndTime: &end, ExpectedExecutionTime: start.Add(-time.Hour),
		ActionName: models.MainAction, Status: models.StatusCompleted, Message: "ok", LatenessMs: &late}}
	v := NewTimelineView(in)
	want := TimelineMark{Status: models.StatusCompleted, Shape: "circle", X: 619, Y: 76, R: 6,
		HasLateLine: true, LateX1: 591, LateBarX: 618, LateBarY: 168, LateBarW: 3, LateBarH: 36,
		Label:  "Completed, MainAction, retry count 0, started Thu 24 Dec 06:00:00 UTC, expected Thu 24 Dec 05:00:00, 1 h late, took 2.0 s, ok",
		Detail: "Completed · MainAction · Thu 24 Dec 06:00:00 UTC · 1 h late"}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"url", v.URL, "/c/default/rg/jc/jobs/nightly/timeline?range=24h"},
		{"caption", v.Caption, "Timeline of the last 24 hours (times in UTC)"},
		{"summary", v.Summary, "1 execution in the last 24 hours: 1 Completed. Each mark can take the focus; its details show above the picture."},
		{"lateness", v.LateMax, "max 1 h"},
		{"ranges", len(v.Ranges), 4},
		{"current range", v.Ranges[0], RangeLink{Label: "24 h", Value: "24h", URL: "/c/default/rg/jc/jobs/nightly?range=24h",
			HXURL: "/c/default/rg/jc/jobs/nightly/timeline?range=24h", Current: true}},
		{"other range", v.Ranges[1].Current, false},
		{"lanes", v.Lanes[2], TimelineLane{Label: string(models.StatusPostponed), Y: 140, LabelY: 145}},
		{"ticks (the ends left out)", len(v.Ticks), 7},
		{"first tick", v.Ticks[0], ChartTick{X: 197, Y: 44, Text: "15:00", Anchor: "middle"}},
		{"grid", v.GridLines[0], 197},
		{"marks", v.Marks, []TimelineMark{want}},
		{"legend", v.Legend[3].Series, SeriesLateness},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
	t.Run("history page links", func(t *testing.T) {
		h := NewTimelineInput(row, j, TimelineRanges[1], now, true)
		if h.URL != "/c/default/rg/jc/jobs/nightly/timeline?page=history&range=7d" || h.PageURL != "/c/default/rg/jc/jobs/nightly/history?range=" {
			t.Errorf("got %q, %q", h.URL, h.PageURL)
		}
	})
	t.Run("empty", func(t *testing.T) {
		e := NewTimelineView(NewTimelineInput(row, j, TimelineRanges[2], now, false))
		if !e.Empty || e.Summary != "No execution in the last 30 days." || e.LateMax != "max 0 ms" {
			t.Errorf("got %+v", e)
		}
	})
}

func TestTimelineOfBuckets(t *testing.T) {
	row, j := timelineJob()
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	late := int64(1000)
	in := NewTimelineInput(row, j, TimelineRanges[1], now, false)
	in.Bucketed = true
	in.Buckets = []models.HistoryBucket{
		{Bucket: 0, Status: models.StatusFailed, Count: 400, MaxLatenessMs: &late},
		{Bucket: 1, Status: models.StatusPostponed, Count: 1},
	}
	v := NewTimelineView(in)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"note", v.Note, "Too many executions to draw one by one: each mark groups the executions of 2 h."},
		{"summary", v.Summary, "401 executions in the last 7 days: 400 Failed, 1 Postponed. Each mark can take the focus; its details show above the picture."},
		{"group", v.Marks[0], TimelineMark{Status: models.StatusFailed, Shape: "square", X: 116, Y: 108,
			RectX: 112, RectY: 101, RectW: 7, RectH: 14, LateBarX: 112, LateBarY: 168, LateBarW: 7, LateBarH: 36,
			Label:  "400 Failed executions, from Thu 17 Dec 12:00 to Thu 17 Dec 14:00 UTC, at most 1.0 s late",
			Detail: "400 Failed executions, from Thu 17 Dec 12:00 to Thu 17 Dec 14:00 UTC, at most 1.0 s late"}},
		{"a postponed group is a diamond", v.Marks[1].Shape, "diamond"},
		{"its label", v.Marks[1].Label, "1 Postponed execution, from Thu 17 Dec 14:00 to Thu 17 Dec 16:00 UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}

// TestTimelineSameSecond checks that two executions in the same second
// draw two marks, apart.
func TestTimelineSameSecond(t *testing.T) {
	row, j := timelineJob()
	j.ExecutionCount = 2
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	in := NewTimelineInput(row, j, TimelineRanges[0], now, false)
	in.Entries = []models.HistoryEntry{
		{ID: 2, StartTime: at.Add(300 * time.Millisecond), ExpectedExecutionTime: at, ActionName: models.MainAction, Status: models.StatusCompleted},
		{ID: 1, StartTime: at, ExpectedExecutionTime: at, ActionName: models.MainAction, Status: models.StatusCompleted},
		{ID: 0, StartTime: at.Add(-2 * time.Hour), ExpectedExecutionTime: at, ActionName: models.MainAction, Status: models.StatusFailed},
	}
	v := NewTimelineView(in)
	if len(v.Marks) != 3 {
		t.Fatalf("%d marks, want 3", len(v.Marks))
	}
	a, b := v.Marks[1], v.Marks[2]
	if a.Y != b.Y || b.X-a.X < 2*a.R {
		t.Errorf("same-second marks overlap: %+v and %+v", a, b)
	}
	if v.FirstRun != "" {
		t.Errorf("a job that ran says %q", v.FirstRun)
	}
}

// TestTimelineNeverRan checks that a job that never ran says when it
// first runs instead of drawing an empty picture.
func TestTimelineNeverRan(t *testing.T) {
	row, j := timelineJob()
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	first := now.Add(5 * time.Hour)
	for _, tc := range []struct {
		name string
		in   func(*TimelineInput)
		want string
	}{
		{"next run known", func(in *TimelineInput) { in.FirstRun = &first },
			"The job has not run yet: its first run is on Thu 24 Dec 2026 17:00:00 UTC (in 5 h)."},
		{"no next run", func(*TimelineInput) {}, "The job has not run yet and no run is scheduled."},
		{"ran before the range", func(in *TimelineInput) { in.NeverRan = false }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewTimelineInput(row, j, TimelineRanges[0], now, false)
			tc.in(&in)
			if got := NewTimelineView(in).FirstRun; got != tc.want {
				t.Errorf("FirstRun = %q, want %q", got, tc.want)
			}
		})
	}
}
