package handlers_test

import (
	"bytes"
	"database/sql"
	"io"
	"net/http"
	"strings"
	"testing"

	"sked/scheduler/catalog"
)

// flatJob is a seed-style job with a name.
func flatJob(name string) string {
	return `{"name": "` + name + `", "startTime": "2026-03-01T00:00:00Z",
	 "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
	 "recurrence": {"frequency": "day", "schedule": {"hours": [5, 17], "minutes": [15]}}}`
}

const invalidFlatJob = `{"name": "bad", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
 "recurrence": {"frequency": "minute", "interval": 2000}}`

// importReport is the part of the import answer the tests look at.
type importReport struct {
	DryRun  bool `json:"dryRun"`
	Applied bool `json:"applied"`
	Summary struct {
		Jobs, New, Replace, Skip, Invalid, Written int
	} `json:"summary"`
	Jobs []struct {
		Path, Name, Action, Description string
		Collection                      string   `json:"jobCollection"`
		Problems                        []string `json:"problems"`
		Warnings                        []string `json:"warnings"`
		NextOccurrences                 []string `json:"nextOccurrences"`
	} `json:"jobs"`
}

// sqlExec runs SQL on the app's database.
func (a *app) sqlExec(query string, args ...any) {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		a.t.Fatal(err)
	}
}

func TestImportAPIDryRunThenApply(t *testing.T) {
	a := newApp(t, false).withToken()
	file := "[" + flatJob("a") + "," + flatJob("b") + "]"
	before := a.fingerprint()
	r := a.api("POST", "/api/v1/import?resourceGroup=rg&jobCollection=jc&previewCount=2", file)
	wantStatus(t, r, http.StatusOK)
	rep := decode[importReport](t, r)
	if !rep.DryRun || rep.Applied || rep.Summary.New != 2 || len(rep.Jobs) != 2 || rep.Jobs[0].Action != "new" ||
		rep.Jobs[0].Collection != "jc" || len(rep.Jobs[0].NextOccurrences) != 2 || rep.Jobs[0].NextOccurrences[0] != "2026-11-21T17:15:00Z" ||
		rep.Jobs[0].Description == "" {
		t.Errorf("dry run report: %s", r.body)
	}
	if a.fingerprint() != before {
		t.Fatal("the default dry run wrote")
	}

	r = a.api("POST", "/api/v1/import?dryRun=false&resourceGroup=rg&jobCollection=jc", file)
	wantStatus(t, r, http.StatusOK)
	rep = decode[importReport](t, r)
	if rep.DryRun || !rep.Applied || rep.Summary.Written != 2 {
		t.Errorf("apply report: %s", r.body)
	}
	wantStatus(t, a.api("GET", rgPath("rg")+"/jc/jobs/b"+apiVersion, ""), http.StatusOK)

	// Again: both replace; with onConflict=skip both are skipped.
	r = a.api("POST", "/api/v1/import?dryRun=false&onConflict=skip&resourceGroup=rg&jobCollection=jc", file)
	wantStatus(t, r, http.StatusOK)
	if rep = decode[importReport](t, r); rep.Summary.Skip != 2 || rep.Summary.Written != 0 {
		t.Errorf("skip report: %s", r.body)
	}
}

func TestImportAPIModes(t *testing.T) {
	a := newApp(t, false).withToken()
	file := `{"value": [` + flatJob("a") + "," + invalidFlatJob + "]}"
	before := a.fingerprint()
	r := a.api("POST", "/api/v1/import?dryRun=false&resourceGroup=rg&jobCollection=jc", file)
	wantStatus(t, r, http.StatusBadRequest)
	refused := decode[struct {
		Error struct {
			Code, Message string
			Details       []struct{ Target, Message string }
		}
		Report importReport
	}](t, r)
	if refused.Error.Code != "BadRequest" || !strings.HasPrefix(refused.Error.Message, "Nothing was imported: value[1].recurrence.interval: 2000 is over the maximum") ||
		len(refused.Error.Details) != 1 || refused.Error.Details[0].Target != "value[1].recurrence.interval" ||
		refused.Report.Summary.Invalid != 1 || refused.Report.Applied {
		t.Errorf("mode all with an invalid job: %s", r.body)
	}
	if a.fingerprint() != before {
		t.Fatal("a refused import wrote")
	}
	r = a.api("POST", "/api/v1/import?dryRun=false&mode=valid&resourceGroup=rg&jobCollection=jc", file)
	wantStatus(t, r, http.StatusOK)
	rep := decode[importReport](t, r)
	if !rep.Applied || rep.Summary.Written != 1 || rep.Summary.Invalid != 1 ||
		strings.Join(rep.Jobs[1].Problems, "") != `recurrence.interval: 2000 is over the maximum of 1000 for frequency "minute"` {
		t.Errorf("mode valid: %s", r.body)
	}
}

func TestImportAPIRefusesBadInputAndChangesNothing(t *testing.T) {
	a := newApp(t, false).withToken()
	a.sqlExec(`INSERT INTO workspaces (id) VALUES ('other')`)
	before := a.fingerprint()
	otherJob := `{"id": "/subscriptions/other/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/x", "properties": ` +
		strings.Replace(flatJob("x"), `"name": "x", `, "", 1) + `}`
	cases := []struct {
		name, query, body string
		status            int
		want              string
	}{
		{"not JSON", "", `{"startTime": `, 400, `file: not valid JSON: unexpected end of JSON input`},
		{"wrong shape", "", `"a job"`, 400, `file: must be a job, an array of jobs, an ARM list`},
		{"value not an array", "", `{"value": 1}`, 400, `file: value must be an array of jobs, not a number`},
		{"empty body", "", ``, 400, `file: is empty`},
		{"bad dryRun", "?dryRun=maybe", flatJob("a"), 400, `dryRun: \"maybe\" is not true or false`},
		{"bad mode", "?mode=most", flatJob("a"), 400, `mode: \"most\" is not one of all, valid`},
		{"bad onConflict", "?onConflict=merge", flatJob("a"), 400, `onConflict: \"merge\" is not one of skip, replace`},
		{"bad previewCount", "?previewCount=0", flatJob("a"), 400, `previewCount: \"0\" is not a whole number from 1 to 100`},
		{"another workspace in the file", "?dryRun=false", otherJob, 403, `has no access to subscription \"other\"`},
		{"another workspace as the target", "?dryRun=false&subscription=other&resourceGroup=rg&jobCollection=jc", flatJob("a"), 403, `subscription \"other\"`},
		{"a workspace that does not exist", "?subscription=nowhere&resourceGroup=rg&jobCollection=jc", flatJob("a"), 403, `subscription \"nowhere\"`},
	}
	for _, tc := range cases {
		r := a.api("POST", "/api/v1/import"+tc.query, tc.body)
		if r.StatusCode != tc.status || !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %d %s; want %d with %s", tc.name, r.StatusCode, r.body, tc.status, tc.want)
		}
		if a.fingerprint() != before {
			t.Fatalf("%s changed the database", tc.name)
		}
	}
	// Without a token: 401.
	tok := a.token
	a.token = ""
	wantStatus(t, a.api("POST", "/api/v1/import", flatJob("a")), http.StatusUnauthorized)
	wantStatus(t, a.api("GET", "/api/v1/export", ""), http.StatusUnauthorized)
	a.token = tok
}

// countingReader is a body of n bytes that counts how many were read.
type countingReader struct {
	n, read int
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.read)
	for i := range k {
		p[i] = ' '
	}
	if r.read == 0 && k > 0 {
		p[0] = '['
	}
	r.read += k
	return k, nil
}

func TestImportAPIRefusesFilesOver50MB(t *testing.T) {
	a := newApp(t, false).withToken()
	before := a.fingerprint()
	big := catalog.MaxImportBytes + 1
	send := func(body io.Reader, length int64) *http.Response {
		req, err := http.NewRequest("POST", a.srv.URL+"/api/v1/import?dryRun=false", body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = length
		req.Header.Set("Authorization", "Bearer "+a.token)
		resp, err := a.client.Do(req)
		if err != nil {
			t.Fatalf("the server did not answer: %v", err)
		}
		return resp
	}
	check := func(name string, resp *http.Response) {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestEntityTooLarge ||
			!strings.Contains(string(b), `"message":"The import file is over the maximum of 52428800 bytes (50 MB): split it into several imports."`) {
			t.Errorf("%s: %d %s", name, resp.StatusCode, b)
		}
	}
	// A declared length over the limit is refused before the body is read.
	declared := &countingReader{n: big}
	check("declared length", send(declared, int64(big)))
	if declared.read > 8<<20 {
		t.Errorf("the server read %d bytes of a body it refuses by its length", declared.read)
	}
	// A body of unknown length is cut off just past the limit.
	streamed := &countingReader{n: 3 * catalog.MaxImportBytes}
	check("streamed", send(streamed, -1))
	if streamed.read >= 3*catalog.MaxImportBytes {
		t.Errorf("the whole streamed body was read (%d bytes)", streamed.read)
	}
	// Exactly at the limit it is read and imported (here: a dry run).
	at := bytes.Repeat([]byte(" "), catalog.MaxImportBytes)
	copy(at, `[`+flatJob("a"))
	at[len(at)-1] = ']'
	req, err := http.NewRequest("POST", a.srv.URL+"/api/v1/import?resourceGroup=rg&jobCollection=jc", bytes.NewReader(at))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"summary":{"jobs":1,"new":1,`) {
		t.Errorf("a file of exactly 50 MB: %d %s", resp.StatusCode, b)
	}
	if a.fingerprint() != before {
		t.Fatal("a refused file changed the database")
	}
}

func TestExportAPI(t *testing.T) {
	a := newApp(t, false).withToken()
	a.sqlExec(`INSERT INTO workspaces (id) VALUES ('other')`)
	wantStatus(t, a.api("PUT", rgPath("rg")+"/jc"+apiVersion, `{"location": "West Europe", "properties": {"sku": {"name": "P10Premium"}}}`), http.StatusCreated)
	wantStatus(t, a.api("PUT", rgPath("rg")+"/jc/jobs/basic"+apiVersion, basicJob), http.StatusCreated)
	wantStatus(t, a.api("PUT", rgPath("rg")+"/jc/jobs/flat"+apiVersion, flatJob("ignored")), http.StatusCreated)

	r := a.api("GET", "/api/v1/export?resourceGroup=rg&jobCollection=jc&job=basic", "")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, `"id": "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/basic"`) ||
		!strings.Contains(r.body, `"secretsOmitted": true`) || strings.Contains(r.body, "hunter2") ||
		r.Header.Get("Content-Disposition") != `attachment; filename="sked-export-jc-basic.json"` {
		t.Errorf("job export: %v\n%s", r.Header, r.body)
	}
	r = a.api("GET", "/api/v1/export?subscription=DEFAULT&resourceGroup=RG&jobCollection=JC", "")
	wantStatus(t, r, http.StatusOK)
	list := decode[struct {
		Value []struct{ Name string }
	}](t, r)
	if len(list.Value) != 2 || list.Value[0].Name != "jc/basic" || strings.Contains(r.body, "hunter2") {
		t.Errorf("collection export: %s", r.body)
	}
	all := a.api("GET", "/api/v1/export", "")
	wantStatus(t, all, http.StatusOK)
	if !strings.Contains(all.body, `"jobCollections": [`) || strings.Contains(all.body, "hunter2") || !strings.Contains(all.body, catalog.ExportNote) {
		t.Errorf("export of everything: %s", all.body)
	}
	for _, q := range []string{"?subscription=default", "?resourceGroup=rg", "?subscription=default&resourceGroup=nothing"} {
		r := a.api("GET", "/api/v1/export"+q, "")
		wantStatus(t, r, http.StatusOK)
		if want := !strings.Contains(q, "nothing"); strings.Contains(r.body, `"name": "jc"`) != want {
			t.Errorf("%s: %s", q, r.body)
		}
	}

	// What the export says imports again: every job a replacement.
	r = a.api("POST", "/api/v1/import?onConflict=replace", all.body)
	wantStatus(t, r, http.StatusOK)
	rep := decode[importReport](t, r)
	if rep.Summary.Replace != 2 || rep.Summary.Invalid != 0 {
		t.Errorf("re-import of the export: %s", r.body)
	}

	for _, tc := range []struct {
		query  string
		status int
		want   string
	}{
		{"?job=basic", 400, "jobCollection: is required with job"},
		{"?jobCollection=jc", 400, "resourceGroup: is required with jobCollection"},
		{"?resourceGroup=rg&jobCollection=nope", 404, `The job collection \"nope\" does not exist in resource group \"rg\".`},
		{"?resourceGroup=rg&jobCollection=jc&job=nope", 404, `The job \"nope\" does not exist`},
		{"?subscription=other", 403, `has no access to subscription \"other\"`},
		{"?subscription=other&resourceGroup=rg&jobCollection=jc", 403, `subscription \"other\"`},
	} {
		r := a.api("GET", "/api/v1/export"+tc.query, "")
		if r.StatusCode != tc.status || !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %d %s; want %d with %s", tc.query, r.StatusCode, r.body, tc.status, tc.want)
		}
	}
}
