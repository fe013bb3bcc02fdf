package web

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"

	"github.com/PuerkitoBio/goquery"
	"software.sslmate.com/src/go-pkcs12"
)

func TestJobFormFrom(t *testing.T) {
	parse := func(t *testing.T, def string) *jobdef.Job {
		t.Helper()
		job, err := jobdef.ParseWith([]byte(def), jobdef.Options{SecretsOptional: true, Stored: true})
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	for _, tc := range []struct {
		name, def, unsupported string
		check                  func(t *testing.T, f JobForm)
	}{
		{"a daily request", `{"startTime":"2026-01-01T08:00:00+01:00","action":{"type":"http","request":{"uri":"https://example.com/","method":"POST",
			"headers":{"X-A":"1"},"body":"hi"}},"recurrence":{"frequency":"week","interval":2,"count":5,"timeZone":"Europe/Berlin",
			"schedule":{"weekDays":["Friday","Monday"],"hours":[17,9],"minutes":[0]}}}`, "",
			func(t *testing.T, f JobForm) {
				got := []any{f.Mode, f.Method, f.URI, f.Headers, f.Body, f.StartTime, f.TimeZone, f.Frequency, f.Interval, f.End, f.Count, f.Hours, f.WeekDays}
				want := []any{"form", "POST", "https://example.com/", "X-A: 1", "hi", "2026-01-01T08:00", "Europe/Berlin", "week", "2", "count", "5",
					[]int{9, 17}, []string{"friday", "monday"}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			}},
		{"a queue action", `{"action":{"type":"storageQueue","queueMessage":{"storageAccount":"acc","queueName":"jobs","sasToken":"x","message":"m"}}}`,
			`an action of type "storageQueue"`, nil},
		{"count and end time", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
			"recurrence":{"frequency":"day","count":3,"endTime":"2027-01-01T00:00:00Z"}}`, "both a count and an end time", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, unsupported := JobFormFrom(parse(t, tc.def))
			if unsupported != tc.unsupported {
				t.Errorf("unsupported %q, want %q", unsupported, tc.unsupported)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

// testPfx returns a base64 PKCS#12 archive with a fresh self-signed
// certificate, protected by password.
func testPfx(t *testing.T, password string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "sked-test"},
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pfx, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pfx)
}

// postedValues are the values a browser posts for the form of html
// (Save: no submit button's value): every named control that is not
// disabled; checkboxes and radios when checked ("on" without a value);
// a select's selected option, else its first; a textarea's text with its
// line breaks as CRLF.
func postedValues(t *testing.T, html string) url.Values {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	out := url.Values{}
	doc.Find("#job-form").Find("input, select, textarea").Each(func(_ int, s *goquery.Selection) {
		name, ok := s.Attr("name")
		if !ok || name == "" {
			return
		}
		if _, disabled := s.Attr("disabled"); disabled {
			return
		}
		switch goquery.NodeName(s) {
		case "select":
			opt := s.Find("option[selected]").First()
			if opt.Length() == 0 {
				opt = s.Find("option").First()
			}
			out.Add(name, opt.AttrOr("value", opt.Text()))
		case "textarea":
			text := strings.ReplaceAll(s.Text(), "\r\n", "\n")
			out.Add(name, strings.ReplaceAll(text, "\n", "\r\n"))
		default:
			switch s.AttrOr("type", "text") {
			case "submit", "button", "reset", "image":
			case "checkbox", "radio":
				if _, checked := s.Attr("checked"); checked {
					out.Add(name, s.AttrOr("value", "on"))
				}
			default:
				out.Add(name, s.AttrOr("value", ""))
			}
		}
	})
	return out
}

// TestJobFormRoundTrip opens each job in the edit form (JobFormOf),
// renders it, posts the values a browser would (postedValues), reads them
// back (ReadJobForm, JobJSON) and parses the job: it is the job opened,
// secrets included, for every action type (the queue and service bus
// actions through the JSON tab, which the builder cannot show), every
// frequency and kind of schedule, cron lines, calendars, retry policies,
// error actions, timeouts, states and policies. The builder has no field
// for the state note: a job opened there comes back without it (the
// catalog's EditJob keeps the stored one); the JSON tab keeps it.
func TestJobFormRoundTrip(t *testing.T) {
	get := `"action":{"type":"http","request":{"uri":"https://example.com/hook","method":"GET"}}`
	pfx := testPfx(t, "pfx-pass")
	for _, tc := range []struct {
		name, def string
		// json is true when the job opens in the JSON tab.
		json bool
		// want, when set, is the job that comes back instead of def: the
		// same schedule, as the builder writes it.
		want string
	}{
		{"once, no start", `{` + get + `}`, false, ""},
		{"once at a time", `{"startTime":"2026-12-01T08:30:00Z",` + get + `}`, false, ""},
		{"https with headers in their order and a body of lines", `{"action":{"type":"https","request":{"uri":"https://example.com/a?b=c",
			"method":"POST","headers":{"X-Team":"finance","Content-Type":"text/plain","X-Run":"monthly"},"body":"line one\r\nline two\r\n"}}}`, false, ""},
		{"every method", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"DELETE"}}}`, false, ""},
		{"basic authentication", `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET",
			"authentication":{"type":"Basic","username":"u","password":"p w"}}}}`, false, ""},
		{"client certificate", `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET",
			"authentication":{"type":"ClientCertificate","pfx":"` + pfx + `","password":"pfx-pass"}}}}`, false, ""},
		{"OAuth client credentials", `{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET",
			"authentication":{"type":"ActiveDirectoryOAuth","tenant":"contoso.onmicrosoft.com","audience":"https://management.core.windows.net/",
			"clientId":"c1","secret":"s1"}}}}`, false, ""},
		{"no retries", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryType":"None"}}}`, false, ""},
		{"fixed retries", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},
			"retryPolicy":{"retryType":"Fixed","retryInterval":"PT1M","retryCount":2}}}`, false, ""},
		{"exponential retries", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},
			"retryPolicy":{"retryType":"Exponential","retryInterval":"PT30S","retryCount":5,"maxRetryInterval":"PT1H"}}}`, false, ""},
		{"timeout and error action", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"timeout":"PT2M",
			"errorAction":{"type":"http","request":{"uri":"https://example.com/alert","method":"POST","body":"it failed"}}}}`, false, ""},
		{"every 5 minutes, 10 runs", `{` + get + `,"recurrence":{"frequency":"minute","interval":5,"count":10}}`, false, ""},
		{"hourly at minutes", `{` + get + `,"recurrence":{"frequency":"hour","interval":2,"schedule":{"minutes":[0,30]}}}`, false, ""},
		{"daily until a date, in a zone", `{"startTime":"2026-12-01T00:00:00",` + get + `,"recurrence":{"frequency":"day",
			"endTime":"2027-06-30T23:00:00","timeZone":"Europe/Berlin","schedule":{"hours":[5,17],"minutes":[15]}}}`, false, ""},
		{"weekly on days", `{` + get + `,"recurrence":{"frequency":"week","interval":2,"schedule":{"weekDays":["monday","friday"],"hours":[9],"minutes":[0]}}}`, false, ""},
		{"monthly on days and the last day", `{` + get + `,"recurrence":{"frequency":"month","schedule":{"monthDays":[-1,1,15],"hours":[6],"minutes":[0]}}}`, false, ""},
		{"monthly on week days of the month", `{` + get + `,"recurrence":{"frequency":"month","schedule":{"monthlyOccurrences":
			[{"day":"monday","occurrence":1},{"day":"friday","occurrence":-1},{"day":"sunday"}],"hours":[5],"minutes":[15]}}}`, false, ""},
		{"yearly in months", `{` + get + `,"recurrence":{"frequency":"year","schedule":{"months":[1,7],"monthDays":[1],"hours":[0],"minutes":[0]}}}`, false, ""},
		// Without a time zone, the builder writes times in UTC ("Z"): a
		// cron line's start (jobdef.CronStart) gains the offset.
		{"cron: weekdays at 05:15", `{` + get + `,"recurrence":{"cron":"15 5 * * 1-5"}}`, false,
			`{"startTime":"2000-01-01T00:00:00Z",` + get + `,"recurrence":{"frequency":"week","schedule":{"weekDays":
			["monday","tuesday","wednesday","thursday","friday"],"hours":[5],"minutes":[15]}}}`},
		{"cron: in a zone, first of the month", `{` + get + `,"recurrence":{"cron":"CRON_TZ=America/New_York 0 9 1 * *"}}`, false, ""},
		// Frequency minute runs every minute: the builder leaves its
		// minutes out.
		{"cron: every minute", `{` + get + `,"recurrence":{"cron":"* * * * *"}}`, false,
			`{"startTime":"2000-01-01T00:00:00Z",` + get + `,"recurrence":{"frequency":"minute"}}`},
		{"calendars skipped", `{` + get + `,"recurrence":{"frequency":"day","schedule":{"hours":[8],"minutes":[0]},
			"calendars":{"exclude":["holidays","Closures"]}}}`, false, ""},
		{"calendars moved", `{` + get + `,"recurrence":{"frequency":"day","schedule":{"hours":[8],"minutes":[0]},
			"calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}}`, false, ""},
		{"disabled, with policies", `{` + get + `,"state":"disabled","misfirePolicy":"runOnce","concurrency":"forbid"}`, false, ""},
		{"disabled with a note", `{` + get + `,"state":"disabled","stateNote":"vendor maintenance"}`, false, ""},
		{"storage queue", `{"action":{"type":"storageQueue","queueMessage":{"storageAccount":"acct1","queueName":"jobs-q","message":"hello"}},
			"state":"disabled","stateNote":"queue moved"}`, true, ""},
		{"service bus queue", `{"action":{"type":"serviceBusQueue","serviceBusQueueMessage":{"namespace":"my-ns1","queueName":"q1","message":"m",
			"authentication":{"type":"SharedAccessKey","sasKeyName":"k"}}},"recurrence":{"frequency":"hour"}}`, true, ""},
		{"service bus topic", `{"action":{"type":"serviceBusTopic","serviceBusTopicMessage":{"namespace":"my-ns1","topicPath":"t1","message":"m",
			"authentication":{"type":"SharedAccessKey","sasKeyName":"k"}}}}`, true, ""},
		{"count and end time", `{` + get + `,"recurrence":{"frequency":"day","count":3,"endTime":"2027-01-01T00:00:00Z"}}`, true, ""},
		{"days counted back from the last", `{` + get + `,"recurrence":{"frequency":"month","schedule":{"monthDays":[-3]}}}`, true, ""},
		{"an error action with headers", `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},
			"errorAction":{"type":"http","request":{"uri":"https://example.com/e","method":"POST","headers":{"X-A":"1"}}}}}`, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened, err := jobdef.ParseWith([]byte(tc.def), jobdef.Options{SecretsOptional: true})
			if err != nil {
				t.Fatalf("the test's job: %v", err)
			}
			want := opened
			if tc.want != "" {
				if want, err = jobdef.ParseWith([]byte(tc.want), jobdef.Options{SecretsOptional: true}); err != nil {
					t.Fatalf("the test's job back: %v", err)
				}
			}
			f := JobFormOf(opened)
			if got := f.Mode == "json"; got != tc.json {
				t.Fatalf("opens in the JSON tab: %v, want %v (%s)", got, tc.json, f.Notice)
			}
			// The workspace has the calendar "holidays" but not "Closures",
			// which the form offers checked all the same.
			f.JobFormFrame = JobFormFrame{Action: "/save", Edit: true, CSRFToken: "t", Zones: []string{"UTC"},
				CalendarOptions: []string{"holidays", "audits"}}
			f.Name, f.PreviewCount = "job", "10"
			var html strings.Builder
			if err := JobFormFragment(f).Render(context.Background(), &html); err != nil {
				t.Fatal(err)
			}
			posted := ReadJobForm(postedValues(t, html.String()))
			got, err := jobdef.ParseWith(posted.JobJSON(), jobdef.Options{SecretsOptional: true})
			if err != nil {
				t.Fatalf("the posted job: %v\n%s", err, posted.JobJSON())
			}
			if !tc.json {
				// The builder has no note field (EditJob keeps the stored
				// note).
				cp := *want
				cp.StateNote = ""
				want = &cp
			} else {
				// The JSON tab shows no secrets (they are kept when saving).
				if s := want.Secrets(); len(s) > 0 {
					t.Fatalf("the test's JSON-tab job has secrets %v", s)
				}
			}
			if g, w := string(got.MarshalProperties(jobdef.MarshalOptions{})), string(want.MarshalProperties(jobdef.MarshalOptions{})); g != w {
				t.Errorf("round trip\n got %s\nwant %s", g, w)
			}
			if g, w := got.Secrets(), want.Secrets(); !reflect.DeepEqual(g, w) {
				t.Errorf("secrets %v, want %v", g, w)
			}
		})
	}
}
