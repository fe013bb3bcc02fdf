package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
)

// Tests of the backfill API and the job page's backfill block (SPEC
// §16.3). The runs themselves are the engine's (scheduler/engine
// backfill_test.go) and the browser test's (e2e_backfill_test.go).

const backfillPath = "/api/v1/workspaces/default/collections/rg/jc/jobs/hook"

// backfillAnswerOf is the part of a backfill answer the tests read.
type backfillAnswerOf struct {
	DryRun      bool `json:"dryRun"`
	Run         int  `json:"run"`
	Skipped     int  `json:"skipped"`
	Occurrences []struct {
		ExpectedTime string `json:"expectedTime"`
		Action       string `json:"action"`
		Reason       string `json:"reason"`
	} `json:"occurrences"`
	Backfill *struct {
		ID     int64  `json:"id"`
		State  string `json:"state"`
		Total  int    `json:"total"`
		Queued int    `json:"queued"`
		Cancel int    `json:"cancelled"`
	} `json:"backfill"`
}

// TestBackfillAPI: a dry run lists the occurrences and writes nothing; a
// backfill is created (201), listed, read and cancelled (audited); bad
// fields are 400s naming them; a reader may read and not backfill.
func TestBackfillAPI(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	f.putJob(f.coll, "hook", pgJobJSON) // hourly at :30 in Berlin since 1 November
	body := `{"from":"2026-11-20T00:00:00Z","to":"2026-11-20T06:00:00Z","dryRun":true}`
	before := f.fingerprint()
	r := f.api(http.MethodPost, backfillPath+"/backfill", body)
	wantStatus(t, r, http.StatusOK)
	dry := decode[backfillAnswerOf](t, r)
	if !dry.DryRun || dry.Run != 6 || len(dry.Occurrences) != 6 || dry.Occurrences[0].ExpectedTime != "2026-11-20T00:30:00Z" ||
		dry.Occurrences[0].Action != "run" || dry.Backfill != nil {
		t.Errorf("dry run: %s", r.body)
	}
	if f.fingerprint() != before {
		t.Error("a dry run changed something")
	}

	for _, tc := range []struct{ body, target string }{
		{`{"from":"2026-11-20","to":"2026-11-20T06:00:00Z"}`, "from"},
		{`{"from":"2026-11-20T00:00:00Z","to":"2026-11-19T06:00:00Z"}`, "to"},
		{`{"from":"2026-11-20T00:00:00Z","to":"2026-12-20T06:00:00Z"}`, "to"},
		{`{"from":"2026-11-20T00:00:00Z","to":"2026-11-20T06:00:00Z","maxConcurrent":50}`, "maxConcurrent"},
		{`{"from":"2026-11-20T00:00:00Z","to":"2026-11-20T06:00:00Z","only":"x"}`, "only"},
	} {
		r := f.api(http.MethodPost, backfillPath+"/backfill", tc.body)
		wantStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(r.body, `"target":"`+tc.target+`"`) {
			t.Errorf("%s: the 400 does not name %s: %s", tc.body, tc.target, r.body)
		}
	}
	if f.fingerprint() != before {
		t.Error("a refused backfill changed something")
	}

	r = f.api(http.MethodPost, backfillPath+"/backfill", `{"from":"2026-11-20T00:00:00Z","to":"2026-11-20T06:00:00Z","maxConcurrent":2,"order":"newestFirst"}`)
	wantStatus(t, r, http.StatusCreated)
	made := decode[backfillAnswerOf](t, r)
	if made.Backfill == nil || made.Backfill.Total != 6 || made.Backfill.Queued != 4 || made.Backfill.State != string(models.BackfillRunning) {
		t.Fatalf("created: %s", r.body)
	}
	// The newest two are in flight.
	var n int
	if err := openDB(t, f.app).QueryRow(`SELECT count(*) FROM job_attempts WHERE backfill_id = $1 AND expected_time >= '2026-11-20T04:30:00Z'`,
		made.Backfill.ID).Scan(&n); err != nil || n != 2 {
		t.Errorf("newest first: %d of the newest two queued as attempts (%v)", n, err)
	}
	again := decode[backfillAnswerOf](t, f.api(http.MethodPost, backfillPath+"/backfill", body))
	if again.Run != 0 || !strings.Contains(again.Occurrences[0].Reason, fmt.Sprintf("backfill %d", made.Backfill.ID)) {
		t.Errorf("a second dry run over the range: %+v", again)
	}
	id := fmt.Sprint(made.Backfill.ID)
	r = f.api(http.MethodGet, backfillPath+"/backfills", "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"id":`+id) {
		t.Errorf("list: %s", r.body)
	}
	wantStatus(t, f.api(http.MethodGet, backfillPath+"/backfills/"+id, ""), http.StatusOK)
	wantStatus(t, f.api(http.MethodGet, backfillPath+"/backfills/999", ""), http.StatusNotFound)

	// A reader reads and may not backfill or cancel.
	f.asMember("rita", models.RoleReader)
	u, err := f.store.UserByName(t.Context(), "rita")
	if err != nil {
		t.Fatal(err)
	}
	admin := f.app.token
	f.app.token = tokenOf(t, f.app, u.ID)
	wantStatus(t, f.api(http.MethodGet, backfillPath+"/backfills/"+id, ""), http.StatusOK)
	wantStatus(t, f.api(http.MethodPost, backfillPath+"/backfill", body), http.StatusForbidden)
	wantStatus(t, f.api(http.MethodPost, backfillPath+"/backfills/"+id+"/cancel", ""), http.StatusForbidden)
	f.app.token = admin

	r = f.api(http.MethodPost, backfillPath+"/backfills/"+id+"/cancel", "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"state":"cancelled"`) || !strings.Contains(r.body, `"cancelled":6`) {
		t.Errorf("cancelled: %s", r.body)
	}
	if err := openDB(t, f.app).QueryRow(`SELECT count(*) FROM job_attempts WHERE backfill_id = $1`, made.Backfill.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d attempts left after the cancel (%v)", n, err)
	}
	var audits int
	if err := openDB(t, f.app).QueryRow(`SELECT count(*) FROM audit_entries WHERE action IN ('job.backfill', 'job.backfill.cancel')`).
		Scan(&audits); err != nil || audits != 2 {
		t.Errorf("%d audit entries of the backfill and its cancel (%v), want 2", audits, err)
	}
}

// TestBackfillPage: operators see the form; Preview answers the dry run's
// table in place, Start the message and the list refreshes; bad fields
// come back in place (422); readers see the list only.
func TestBackfillPage(t *testing.T) {
	f := newPGFixture(t)
	f.putJob(f.coll, "hook", pgJobJSON)
	page := f.base + "/jobs/hook"
	r := f.get(page)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#backfill-form").Length() != 1 || r.doc.Find("#job-backfills-none").Length() != 1 ||
		r.doc.Find("#job-run-changes").Length() != 1 {
		t.Fatalf("the owner's job page lacks the backfill form, the empty list or run with changes")
	}
	tok := r.doc.Find(`#backfill-form input[name="csrf_token"]`).AttrOr("value", "")
	form := url.Values{"csrf_token": {tok}, "from": {"2026-11-20T00:00"}, "to": {"2026-11-20T03:00"}, "only": {"missing"},
		"order": {"oldestFirst"}, "maxConcurrent": {"1"}, "dryRun": {"true"}}
	r = f.hxPost(page+"/backfill", form)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "backfill-form")
	if n := r.doc.Find(`[data-testid="backfill-row"]`).Length(); n != 3 {
		t.Errorf("preview: %d rows, want 3: %s", n, r.body)
	}
	form.Set("to", "2026-11-19T00:00")
	r = f.hxPost(page+"/backfill", form)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#backfill-err-to").Text(); !strings.Contains(msg, "after from") {
		t.Errorf("the error of to: %q", msg)
	}
	form.Set("to", "2026-11-20T03:00")
	form.Set("dryRun", "false")
	r = f.hxPost(page+"/backfill", form)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#backfill-message").Text(), "3 to run") || r.Header.Get("HX-Trigger") != "sked-backfills-changed" {
		t.Errorf("start: %s %v", r.body, r.Header)
	}
	r = f.hxGet(page + "/backfills")
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find(`[data-testid="backfill-item"]`).Length() != 1 || r.doc.Find(`[data-testid="backfill-cancel"]`).Length() != 1 ||
		!strings.Contains(r.doc.Find("#job-backfills").AttrOr("hx-trigger", ""), "every 2s") {
		t.Errorf("list: %s", r.body)
	}

	f.asMember("rita", models.RoleReader)
	r = f.get(page)
	if r.doc.Find("#backfill-form").Length() != 0 || r.doc.Find(`[data-testid="backfill-item"]`).Length() != 1 ||
		r.doc.Find(`[data-testid="backfill-cancel"]`).Length() != 0 || r.doc.Find("#job-run-changes").Length() != 0 {
		t.Errorf("a reader's job page: form, list, cancel or run with changes wrong")
	}
}
