package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestARMBadInput sends malformed requests: each gets the right 4xx with a
// message naming the field, and the database is unchanged after each.
func TestARMBadInput(t *testing.T) {
	a := newApp(t, false).withToken()
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	good := `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"hour"}}`
	wantStatus(t, a.api(http.MethodPut, coll+"/jobs/existing"+apiVersion, good), http.StatusCreated)
	job := func(props string) string { return `{"properties":` + props + `}` }
	withAction := func(action string) string {
		return job(`{"action":` + action + `,"recurrence":{"frequency":"hour"}}`)
	}
	withRecurrence := func(rec string) string {
		return job(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":` + rec + `}`)
	}
	withRequest := func(req string) string {
		return withAction(`{"type":"http","request":` + req + `}`)
	}
	many := func(n int) string {
		var hs []string
		for i := 0; i < n; i++ {
			hs = append(hs, fmt.Sprintf(`"X-H%d":"v"`, i))
		}
		return "{" + strings.Join(hs, ",") + "}"
	}
	jobPath := coll + "/jobs/new"
	cases := []struct {
		name, method, path, body string
		status                   int
		want                     string // in the message
	}{
		{"not JSON", "PUT", jobPath + apiVersion, `{"properties":`, 400, "not valid JSON"},
		{"array", "PUT", jobPath + apiVersion, `[]`, 400, "must be a JSON object"},
		{"properties not an object", "PUT", jobPath + apiVersion, `{"properties":3}`, 400, "properties"},
		{"empty body", "PUT", jobPath + apiVersion, ``, 400, "body"},
		{"action missing", "PUT", jobPath + apiVersion, job(`{"recurrence":{"frequency":"hour"}}`), 400, "action: is required"},
		{"action type typo", "PUT", jobPath + apiVersion, withAction(`{"type":"htp"}`), 400, "action.type"},
		{"request missing", "PUT", jobPath + apiVersion, withAction(`{"type":"http"}`), 400, "action.request: is required"},
		{"uri relative", "PUT", jobPath + apiVersion, withRequest(`{"uri":"/hook","method":"GET"}`), 400, "action.request.uri"},
		{"uri too long", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/` + strings.Repeat("a", 2048) + `","method":"GET"}`), 400, "over the maximum of 2048"},
		{"https action with http uri", "PUT", jobPath + apiVersion, withAction(`{"type":"https","request":{"uri":"http://example.com/","method":"GET"}}`), 400, "must use https"},
		{"method typo", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GETT"}`), 400, "action.request.method"},
		{"method wrong type", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":1}`), 400, "action.request.method: must be a string"},
		{"headers not an object", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","headers":[]}`), 400, "action.request.headers"},
		{"header value a number", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","headers":{"X-A":1}}`), 400, "action.request.headers.X-A"},
		{"51 headers", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","headers":` + many(51) + `}`), 400, "over the maximum of 50"},
		{"headers too long", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","headers":{"X-A":"` + strings.Repeat("v", 4100) + `"}}`), 400, "maximum of 4096"},
		{"body too long", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"POST","body":"` + strings.Repeat("b", 8193) + `"}`), 400, "maximum of 8192"},
		{"frequency typo", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"fortnight"}`), 400, "recurrence.frequency"},
		{"frequency missing", "PUT", jobPath + apiVersion, withRecurrence(`{"interval":2}`), 400, "recurrence.frequency: is required"},
		{"interval over the maximum", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"minute","interval":2000}`), 400, "recurrence.interval: 2000 is over the maximum of 1000"},
		{"interval zero", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","interval":0}`), 400, "recurrence.interval"},
		{"interval a string", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","interval":"2"}`), 400, "recurrence.interval: must be an integer"},
		{"count zero", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","count":0}`), 400, "recurrence.count"},
		{"endTime garbage", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","endTime":"soon"}`), 400, "recurrence.endTime"},
		{"startTime garbage", "PUT", jobPath + apiVersion, job(`{"startTime":"yesterday","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}}`), 400, "startTime"},
		{"weekDays with day", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","schedule":{"weekDays":["monday"]}}`), 400, "recurrence.schedule.weekDays"},
		{"monthDays 32", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"month","schedule":{"monthDays":[32]}}`), 400, "recurrence.schedule.monthDays[0]"},
		{"minutes 60", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"hour","schedule":{"minutes":[60]}}`), 400, "recurrence.schedule.minutes[0]"},
		{"hours -1", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","schedule":{"hours":-1}}`), 400, "recurrence.schedule.hours"},
		{"sixth occurrence", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":6}]}}`), 400, "occurrence"},
		{"unknown time zone", "PUT", jobPath + apiVersion, withRecurrence(`{"frequency":"day","timeZone":"Mars/Olympus"}`), 400, "recurrence.timeZone"},
		{"state typo", "PUT", jobPath + apiVersion, job(`{"state":"paused","action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}}}`), 400, "state"},
		{"retryType typo", "PUT", jobPath + apiVersion, withAction(`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryType":"sometimes"}}`), 400, "action.retryPolicy.retryType"},
		{"retryInterval too short", "PUT", jobPath + apiVersion, withAction(`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryInterval":"PT1S"}}`), 400, "action.retryPolicy.retryInterval"},
		{"retryCount 21", "PUT", jobPath + apiVersion, withAction(`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryCount":21}}`), 400, "action.retryPolicy.retryCount"},
		{"timeout too long", "PUT", jobPath + apiVersion, withAction(`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"timeout":"PT11M"}`), 400, "action.timeout"},
		{"authentication type typo", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","authentication":{"type":"kerberos"}}`), 400, "action.request.authentication.type"},
		{"basic without password", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","authentication":{"type":"Basic","username":"u"}}`), 400, "action.request.authentication.password: is required"},
		{"bad pfx", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","authentication":{"type":"ClientCertificate","pfx":"bm90IGEgcGZ4","password":"x"}}`), 400, "action.request.authentication.pfx"},
		{"storage queue message missing", "PUT", jobPath + apiVersion, withAction(`{"type":"storageQueue"}`), 400, "action.queueMessage: is required"},
		{"service bus namespace missing", "PUT", jobPath + apiVersion, withAction(`{"type":"serviceBusQueue","serviceBusQueueMessage":{"queueName":"q","authentication":{"sasKeyName":"k","sasKey":"s"}}}`), 400, "action.serviceBusQueueMessage.namespace"},
		{"nested error action", "PUT", jobPath + apiVersion, withAction(`{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"errorAction":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"errorAction":{}}}`), 400, "action.errorAction.errorAction"},
		{"job over 16000 bytes", "PUT", jobPath + apiVersion, withRequest(`{"uri":"https://example.com/","method":"GET","headers":{"X":"` + strings.Repeat("v", 16100) + `"}}`), 400, "over the maximum of 16000"},
		{"body over 64 KiB", "PUT", jobPath + apiVersion, `{"x":"` + strings.Repeat("v", 70000) + `"}`, 400, "body"},
		{"bad job name", "PUT", coll + "/jobs/bad.name" + apiVersion, good, 400, "jobName"},
		{"api-version missing", "GET", coll + "/jobs", "", 400, "api-version"},
		{"api-version unknown", "GET", coll + "/jobs?api-version=2099-01-01", "", 400, "api-version"},
		{"wrong method", "POST", jobPath + apiVersion, good, 405, ""},
		{"unknown collection", "GET", rgPath("rg") + "/nope/jobs" + apiVersion, "", 404, `"nope"`},
		{"unknown job", "GET", coll + "/jobs/nope" + apiVersion, "", 404, `"nope"`},
		{"run an unknown job", "POST", coll + "/jobs/nope/run" + apiVersion, "", 404, `"nope"`},
		{"patch an unknown job", "PATCH", coll + "/jobs/nope" + apiVersion, `{"properties":{"state":"disabled"}}`, 404, `"nope"`},
		{"another workspace", "GET", "/subscriptions/other/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc" + apiVersion, "", 403, `"other"`},
		{"another workspace's job", "PUT", "/subscriptions/other/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/j" + apiVersion, good, 403, `"other"`},
		{"$top 0", "GET", coll + "/jobs" + apiVersion + "&$top=0", "", 400, "$top"},
		{"$top 101", "GET", coll + "/jobs" + apiVersion + "&$top=101", "", 400, "$top"},
		{"$skip negative", "GET", coll + "/jobs" + apiVersion + "&$skip=-1", "", 400, "$skip"},
		{"$filter on an unknown field", "GET", coll + "/jobs" + apiVersion + "&$filter=name+eq+x", "", 400, "$filter"},
		{"$filter on an unknown state", "GET", coll + "/jobs" + apiVersion + "&$filter=state+eq+sleeping", "", 400, "$filter"},
		{"collection sku typo", "PUT", rgPath("rg") + "/jc2" + apiVersion, `{"properties":{"sku":{"name":"Gold"}}}`, 400, "properties.sku.name"},
		{"collection state Deleted", "PUT", rgPath("rg") + "/jc2" + apiVersion, `{"properties":{"state":"Deleted"}}`, 400, "properties.state"},
		{"collection tags not an object", "PUT", rgPath("rg") + "/jc2" + apiVersion, `{"tags":["a"]}`, 400, "tags"},
		{"collection quota a string", "PUT", rgPath("rg") + "/jc2" + apiVersion, `{"properties":{"quota":{"maxJobCount":"ten"}}}`, 400, "maxJobCount"},
		{"collection name invalid", "PUT", rgPath("rg") + "/-bad" + apiVersion, `{}`, 400, "jobCollectionName"},
		{"patch with an array", "PATCH", coll + "/jobs/existing" + apiVersion, `[1]`, 400, "must be a JSON object"},
		{"patch making the job invalid", "PATCH", coll + "/jobs/existing" + apiVersion, `{"properties":{"recurrence":{"interval":5000}}}`, 400, "recurrence.interval"},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	before := a.fingerprint()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := a.api(tc.method, tc.path, tc.body)
			wantStatus(t, r, tc.status)
			if r.Header.Get("x-ms-request-id") == "" {
				t.Error("no x-ms-request-id")
			}
			e := decode[apiErr](t, r)
			if e.Error.Code == "" || !strings.Contains(e.Error.Message, tc.want) {
				t.Errorf("error %+v does not mention %q", e.Error, tc.want)
			}
			if a.fingerprint() != before {
				t.Fatal("the database changed")
			}
		})
	}

	t.Run("no token", func(t *testing.T) {
		tok := a.token
		a.token = ""
		defer func() { a.token = tok }()
		r := a.api(http.MethodGet, coll+apiVersion, "")
		wantStatus(t, r, http.StatusUnauthorized)
		if e := decode[apiErr](t, r); e.Error.Code != "AuthenticationFailed" {
			t.Errorf("401 code: %s", r.body)
		}
	})
}
