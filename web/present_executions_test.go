package web

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"sked/models"
)

func TestPercentAndRates(t *testing.T) {
	for _, tc := range []struct {
		c           models.SuccessCounts
		value, text string
		tone        Tone
	}{
		{models.SuccessCounts{}, "—", "no run", ToneNeutral},
		{models.SuccessCounts{Total: 1, Succeeded: 1}, "100 %", "1 of 1 attempt succeeded", ToneGood},
		{models.SuccessCounts{Total: 1000, Succeeded: 999}, "99.9 %", "999 of 1,000 attempts succeeded", ToneGood},
		{models.SuccessCounts{Total: 2000, Succeeded: 1999}, "99.9 %", "1,999 of 2,000 attempts succeeded", ToneGood},
		{models.SuccessCounts{Total: 3, Succeeded: 2}, "66.6 %", "2 of 3 attempts succeeded", ToneBad},
		{models.SuccessCounts{Total: 20, Succeeded: 19}, "95 %", "19 of 20 attempts succeeded", ToneWarning},
		{models.SuccessCounts{Total: 4, Succeeded: 0}, "0 %", "0 of 4 attempts succeeded", ToneBad},
	} {
		r := rateView("Last 7 days", tc.c)
		if r.Value != tc.value || r.Detail != tc.text || r.Tone != tc.tone {
			t.Errorf("%+v: %+v, want %q %q %v", tc.c, r, tc.value, tc.text, tc.tone)
		}
	}
}

func TestTrendChart(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	ms := func(n int64) *int64 { return &n }
	end := func(t time.Time, d time.Duration) *time.Time { e := t.Add(d); return &e }
	// Newest first, as the store returns them.
	runs := []models.TrendRun{
		{ID: 3, StartTime: now, EndTime: end(now, 4*time.Second), Status: models.StatusFailed, LatenessMs: ms(200)},
		{ID: 2, StartTime: now.Add(-time.Hour), EndTime: end(now.Add(-time.Hour), 2*time.Second), Status: models.StatusCompleted, LatenessMs: ms(0)},
		{ID: 1, StartTime: now.Add(-2 * time.Hour), Status: models.StatusCompleted},
	}
	v := NewTrendsView("", runs, nil)
	if v.Empty || len(v.Chart.Bars) != 3 || len(v.Rates) != 2 {
		t.Fatalf("view %+v", v)
	}
	b := v.Chart.Bars
	if !(b[0].X < b[1].X && b[1].X < b[2].X) {
		t.Errorf("bars not oldest first: %d %d %d", b[0].X, b[1].X, b[2].X)
	}
	if b[2].DurH != trendDurBaseY-trendDurTopY || b[1].DurH != (trendDurBaseY-trendDurTopY)/2 || b[0].DurH != 0 {
		t.Errorf("duration heights %d %d %d", b[0].DurH, b[1].DurH, b[2].DurH)
	}
	if b[2].LateH != trendLateBase-trendLateTopY || b[1].LateH != 0 || b[2].DurY+b[2].DurH != trendDurBaseY {
		t.Errorf("lateness %d %d", b[2].LateH, b[1].LateH)
	}
	if b[2].Status != models.StatusFailed || !strings.Contains(b[2].Label, "Failed, took 4.0 s, late by 200 ms") ||
		!strings.Contains(b[0].Label, "late by —") {
		t.Errorf("labels %q / %q", b[2].Label, b[0].Label)
	}
	if v.Chart.Summary != "3 runs: 1 failed; average duration 2.0 s, longest 4.0 s; largest lateness 200 ms." || v.Chart.DurMax != "max 4.0 s" {
		t.Errorf("summary %q, %q", v.Chart.Summary, v.Chart.DurMax)
	}
	for _, bar := range b {
		if bar.X < trendPlotX1 || bar.X+bar.W > trendPlotX2 {
			t.Errorf("bar outside the plot: %+v", bar)
		}
	}
	// A run a target limit held: its lateness lane is the engine's, the
	// wait is said apart.
	held := []models.TrendRun{
		{ID: 5, StartTime: now, EndTime: end(now, time.Second), Status: models.StatusCompleted, LatenessMs: ms(3300), LimitWaitMs: ms(3200)},
		{ID: 4, StartTime: now.Add(-time.Hour), EndTime: end(now.Add(-time.Hour), time.Second), Status: models.StatusCompleted, LatenessMs: ms(50)},
	}
	hv := NewTrendsView("", held, nil).Chart
	if !strings.Contains(hv.Bars[1].Label, "late by 100 ms, waited 3.2 s for the target limit") || hv.LateMax != "max 100 ms" ||
		!strings.HasSuffix(hv.Summary, "largest lateness 100 ms. Waits for a target limit, not counted as lateness: up to 3.2 s.") {
		t.Errorf("held run: label %q, lane %q, summary %q", hv.Bars[1].Label, hv.LateMax, hv.Summary)
	}
	if e := NewTrendsView("", nil, nil); !e.Empty || len(e.Chart.Bars) != 0 || e.Rates[0].Value != "—" {
		t.Errorf("empty view %+v", e)
	}
	// 100 runs fit the plot.
	many := make([]models.TrendRun, TrendRuns)
	for i := range many {
		many[i] = models.TrendRun{StartTime: now.Add(-time.Duration(i) * time.Minute), EndTime: end(now, time.Second), Status: models.StatusCompleted}
	}
	mb := NewTrendsView("", many, nil).Chart.Bars
	if len(mb) != TrendRuns || mb[len(mb)-1].X+mb[len(mb)-1].W > trendPlotX2 || mb[0].W < 1 {
		t.Errorf("100 bars: last %+v", mb[len(mb)-1])
	}
}

func TestRunningView(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	rerun := int64(12)
	a := []models.RunningAttempt{{ID: 7, JobName: "a b", Collection: "jc", ResourceGroup: "rg", Action: models.MainAction, Attempt: 2,
		Occurrence: 5, DueAt: now.Add(-3 * time.Minute), StartedAt: now.Add(-2 * time.Minute), Instance: "host-1", RerunOf: &rerun}}
	v := NewRunningView("default", a, 500, now)
	want := RunningRow{ID: "7", Job: "a b", JobURL: "/c/default/rg/jc/jobs/a%20b", Collection: "rg / jc", Action: "MainAction", Attempt: "2",
		Occurrence: "#5", Started: InstantIn(now.Add(-2*time.Minute), time.UTC, now), Elapsed: "2 min", Late: "1 min", Instance: "host-1",
		RerunOf: "re-run of entry 12"}
	if len(v.Rows) != 1 || v.Rows[0] != want || v.Summary != "1 attempt is running." || v.URL != "/w/default/running" {
		t.Errorf("view %+v", v)
	}
	if e := NewRunningView("w", nil, 500, now); e.Summary != "Nothing is running right now." || len(e.Rows) != 0 {
		t.Errorf("empty %+v", e)
	}
	if f := NewRunningView("w", make([]models.RunningAttempt, 3), 3, now); f.More == "" || !strings.HasPrefix(f.Summary, "At least 3") {
		t.Errorf("full %+v", f.Summary)
	}
}

func TestExecutionView(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	row := &models.CollectionRow{WorkspaceID: "default", ResourceGroup: "rg", JobCollection: models.JobCollection{Name: "jc"}}
	j := &models.JobDetail{Job: models.Job{Name: "nightly", Definition: []byte(`{"action":{"type":"http","request":{"uri":"https://x","method":"GET"}}}`)}}
	end := now.Add(-time.Minute)
	by, of := "alice", int64(3)
	d := &models.ExecutionDetail{HasDetails: true, Instance: "i1", Entry: models.HistoryEntry{ID: 9, Status: models.StatusFailed,
		StartTime: now.Add(-2 * time.Minute), EndTime: &end, ExpectedExecutionTime: now.Add(-2 * time.Minute), RerunOf: &of, RerunBy: &by},
		RerunEntries: []int64{10}, Request: &models.ExchangeRequest{Method: "GET", URL: "https://x", BodyTruncated: true, ClientCertificate: true}}
	for _, tc := range []struct {
		can       Can
		status    models.HistoryStatus
		canRerun  bool
		noExchKey string
	}{
		{Can{Run: true}, models.StatusFailed, true, "No answer came"},
		{Can{}, models.StatusFailed, false, "No answer came"},
		{Can{Run: true}, models.StatusCompleted, false, "No answer came"},
		{Can{Run: true}, models.StatusPostponed, false, "did not run"},
	} {
		d.Entry.Status = tc.status
		v := NewExecutionView(row, j, d, tc.can, now)
		if v.CanRerun != tc.canRerun || !strings.Contains(v.NoExchange, tc.noExchKey) {
			t.Errorf("%+v %s: can re-run %v, no exchange %q", tc.can, tc.status, v.CanRerun, v.NoExchange)
		}
		if v.RerunNote != "Re-run of entry 3 by alice" || v.RerunOfURL != "/c/default/rg/jc/jobs/nightly/history/3" ||
			len(v.Reruns) != 1 || v.Reruns[0].URL != "/c/default/rg/jc/jobs/nightly/history/10" || v.Duration != "1 min" {
			t.Errorf("view %+v", v)
		}
		if len(v.Request.Notes) != 3 || !strings.Contains(v.Request.Notes[0], "8 KiB") {
			t.Errorf("notes %q", v.Request.Notes)
		}
	}
}

// TestTrendChartLanesMatchTheLabelColumn: the picture is drawn
// trendHeight pixels high with its lanes where the HTML label column of
// TrendsFragment puts their labels (its heights are written out in
// executions.templ), and every bar stays within its lane.
func TestTrendChartLanesMatchTheLabelColumn(t *testing.T) {
	src, err := os.ReadFile("executions.templ")
	if err != nil {
		t.Fatal(err)
	}
	for _, class := range []string{
		fmt.Sprintf("h-[%dpx]", trendHeight),               // the column and the picture
		fmt.Sprintf("h-[%dpx]", trendLateTopY),             // duration's label, down to lateness's lane
		fmt.Sprintf("h-[%dpx]", trendHeight-trendLateTopY), // lateness's label
	} {
		if !strings.Contains(string(src), class) {
			t.Errorf("executions.templ has no %s", class)
		}
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	late := int64(90_000)
	ended := now.Add(time.Minute)
	ch := NewTrendsView("", []models.TrendRun{{StartTime: now, EndTime: &ended, Status: models.StatusFailed, LatenessMs: &late}}, nil).Chart
	if ch.Width != trendWidth || ch.Height != trendHeight || ch.DurBaseY >= trendLateTopY || ch.LateBaseY > ch.Height {
		t.Errorf("chart %dx%d, duration base %d, lateness base %d", ch.Width, ch.Height, ch.DurBaseY, ch.LateBaseY)
	}
	b := ch.Bars[0]
	if b.DurY != trendDurTopY || b.DurY+b.DurH != ch.DurBaseY || b.LateY != trendLateTopY || b.LateY+b.LateH != ch.LateBaseY {
		t.Errorf("bar %+v", b)
	}
	if ch.DurLabel != "Duration" || ch.DurMax != "max 1 min" || ch.LateLabel != "Lateness" || ch.LateMax != "max 1 min 30 s" {
		t.Errorf("labels %q %q %q %q", ch.DurLabel, ch.DurMax, ch.LateLabel, ch.LateMax)
	}
}
