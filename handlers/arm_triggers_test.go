package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestARMJobTriggerRoundTrips checks that properties.trigger is stored
// and answered as given (canonical), that a triggered job has no next
// execution time, that a job the workspace lacks, a cycle and a trigger
// with a recurrence are 400s naming the field, that deleting an upstream
// is a 409 with nothing changed, and that the history names what
// triggered a run and what a run triggered.
func TestARMJobTriggerRoundTrips(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("ops") + "/nightly"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"standard"}}}`), http.StatusCreated)
	action := `"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}`
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/extract"+apiVersion, `{"properties":{`+action+`,"recurrence":{"frequency":"day"}}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/load"+apiVersion, `{"properties":{`+action+`,"recurrence":{"frequency":"day"}}}`), http.StatusCreated)
	r := a.api(http.MethodPut, coll+"/jobs/report"+apiVersion,
		`{"properties":{`+action+`,"trigger":{"after":["ops/nightly/extract","OPS/Nightly/load"],"On":"Finished","within":"PT2H"}}}`)
	wantStatus(t, r, http.StatusCreated)
	var got struct {
		Properties struct {
			Trigger json.RawMessage `json:"trigger"`
			Status  *struct {
				NextExecutionTime *string `json:"nextExecutionTime"`
			} `json:"status"`
		} `json:"properties"`
	}
	for _, r := range []*response{r, a.api(http.MethodGet, coll+"/jobs/report"+apiVersion, "")} {
		got = decode[struct {
			Properties struct {
				Trigger json.RawMessage `json:"trigger"`
				Status  *struct {
					NextExecutionTime *string `json:"nextExecutionTime"`
				} `json:"status"`
			} `json:"properties"`
		}](t, r)
		if want := `{"after":["ops/nightly/extract","OPS/Nightly/load"],"on":"finished","within":"PT2H"}`; string(got.Properties.Trigger) != want {
			t.Fatalf("trigger %s, want %s", got.Properties.Trigger, want)
		}
		if got.Properties.Status != nil && got.Properties.Status.NextExecutionTime != nil {
			t.Fatalf("a triggered job has a next execution time %s", *got.Properties.Status.NextExecutionTime)
		}
	}

	before := a.fingerprint()
	for _, tc := range []struct{ name, job, body, target, want string }{
		{"unknown job", "report", `"trigger":{"after":["ops/nightly/extract","ops/nightly/nope"]}`, "trigger.after[1]", "there is no job ops/nightly/nope"},
		{"cycle", "extract", `"trigger":{"after":["ops/nightly/report"]}`, "trigger.after[0]", "naming it would make a cycle"},
		{"itself", "load", `"trigger":{"after":["ops/nightly/load"]}`, "trigger.after[0]", "a job cannot run after itself"},
		{"with recurrence", "new", `"trigger":{"after":["ops/nightly/load"]},"recurrence":{"frequency":"hour"}`, "trigger", "cannot be used with recurrence"},
	} {
		r := a.api(http.MethodPut, coll+"/jobs/"+tc.job+apiVersion, `{"properties":{`+action+`,`+tc.body+`}}`)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target, Message string } `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range e.Error.Details {
			found = found || (d.Target == tc.target && strings.Contains(d.Message, tc.want))
		}
		if !found {
			t.Errorf("%s: answer %s, want a detail for %s saying %q", tc.name, r.body, tc.target, tc.want)
		}
	}
	r = a.api(http.MethodDelete, coll+"/jobs/extract"+apiVersion, "")
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.body, "ops/nightly/report runs after it") {
		t.Errorf("409 body %s", r.body)
	}
	wantStatus(t, a.api(http.MethodDelete, coll+apiVersion, ""), http.StatusOK) // the whole collection: allowed
	if a.fingerprint() == before {
		t.Fatal("the collection was not deleted")
	}
}

// TestARMHistoryNamesTriggers checks the history's triggeredBy (on the
// downstream's entries) and triggered (on the upstream's).
func TestARMHistoryNamesTriggers(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("ops") + "/nightly"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"standard"}}}`), http.StatusCreated)
	action := `"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}`
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/extract"+apiVersion, `{"properties":{`+action+`,"recurrence":{"frequency":"day"}}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/report"+apiVersion, `{"properties":{`+action+`,"trigger":{"after":["ops/nightly/extract"]}}}`), http.StatusCreated)
	up, down := a.jobID(coll, "extract"), a.jobID(coll, "report")
	// The engine's rows of one upstream run and the run it triggered.
	a.sqlExec(`INSERT INTO job_history (id, job_id, start_time, end_time, expected_execution_time, action_name, status, message, retry_count, repeat_count)
		OVERRIDING SYSTEM VALUE VALUES (9001, $1, '2026-05-01T10:00:00Z', '2026-05-01T10:00:01Z', '2026-05-01T10:00:00Z', 'MainAction', 'Completed', 'Http 200', 0, 1),
		(9002, $2, '2026-05-01T10:00:01.01Z', '2026-05-01T10:00:02Z', '2026-05-01T10:00:01.005Z', 'MainAction', 'Completed', 'Http 200', 0, 1)`, up, down)
	a.sqlExec(`INSERT INTO job_trigger_causes (downstream_id, expected_time, upstream_id, upstream_history_id, upstream_ended_at)
		VALUES ($1, '2026-05-01T10:00:01.005Z', $2, 9001, '2026-05-01T10:00:01Z')`, down, up)
	r := a.api(http.MethodGet, coll+"/jobs/report/history"+apiVersion, "")
	wantStatus(t, r, http.StatusOK)
	wantID := "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly/jobs/extract/history/9001"
	if !strings.Contains(r.body, fmt.Sprintf(`"triggeredBy":[{"id":%q,"job":"ops/nightly/extract","endTime":"2026-05-01T10:00:01Z"}]`, wantID)) {
		t.Errorf("downstream history %s", r.body)
	}
	r = a.api(http.MethodGet, coll+"/jobs/extract/history"+apiVersion, "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"triggered":[{"jobId":"/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly/jobs/report","job":"ops/nightly/report","expectedExecutionTime":"2026-05-01T10:00:01.005Z"}]`) {
		t.Errorf("upstream history %s", r.body)
	}
}
