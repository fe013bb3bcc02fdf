package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestOpenAPIDocumentServed checks GET /api/openapi.json: open without a
// token or session, the document's bytes as JSON with the security
// headers of every answer, cacheable and revalidated by its ETag; and its
// schemas compile as JSON Schema 2020-12.
func TestOpenAPIDocumentServed(t *testing.T) {
	a := newApp(t, false)
	want, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	r := a.get("/api/openapi.json")
	wantStatus(t, r, http.StatusOK)
	if r.body != string(want) {
		t.Error("the answer is not openapi.json")
	}
	for h, v := range map[string]string{
		"Content-Type":           "application/json",
		"Cache-Control":          "public, max-age=300",
		"X-Content-Type-Options": "nosniff",
	} {
		if got := r.Header.Get(h); got != v {
			t.Errorf("%s: %q, want %q", h, got, v)
		}
	}
	if r.Header.Get("Content-Security-Policy") == "" {
		t.Error("no Content-Security-Policy")
	}
	etag := r.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	again := a.do(a.client, http.MethodGet, "/api/openapi.json", nil, http.Header{"If-None-Match": {etag}})
	wantStatus(t, again, http.StatusNotModified)
	if again.body != "" {
		t.Errorf("304 with a body: %.100s", again.body)
	}
	stale := a.do(a.client, http.MethodGet, "/api/openapi.json", nil, http.Header{"If-None-Match": {`"old"`}})
	wantStatus(t, stale, http.StatusOK)

	s, err := loadAPISpec()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ops) < 40 {
		t.Errorf("the document has %d operations", len(s.ops))
	}
}

// TestOpenAPICheckerFindsMismatches checks the checker of real traffic
// (openapi_validate_test.go) on made-up exchanges: a conforming one
// passes, and each way an answer or request can disagree with the
// document is reported.
func TestOpenAPICheckerFindsMismatches(t *testing.T) {
	s, err := loadAPISpec()
	if err != nil {
		t.Fatal(err)
	}
	const ws = "/api/v1/workspaces/default"
	const job = "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/j"
	request := func(method, target, ctype, token string) *http.Request {
		r := httptest.NewRequest(method, target, nil)
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	answer := func(status int, ctype string, headers ...string) *http.Response {
		h := http.Header{}
		if ctype != "" {
			h.Set("Content-Type", ctype)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			h.Set(headers[i], headers[i+1])
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	workspace := `{"id":"default","displayName":"Default","role":"owner","createdAt":"2026-01-01T00:00:00Z"}`
	jobAnswer := `{"id":"x","type":"Microsoft.Scheduler/jobCollections/jobs","name":"jc/j","properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"state":"enabled"}}`
	for _, tc := range []struct {
		name     string
		req      *http.Request
		reqBody  string
		resp     *http.Response
		body     string
		mismatch string // "" for none
	}{
		{"conforming", request("GET", ws, "", "tok"), "", answer(200, "application/json"), workspace, ""},
		{"not described", request("GET", "/api/v1/nothing", "", "tok"), "", answer(404, "application/json"), `{}`, ""},
		{"undocumented status", request("GET", ws, "", "tok"), "", answer(202, "application/json"), workspace, "status 202 is not documented"},
		{"answer against its schema", request("GET", ws, "", "tok"), "", answer(200, "application/json"), `{"id":"default"}`, "missing properties"},
		{"undocumented field", request("GET", ws, "", "tok"), "", answer(200, "application/json"), workspace[:len(workspace)-1] + `,"x":1}`, "additional properties"},
		{"bad date-time", request("GET", ws, "", "tok"), "", answer(200, "application/json"), strings.Replace(workspace, "2026-01-01T00:00:00Z", "yesterday", 1), "date-time"},
		{"media type", request("GET", ws, "", "tok"), "", answer(200, "text/html"), workspace, `media type "text/html"`},
		{"no token but 200", request("GET", ws, "", ""), "", answer(200, "application/json"), workspace, "no bearer token"},
		{"no token and 401", request("GET", ws, "", ""), "", answer(401, "application/json", "x-ms-request-id", "1"), `{"error":{"code":"AuthenticationFailed","message":"no"}}`, ""},
		{"error shape", request("GET", ws, "", ""), "", answer(401, "application/json", "x-ms-request-id", "1"), `{"message":"no"}`, "missing property 'error'"},
		{"no api-version but 200", request("GET", job, "", "tok"), "", answer(200, "application/json", "x-ms-request-id", "1"), jobAnswer, "api-version is missing"},
		{"no request id", request("GET", job+"?api-version=2016-03-01", "", "tok"), "", answer(200, "application/json"), jobAnswer, "no x-ms-request-id header"},
		{"ARM path in another case", request("GET", strings.ToLower(job)+"?api-version=2016-03-01", "", "tok"), "", answer(200, "application/json", "x-ms-request-id", "1"), jobAnswer, ""},
		{"body the document refuses, accepted", request("PUT", job+"?api-version=2016-03-01", "application/json", "tok"), `{"properties":{"recurrence":{"frequency":"day"}}}`, answer(200, "application/json", "x-ms-request-id", "1"), jobAnswer, "the document refuses the request"},
		{"body not JSON, accepted", request("PUT", ws, "application/json", "tok"), `{`, answer(200, "application/json"), workspace, "not JSON"},
		{"query parameter type", request("GET", ws+"/audit?$top=many", "", "tok"), "", answer(200, "application/json"), `{"value":[]}`, "not an integer"},
		{"a body where none is documented", request("DELETE", ws, "", "tok"), "", answer(200, "application/json"), `{}`, "has a body"},
	} {
		got := s.checkExchange(tc.req, []byte(tc.reqBody), tc.resp, []byte(tc.body))
		switch {
		case tc.mismatch == "" && len(got) > 0:
			t.Errorf("%s: mismatches %q, want none", tc.name, got)
		case tc.mismatch != "" && !strings.Contains(strings.Join(got, "\n"), tc.mismatch):
			t.Errorf("%s: mismatches %q, want one saying %q", tc.name, got, tc.mismatch)
		}
	}
}

// TestOpenAPIExamplesWork sends the document's request examples to a real
// server, each as its operation (so the traffic check validates them
// against their schemas too): the preview answers what the document
// shows, the jobs, calendar, channel and alert rule are created, and the
// import examples import without problems.
func TestOpenAPIExamplesWork(t *testing.T) {
	a := newApp(t, false).withToken()
	s, err := loadAPISpec()
	if err != nil {
		t.Fatal(err)
	}
	// example returns the JSON of an example of the document.
	example := func(path, method, media, kind, name string) string {
		t.Helper()
		ptr := "/paths/" + escapePointer(path) + "/" + method
		if kind == "request" {
			ptr += "/requestBody"
		} else {
			ptr += "/responses/" + kind
		}
		v := s.at(ptr + "/content/" + escapePointer(media) + "/examples/" + name + "/value")
		if v == nil {
			t.Fatalf("openapi.json has no example %s at %s %s", name, method, path)
		}
		if str, ok := v.(string); ok {
			return str
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// The preview answers the documented example.
	r := a.api("POST", "/api/v1/preview", example("/api/v1/preview", "post", "application/json", "request", "lastFriday"))
	wantStatus(t, r, http.StatusOK)
	got, want := decode[map[string]any](t, r), map[string]any{}
	if err := json.Unmarshal([]byte(example("/api/v1/preview", "post", "application/json", "200", "lastFriday")), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the preview example answers\n%s\nthe document shows\n%v", r.body, want)
	}

	// The jobs.
	const jobPath = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Scheduler/jobCollections/{jobCollectionName}/jobs/{jobName}"
	wantStatus(t, a.api("PUT", rgPath("ops")+"/nightly"+apiVersion, `{"location":"westeurope","properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	for _, name := range []string{"weekdays", "cron"} {
		wantStatus(t, a.api("PUT", rgPath("ops")+"/nightly/jobs/"+name+apiVersion, example(jobPath, "put", "application/json", "request", name)), http.StatusCreated)
	}

	// The imports, as dry runs: no job has a problem.
	for _, tc := range []struct{ name, media, query string }{
		{"bundle", "application/json", ""},
		{"flatJobs", "application/json", "?resourceGroup=ops&jobCollection=nightly"},
		{"crontab", "text/plain", "?resourceGroup=ops&jobCollection=nightly"},
	} {
		r := a.do(a.client, "POST", "/api/v1/import"+tc.query, nil,
			http.Header{"Authorization": {"Bearer " + a.token}, "Content-Type": {tc.media}},
			strings.NewReader(example("/api/v1/import", "post", tc.media, "request", tc.name)))
		wantStatus(t, r, http.StatusOK)
		rep := decode[struct {
			Summary struct{ Jobs, Invalid int }
		}](t, r)
		if rep.Summary.Jobs == 0 || rep.Summary.Invalid != 0 {
			t.Errorf("import example %s: %s", tc.name, r.body)
		}
	}

	// The calendar, the channel and the alert rule sending to it.
	const ws = "/api/v1/workspaces/{ws}"
	wantStatus(t, a.api("PUT", "/api/v1/workspaces/default/calendars/holidays", example(ws+"/calendars/{name}", "put", "application/json", "request", "holidays")), http.StatusCreated)
	wantStatus(t, a.api("PUT", "/api/v1/workspaces/default/channels/oncall", example(ws+"/channels/{name}", "put", "application/json", "request", "webhook")), http.StatusCreated)
	wantStatus(t, a.api("PUT", "/api/v1/workspaces/default/alerts/failures", example(ws+"/alerts/{name}", "put", "application/json", "request", "failures")), http.StatusCreated)
}
