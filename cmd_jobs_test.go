package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sked/client"
)

// TestJobsCommandsAgainstAServer lists, shows, runs a job and reads its
// history with sked jobs and sked collections over the REST API; without
// a server or a token they say how to give them.
func TestJobsCommandsAgainstAServer(t *testing.T) {
	calls := make(chan string, 10)
	changed := make(chan string, 10)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason := r.Header.Get("X-Reason"); reason != "" {
			body, _ := io.ReadAll(r.Body)
			changed <- r.URL.Path + " " + reason + " " + string(body)
		} else {
			calls <- r.URL.Path
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer target.Close()
	env := remoteSked(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	file := writeFile(t, "jobs.json", strings.ReplaceAll(applyJobs, "TARGET", target.URL))
	file = strings.TrimSuffix(file, "jobs.json")
	if err := os.WriteFile(filepath.Join(file, "workspace.json"), []byte(strings.ReplaceAll(applyWorkspace, "TARGET", target.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("apply", "-f", file); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}

	// The client follows nextLink (pages of one here) and carries the
	// server's problems.
	c, err := client.New(env["SKED_SERVER"]+"/", env["SKED_TOKEN"])
	if err != nil {
		t.Fatal(err)
	}
	c.PageSize = 1
	ref := client.CollectionRef{Subscription: "default", ResourceGroup: "ops", Name: "nightly"}
	jobs, err := c.Jobs(context.Background(), ref, "")
	if err != nil || len(jobs) != 2 || jobs[0].Name != "nightly/backup" || jobs[1].Name != "nightly/report" {
		t.Fatalf("Jobs by pages of 1: %v %+v", err, jobs)
	}
	_, err = c.PutJob(context.Background(), ref, "bad", []byte(`{"action": {"type": "http"}}`))
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || ce.Code != "BadRequest" || len(ce.Details) == 0 ||
		ce.Details[0].Target != "action.request" {
		t.Fatalf("PutJob of a bad job: %#v", err)
	}

	code, out, errOut := run("collections", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^WORKSPACE +RESOURCE GROUP +COLLECTION +SKU +STATE +MAX JOBS +LOCATION$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^default +ops +nightly +Standard +Enabled +50 +westeurope$`).MatchString(out) {
		t.Fatalf("collections list: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run("jobs", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^default/ops/nightly +backup +enabled +every day +2030-01-01T01:00:00Z +- +0 +0$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^default/ops/nightly +report +enabled +every week `).MatchString(out) {
		t.Fatalf("jobs list: exit %d\n%s", code, out)
	}
	code, out, _ = run("jobs", "list", "--subscription", "default", "--resource-group", "ops", "--collection", "nightly", "--state", "Disabled", "--output", "json")
	if code != 0 || strings.TrimSpace(out) != "{\n  \"value\": []\n}" {
		t.Fatalf("jobs list --state Disabled: exit %d\n%s", code, out)
	}
	code, out, _ = run("jobs", "show", "backup", "--resource-group", "ops", "--collection", "nightly")
	if code != 0 || !strings.Contains(out, "Job:       default/ops/nightly/backup") || !strings.Contains(out, "Action:    Http POST "+target.URL+"/backup") ||
		!strings.Contains(out, `"startTime": "2030-01-01T02:00:00+01:00"`) || !strings.Contains(out, `"exclude": [`) {
		t.Fatalf("jobs show: exit %d\n%s", code, out)
	}
	if code, _, errOut := run("jobs", "show", "nope", "--resource-group", "ops", "--collection", "nightly"); code != exitError ||
		!strings.Contains(errOut, `404 ResourceNotFound: The job "nope" was not found in job collection "nightly".`) {
		t.Errorf("jobs show of a missing job: exit %d %s", code, errOut)
	}

	code, out, errOut = run("jobs", "run", "report", "--resource-group", "ops", "--collection", "nightly")
	if code != 0 || out != "started a run of job default/ops/nightly/report\n" {
		t.Fatalf("jobs run: exit %d\n%s%s", code, out, errOut)
	}
	select {
	case path := <-calls:
		if path != "/report" {
			t.Fatalf("the run called %s", path)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not call its target within 60 s")
	}
	// The history entry follows the call: wait for it to be written.
	var hist string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, hist, errOut = run("jobs", "history", "report", "--resource-group", "ops", "--collection", "nightly"); code != 0 {
			t.Fatalf("jobs history: exit %d %s", code, errOut)
		}
		if strings.Contains(hist, "Completed") {
			break
		}
	}
	if !regexp.MustCompile(`(?m)^ID +START +EXPECTED +ACTION +STATUS +RETRY +MESSAGE$`).MatchString(hist) ||
		!regexp.MustCompile(`(?m)^\d+ +\S+Z +\S+Z +MainAction +Completed +0 +`).MatchString(hist) {
		t.Fatalf("jobs history:\n%s", hist)
	}
	// A run with changes of its request: the header merged, the body
	// replaced, for this run only.
	bodyFile := writeFile(t, "payload.json", `{"once": true}`)
	code, out, errOut = run("jobs", "run", "report", "--resource-group", "ops", "--collection", "nightly",
		"--header", "X-Reason: fix verified", "--body-file", bodyFile)
	if code != 0 || out != "started a run of job default/ops/nightly/report with changes\n" {
		t.Fatalf("jobs run with changes: exit %d\n%s%s", code, out, errOut)
	}
	select {
	case got := <-changed:
		if got != `/report fix verified {"once": true}` {
			t.Fatalf("the run with changes sent %q", got)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run with changes did not call its target within 60 s")
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--header", "no colon"}, `--header "no colon" is not 'Name: value'`},
		{[]string{"--body", "x", "--body-file", bodyFile}, "give --body or --body-file, not both"},
		{[]string{"--body-file", bodyFile + ".missing"}, "--body-file: open"},
		{[]string{"--header", "Bad Name: v"}, "request.headers"},
	} {
		code, _, errOut := run(append([]string{"jobs", "run", "report", "--resource-group", "ops", "--collection", "nightly"}, bad.args...)...)
		if code == 0 || !strings.Contains(errOut, bad.want) {
			t.Errorf("jobs run %v: exit %d, want an error containing %q:\n%s", bad.args, code, bad.want, errOut)
		}
	}
	code, out, _ = run("jobs", "history", "report", "--resource-group", "ops", "--collection", "nightly", "--status", "Failed", "--output", "json")
	if code != 0 || strings.TrimSpace(out) != "{\n  \"value\": []\n}" {
		t.Errorf("jobs history --status Failed: exit %d\n%s", code, out)
	}

	// Without a server or a token: a usage error saying how to give them.
	for _, args := range [][]string{{"jobs", "list"}, {"collections", "list"}, {"jobs", "run", "report", "--resource-group", "ops", "--collection", "nightly"}} {
		code, out, errOut := runForTest(args, map[string]string{"SKED_SERVER": env["SKED_SERVER"]}, "")
		if code != exitUsage || out != "" || !strings.Contains(errOut, "missing an API token: give --token TOKEN or set SKED_TOKEN") {
			t.Errorf("%v without a token: exit %d %s", args, code, errOut)
		}
	}
	if code, _, errOut := runForTest([]string{"jobs", "list", "--token", "x"}, nil, ""); code != exitUsage ||
		!strings.Contains(errOut, "missing the server: give --server URL or set SKED_SERVER") {
		t.Errorf("jobs list without a server: exit %d %s", code, errOut)
	}
	if code, _, errOut := runForTest([]string{"jobs", "list", "--server", env["SKED_SERVER"], "--token", "wrong"}, nil, ""); code != exitError ||
		!strings.Contains(errOut, "401") {
		t.Errorf("jobs list with a bad token: exit %d %s", code, errOut)
	}
	if code, _, errOut := run("jobs", "list", "--help"); code != 0 || strings.Contains(errOut, env["SKED_TOKEN"]) || !strings.Contains(errOut, "$SKED_TOKEN") {
		t.Errorf("jobs list --help: exit %d, and it must not show the token:\n%s", code, errOut)
	}
	if code, _, errOut := run("jobs", "show", "report"); code != exitUsage || !strings.Contains(errOut, "--resource-group RG --collection JC") {
		t.Errorf("jobs show without its collection: exit %d %s", code, errOut)
	}
}
