package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/models"
	"sked/models/jobdef"
)

// Tests of the execution detail page, the re-run (page and API), the
// running-now page and the job's trends (executions.go).

// claimRun queues a run of job id and claims it as instance inst at now,
// as an engine would: the attempt is running. It returns the attempt id.
func claimRun(f *pgFixture, jobID int64, inst string, now time.Time) int64 {
	f.t.Helper()
	ctx := context.Background()
	id, err := f.store.RunNow(ctx, jobID, now)
	if err != nil {
		f.t.Fatal(err)
	}
	got, err := f.store.ClaimDue(ctx, models.ClaimRequest{Now: now, Owner: inst, Limit: 10,
		Plan: func(*models.EngineJob) *models.JobPlan { return nil },
		Lease: func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration {
			return time.Hour
		}})
	if err != nil {
		f.t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != id {
		f.t.Fatalf("claimed %+v, want attempt %d", got, id)
	}
	return id
}

// failedRun records a failed attempt of job id with a stored exchange and
// returns its history entry.
func failedRun(f *pgFixture, jobID int64) models.HistoryEntry {
	f.t.Helper()
	now := f.clock.Now().Add(-10 * time.Minute)
	id := claimRun(f, jobID, "instance-7", now)
	x := &models.Exchange{SentAt: now.Add(5 * time.Millisecond), IdempotencyKey: fmt.Sprintf("%d:2026-11-21T11:50:00Z", jobID),
		Request: models.ExchangeRequest{Method: "POST", URL: "https://example.com/hook?sig=%5Bmasked%5D",
			Headers: []models.HeaderField{{Name: "Authorization", Value: "Basic [masked]"}, {Name: "X-Plain", Value: "plain"}},
			Body:    "x"},
		Response: &models.ExchangeResponse{Status: 500, StatusText: "500 Internal Server Error",
			Headers: []models.HeaderField{{Name: "Content-Type", Value: "text/plain"}}, Body: "boom", BodyTruncated: true}}
	done, err := f.store.FinishAttempts(context.Background(), []models.AttemptOutcome{{AttemptID: id, Owner: "instance-7",
		Now: now.Add(time.Second), Message: "HTTP 500 Internal Server Error\nboom", Exchange: x}})
	if err != nil || !done[0].Recorded {
		f.t.Fatalf("finish: %v %+v", err, done)
	}
	h, err := f.store.History(context.Background(), models.HistoryQuery{JobID: jobID, Limit: 1})
	if err != nil {
		f.t.Fatal(err)
	}
	return h[0]
}

func TestExecutionPageShowsWhatWasSentAndReceived(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	e := failedRun(f, j.ID)
	detail := fmt.Sprintf("%s/jobs/alpha/history/%d", f.base, e.ID)

	r := f.get(detail)
	wantStatus(t, r, http.StatusOK)
	if got := r.doc.Find("h1").Text(); got != fmt.Sprintf("Execution %d of alpha", e.ID) {
		t.Errorf("title %q", got)
	}
	req := r.doc.Find("#execution-request")
	if !strings.Contains(req.Text(), "POST") || !strings.Contains(req.Text(), "https://example.com/hook?sig=%5Bmasked%5D") {
		t.Errorf("request section: %s", req.Text())
	}
	if got := pgTexts(req.Find("tbody tr th, tbody tr td")); strings.Join(got, "|") != "Authorization|Basic [masked]|X-Plain|plain" {
		t.Errorf("request headers %q", got)
	}
	resp := r.doc.Find("#execution-response")
	if !strings.Contains(resp.Text(), "500 Internal Server Error") || resp.Find("pre").Text() != "boom" ||
		!strings.Contains(resp.Text(), "Only the first 2,048 bytes of the body are kept.") {
		t.Errorf("response section: %s", resp.Text())
	}
	for id, want := range map[string]string{"#execution-instance": "instance-7", "#execution-key": fmt.Sprintf("%d:2026-11-21T11:50:00Z", j.ID),
		"#execution-retry": "0", "#execution-repeat": "#1", "#execution-action": "MainAction", "#execution-duration": "1.0 s"} {
		if got := strings.TrimSpace(r.doc.Find(id).Text()); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if got := pgTexts(r.doc.Find("#execution-facts dt")); len(got) < 5 || got[0] != "Expected (the occurrence's time)" ||
		got[1] != "Due (this attempt)" || got[2] != "Claimed by the instance" || got[3] != "Request sent" || got[4] != "Ended" {
		t.Errorf("times %q", got)
	}
	if r.doc.Find("#execution-rerun button").Length() != 1 {
		t.Error("an owner sees no re-run button on a failed entry")
	}

	// The history row links to it and offers the re-run.
	r = f.get(f.base + "/jobs/alpha")
	row := r.doc.Find(fmt.Sprintf("#history-%d", e.ID))
	if row.Find(`[data-testid="history-details"]`).AttrOr("href", "") != detail ||
		row.Find(`form[action="`+detail+`/rerun"] [data-testid="history-rerun"]`).Length() != 1 {
		t.Errorf("history row: %s", row.Text())
	}

	// A postponed entry has nothing to show and nothing to re-run.
	p := f.addHistory(j.ID, f.clock.Now().Add(-time.Hour), models.StatusPostponed, models.MainAction, 0, "3 occurrences skipped")
	r = f.get(fmt.Sprintf("%s/jobs/alpha/history/%d", f.base, p.ID))
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#execution-no-exchange").Text(), "did not run") || r.doc.Find("#execution-rerun").Length() != 0 ||
		r.doc.Find("#execution-request").Length() != 0 {
		t.Errorf("postponed entry page: %s", r.doc.Find("main").Text())
	}

	// Unknown, malformed, another job's, another workspace's.
	pgWantErrorPage(t, f.get(f.base+"/jobs/alpha/history/999999"), http.StatusNotFound)
	pgWantErrorPage(t, f.get(f.base+"/jobs/alpha/history/abc"), http.StatusBadRequest)
	f.putJob(f.coll, "beta", pgJobJSON)
	pgWantErrorPage(t, f.get(fmt.Sprintf("%s/jobs/beta/history/%d", f.base, e.ID)), http.StatusNotFound)
	f.otherWorkspace()
	pgWantErrorPage(t, f.get(fmt.Sprintf("/c/other/rg/theirs/jobs/x/history/%d", e.ID)), http.StatusNotFound)
}

func TestRerunFromThePageAndTheAPI(t *testing.T) {
	f := newPGFixture(t)
	ctx := context.Background()
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	failed := f.addHistory(j.ID, f.clock.Now().Add(-time.Hour), models.StatusFailed, models.MainAction, 0, "HTTP 503")
	done := f.addHistory(j.ID, f.clock.Now().Add(-2*time.Hour), models.StatusCompleted, models.MainAction, 0, "HTTP 200")
	detail := fmt.Sprintf("%s/jobs/alpha/history/%d", f.base, failed.ID)

	r := f.formPost(detail+"/rerun", url.Values{"back": {"job"}})
	wantRedirect(t, r, f.base+"/jobs/alpha")
	r = f.get(f.base + "/jobs/alpha")
	if !strings.Contains(r.doc.Find("main").Text(), fmt.Sprintf("Re-run of entry %d queued", failed.ID)) {
		t.Errorf("no confirmation on the job page")
	}
	att, err := f.store.Attempts(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(att) != 1 || att[0].Status != models.AttemptPending || att[0].Action != models.MainAction ||
		!att[0].ExpectedTime.Equal(failed.ExpectedExecutionTime) {
		t.Fatalf("attempts %+v", att)
	}

	// While it waits, a second re-run is refused with the reason.
	r = f.formPost(detail+"/rerun", nil)
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.doc.Find("#execution-error").Text(), "still running or waiting for a retry") {
		t.Errorf("refusal: %q", r.doc.Find("#execution-error").Text())
	}
	// A succeeded entry is refused; an unknown one is not found.
	r = f.formPost(fmt.Sprintf("%s/jobs/alpha/history/%d/rerun", f.base, done.ID), nil)
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.doc.Find("#execution-error").Text(), "only a failed occurrence can be re-run") {
		t.Errorf("refusal: %q", r.doc.Find("#execution-error").Text())
	}
	pgWantErrorPage(t, f.formPost(f.base+"/jobs/alpha/history/999999/rerun", nil), http.StatusNotFound)
	if att, _ := f.store.Attempts(ctx, j.ID); len(att) != 1 {
		t.Errorf("refused re-runs wrote attempts: %+v", att)
	}

	// The API: 202 with the execution tag, 409 with the reason.
	admin, err := f.store.UserByName(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	f.token = tokenOf(t, f.app, admin.ID)
	other := f.addHistory(j.ID, f.clock.Now().Add(-3*time.Hour), models.StatusFailed, models.MainAction, 0, "HTTP 500")
	api := rgPath("rg") + "/jc/jobs/alpha/history/"
	r = f.api(http.MethodPost, fmt.Sprintf("%s%d/rerun%s", api, other.ID, apiVersion), "")
	wantStatus(t, r, http.StatusAccepted)
	var got struct {
		RerunOf      int64  `json:"rerunOf"`
		ExecutionTag string `json:"executionTag"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || got.RerunOf != other.ID || got.ExecutionTag == "" {
		t.Errorf("answer %s", r.body)
	}
	r = f.api(http.MethodPost, fmt.Sprintf("%s%d/rerun%s", api, done.ID, apiVersion), "")
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.body, "only a failed occurrence can be re-run") {
		t.Errorf("409 body %s", r.body)
	}
	wantStatus(t, f.api(http.MethodPost, api+"abc/rerun"+apiVersion, ""), http.StatusBadRequest)

	// The history lists a re-run's entries with what they re-ran.
	rerunBy := "admin"
	if err := f.store.AddHistory(ctx, &models.HistoryEntry{JobID: j.ID, StartTime: f.clock.Now(), ExpectedExecutionTime: other.ExpectedExecutionTime,
		ActionName: models.MainAction, Status: models.StatusCompleted, RerunOf: &other.ID, RerunBy: &rerunBy}); err != nil {
		t.Fatal(err)
	}
	r = f.api(http.MethodGet, rgPath("rg")+"/jc/jobs/alpha/history"+apiVersion, "")
	wantStatus(t, r, http.StatusOK)
	var list struct {
		Value []struct {
			Properties map[string]any `json:"properties"`
		} `json:"value"`
	}
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || len(list.Value) < 2 {
		t.Fatalf("history %s", r.body)
	}
	newest, older := list.Value[0].Properties, list.Value[1].Properties
	if of, _ := newest["rerunOf"].(string); !strings.HasSuffix(of, fmt.Sprintf("/jobs/alpha/history/%d", other.ID)) || newest["rerunBy"] != "admin" {
		t.Errorf("re-run entry %v", newest)
	}
	if _, has := older["rerunOf"]; has {
		t.Errorf("an entry that is no re-run has rerunOf: %v", older)
	}
}

func TestRerunNeedsTheOperatorRole(t *testing.T) {
	f := newPGFixture(t)
	ctx := context.Background()
	j := f.putJob(f.coll, "alpha", pgJobJSON)
	failed := f.addHistory(j.ID, f.clock.Now().Add(-time.Hour), models.StatusFailed, models.MainAction, 0, "HTTP 503")
	u, err := f.store.CreateUser(ctx, models.NewUser{Username: "rita", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetMemberRole(ctx, "default", u.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}
	f.client = newClient()
	f.signIn("rita", "correct horse battery")
	detail := fmt.Sprintf("%s/jobs/alpha/history/%d", f.base, failed.ID)
	r := f.get(detail)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#execution-rerun").Length() != 0 {
		t.Error("a reader sees the re-run form")
	}
	if r = f.get(f.base + "/jobs/alpha"); r.doc.Find(`[data-testid="history-rerun"]`).Length() != 0 ||
		r.doc.Find(`[data-testid="history-details"]`).Length() != 1 {
		t.Error("a reader's history row: re-run shown or details missing")
	}
	r = f.formPost(detail+"/rerun", nil)
	wantStatus(t, r, http.StatusForbidden)
	if !strings.Contains(r.doc.Find("#error").Text(), "needs the operator role") {
		t.Errorf("403: %s", r.doc.Find("#error").Text())
	}
	if att, _ := f.store.Attempts(ctx, j.ID); len(att) != 0 {
		t.Errorf("a refused re-run wrote %+v", att)
	}
}

func TestRunningNowPage(t *testing.T) {
	f := newPGFixture(t)
	r := f.get("/w/default/running")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#running-empty").Length() != 1 || r.doc.Find(`#running-now[hx-trigger="every 3s"]`).Length() != 1 ||
		r.doc.Find(`#nav-running[aria-current="page"]`).Length() != 1 {
		t.Errorf("empty page: %s", r.body)
	}
	j := f.putJob(f.coll, "slow", pgJobJSON)
	claimRun(f, j.ID, "instance-9", f.clock.Now().Add(-90*time.Second))
	other := f.otherWorkspace()
	x, err := f.store.JobDetail(context.Background(), other.ID, "x")
	if err != nil {
		t.Fatal(err)
	}
	claimRun(f, x.ID, "instance-9", f.clock.Now().Add(-time.Second))

	r = f.hxGet("/w/default/running")
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "running-now")
	rows := r.doc.Find("tbody tr")
	if rows.Length() != 1 {
		t.Fatalf("%d rows, want the one of this workspace", rows.Length())
	}
	cells := rows.First().Find("td")
	if cells.Eq(0).Find("a").Text() != "slow" || cells.Eq(0).Find("a").AttrOr("href", "") != f.base+"/jobs/slow" ||
		!strings.HasPrefix(strings.TrimSpace(cells.Eq(1).Text()), "MainAction") ||
		strings.TrimSpace(cells.Eq(3).Text()) != "1 min 30 s" || strings.TrimSpace(cells.Eq(5).Text()) != "instance-9" {
		t.Errorf("row %q", pgTexts(cells))
	}
	if got := strings.Join(strings.Fields(r.doc.Find("#running-summary").Text()), " "); !strings.HasPrefix(got, "1 attempt is running.") {
		t.Errorf("summary %q", got)
	}
	pgWantErrorPage(t, f.get("/w/other/running"), http.StatusNotFound)
	if r := f.get("/"); r.doc.Find(`#dashboard-running[href="/w/default/running"]`).Length() != 1 {
		t.Error("the dashboard does not link to the running-now page")
	}
}

func TestJobTrends(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "fresh", pgJobJSON)
	r := f.get(f.base + "/jobs/fresh")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#trends-empty").Length() != 1 || r.doc.Find("#trends-chart").Length() != 0 {
		t.Error("a job without runs draws a chart")
	}
	if got := pgTexts(r.doc.Find("#job-trends dd > *")); strings.Join(got, "|") != "—|no run|—|no run" {
		t.Errorf("rates %q", got)
	}

	j := f.putJob(f.coll, "busy", pgJobJSON)
	for i := range 12 {
		status := models.StatusCompleted
		if i%4 == 0 {
			status = models.StatusFailed
		}
		f.addHistory(j.ID, f.clock.Now().Add(-time.Duration(i)*24*time.Hour), status, models.MainAction, int64(i*100), "m")
	}
	f.addHistory(j.ID, f.clock.Now().Add(-time.Hour), models.StatusPostponed, models.MainAction, 0, "skipped")
	r = f.get(f.base + "/jobs/busy")
	if got := r.doc.Find(`#trends-chart g.trend-bar`).Length(); got != 12 {
		t.Errorf("%d bars, want 12 (postponed entries never ran)", got)
	}
	if got := pgTexts(r.doc.Find("#job-trends dd > *")); strings.Join(got, "|") != "75 %|6 of 8 attempts succeeded|75 %|9 of 12 attempts succeeded" {
		t.Errorf("rates %q", got)
	}
	if !strings.Contains(r.doc.Find("#trends-summary").Text(), "12 runs: 3 failed") {
		t.Errorf("summary %q", r.doc.Find("#trends-summary").Text())
	}
	if r = f.get(f.base + "/jobs/busy/history"); r.doc.Find("#job-trends").Length() != 0 {
		t.Error("the history page shows the trends")
	}
}

// historyBlocks are the blocks of a job page that show its history, each
// read from the whole page or from its own fragment.
type historyBlocks map[string]*goquery.Selection

// wantAgree fails unless every block of b counts runs attempts, succeeded
// of them Completed (all in the last 24 hours, none Postponed): the
// timeline's summary, the rows of the history table, both success rates of
// the trends, the chart's caption and its bars.
func (b historyBlocks) wantAgree(t *testing.T, runs, succeeded int) {
	t.Helper()
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	text := func(block, sel string) string {
		return strings.Join(strings.Fields(b[block].Find(sel).First().Text()), " ")
	}
	if got, want := text("job-timeline", "#timeline-summary"), plural(runs, "execution", "executions")+" in the last 24 hours:"; !strings.HasPrefix(got, want) {
		t.Errorf("timeline summary %q, want %q…", got, want)
	}
	if got := b["history-table"].Find("tbody tr").Length(); got != runs {
		t.Errorf("history table: %d rows, want %d", got, runs)
	}
	rate := fmt.Sprintf("%d of %s succeeded", succeeded, plural(runs, "attempt", "attempts"))
	for _, i := range []int{0, 1} {
		if got := strings.Join(strings.Fields(b["job-trends"].Find("dd > span:last-child").Eq(i).Text()), " "); got != rate {
			t.Errorf("trends: success rate %d says %q, want %q", i, got, rate)
		}
	}
	if got, want := text("job-trends", "#trends-caption"), "Duration and lateness of the last "+plural(runs, "run", "runs"); got != want {
		t.Errorf("trends caption %q, want %q", got, want)
	}
	if got := b["job-trends"].Find("g.trend-bar").Length(); got != runs {
		t.Errorf("trends chart: %d bars, want %d", got, runs)
	}
}

// TestJobTrendsFollowTheHistory reads a job page, ends an attempt after
// that read (as after "Run now"), and refreshes what the page refreshes
// then: each block listening for sked-history-changed, through its own
// fragment. The trends are among them and count the new attempt as the
// timeline and the history table do.
func TestJobTrendsFollowTheHistory(t *testing.T) {
	f := newPGFixture(t)
	j := f.putJob(f.coll, "report", pgJobJSON)
	f.addHistory(j.ID, f.clock.Now().Add(-2*time.Hour), "Completed", "MainAction", 0, "ok")
	r := f.get(f.base + "/jobs/report")
	wantStatus(t, r, http.StatusOK)
	page := historyBlocks{}
	for _, id := range []string{"job-timeline", "history-table", "job-trends"} {
		page[id] = r.doc.Find("#" + id)
	}
	page.wantAgree(t, 1, 1)

	f.addHistory(j.ID, f.clock.Now().Add(-time.Minute), "Failed", "MainAction", 0, "the target says no")
	fresh := historyBlocks{}
	r.doc.Find(`[hx-trigger^="sked-history-changed from:body"]`).Each(func(_ int, el *goquery.Selection) {
		id, url := el.AttrOr("id", ""), el.AttrOr("hx-get", "")
		fr := f.hxGet(url)
		wantStatus(t, fr, http.StatusOK)
		pgWantFragment(t, fr, id)
		fresh[id] = fr.doc.Find("#" + id)
	})
	for _, id := range []string{"job-status", "job-timeline", "history-table", "job-trends"} {
		if fresh[id] == nil {
			t.Fatalf("#%s does not refresh when the history changes (refreshed: %v)", id, fresh)
		}
	}
	fresh.wantAgree(t, 2, 1)

	// A page read after the attempt ended counts it in every block too.
	r = f.get(f.base + "/jobs/report")
	again := historyBlocks{}
	for _, id := range []string{"job-timeline", "history-table", "job-trends"} {
		again[id] = r.doc.Find("#" + id)
	}
	again.wantAgree(t, 2, 1)

	// Without htmx, the trends' address leads to the job page.
	if fr := f.get(f.base + "/jobs/report/trends"); fr.StatusCode != http.StatusSeeOther || fr.Header.Get("Location") != f.base+"/jobs/report" {
		t.Errorf("GET trends without htmx: %d to %q", fr.StatusCode, fr.Header.Get("Location"))
	}
}
