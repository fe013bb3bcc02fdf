package recurrence

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/models/problem"
)

// preview runs Preview on a job JSON created at now.
func preview(t *testing.T, js, now string, n int) Result {
	t.Helper()
	res, err := Preview(mustParse(t, js), mustTime(t, now), n)
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	return res
}

// TestPreviewJSON checks the exact JSON form of SPEC §3.
func TestPreviewJSON(t *testing.T) {
	res := preview(t, jobJSON("2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"hours":[5,17],"minutes":[15]}}`), "2024-05-01T10:05:00Z", 3)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"occurrences":["2024-05-01T17:15:00Z","2024-05-02T05:15:00Z","2024-05-02T17:15:00Z"],"description":"At 05:15 and 17:15, every day","warnings":[]}`
	if string(b) != want {
		t.Errorf("\n got %s\nwant %s", b, want)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || len(back.Occurrences) != 3 || !back.Occurrences[0].Equal(res.Occurrences[0]) {
		t.Errorf("round trip: %v %+v", err, back)
	}

	// In a zone: RFC 3339 with the zone's offset, and the zone in the description.
	res = preview(t, jobJSON("2024-05-01T00:00:00", `{"frequency":"month","timeZone":"Europe/Berlin","schedule":{"hours":[5],"minutes":[15],"monthlyOccurrences":[{"day":"friday","occurrence":1},{"day":"friday","occurrence":-1}]}}`), "2024-05-01T10:05:00Z", 2)
	b, _ = json.Marshal(res)
	want = `{"occurrences":["2024-05-03T05:15:00+02:00","2024-05-31T05:15:00+02:00"],"description":"On the first and last Friday of every month at 05:15 (Europe/Berlin)","warnings":[]}`
	if string(b) != want {
		t.Errorf("\n got %s\nwant %s", b, want)
	}
}

// TestPreviewCount checks the default, the maximum and invalid counts.
func TestPreviewCount(t *testing.T) {
	js := jobJSON("2024-05-01T08:00:00Z", `{"frequency":"minute"}`)
	if got := len(preview(t, js, "2024-05-01T10:05:00Z", 0).Occurrences); got != 10 {
		t.Errorf("default: %d", got)
	}
	if got := len(preview(t, js, "2024-05-01T10:05:00Z", 1000).Occurrences); got != 1000 {
		t.Errorf("max: %d", got)
	}
	for n, msg := range map[int]string{1001: "n: 1001 is over the maximum of 1000", -1: "n: -1 is below the minimum of 1"} {
		_, err := Preview(mustParse(t, js), time.Now(), n)
		if ve := problem.As(err); ve == nil || ve.Error() != msg {
			t.Errorf("n=%d: %v", n, err)
		}
	}
}

// TestDecodePreviewRequest checks the HTTP request form with "n" and "now".
func TestDecodePreviewRequest(t *testing.T) {
	def := mustTime(t, "2030-01-01T00:00:00Z")
	req, err := DecodePreviewRequest([]byte(`{"n":3,"now":"2024-05-01T10:05:00Z","properties":{`+action+`,"recurrence":{"frequency":"day"}}}`), def)
	if err != nil || req.N != 3 || !req.Now.Equal(mustTime(t, "2024-05-01T10:05:00Z")) || req.Job.Recurrence.Frequency != jobdef.Day {
		t.Fatalf("%v %+v", err, req)
	}
	req, err = DecodePreviewRequest([]byte(`{`+action+`}`), def)
	if err != nil || req.N != 10 || !req.Now.Equal(def) {
		t.Fatalf("defaults: %v %+v", err, req)
	}
	_, err = DecodePreviewRequest([]byte(`{"n":5000,"now":"yesterday","recurrence":{"frequency":"day","interval":0}}`), def)
	want := strings.Join([]string{
		"n: 5000 is over the maximum of 1000",
		`now: "yesterday" is not an RFC 3339 date-time`,
		"recurrence.interval: 0 is below the minimum of 1",
		"action: is required",
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("\n got %v\nwant %s", err, want)
	}
}

// TestDescriptions covers descriptions beyond the seed rows.
func TestDescriptions(t *testing.T) {
	const now = "2024-05-01T10:05:00Z"
	tests := []struct{ start, rec, want string }{
		{"2024-05-01T08:00:00Z", "", "Once at 2024-05-01 10:05"},
		{"2024-06-01T09:00:00", "", "Once at 2024-06-01 09:00"},
		{"2024-05-01T08:00:00Z", `{"frequency":"minute"}`, "Every minute"},
		{"2024-05-01T08:00:00Z", `{"frequency":"minute","interval":7}`, "Every 7 minutes"},
		{"2024-05-01T08:00:00Z", `{"frequency":"hour","interval":2,"timeZone":"America/Chicago"}`, "Every 2 hours (America/Chicago)"},
		{"2024-05-01T08:42:00Z", `{"frequency":"hour"}`, "Every hour at :42"},
		{"2024-05-01T08:07:00Z", `{"frequency":"hour","interval":3,"timeZone":"Asia/Kolkata"}`, "Every 3 hours at :37 (Asia/Kolkata)"},
		{"2024-05-01T08:42:00Z", `{"frequency":"minute","interval":5}`, "Every 5 minutes"},
		{"2024-05-01T08:00:00Z", `{"frequency":"day"}`, "At 08:00, every day"},
		{"2024-05-01T08:00:30Z", `{"frequency":"day","interval":2}`, "At 08:00:30, every 2 days"},
		{"2024-05-01T08:00:00Z", `{"frequency":"week"}`, "At 08:00 on Wednesday"},
		{"2024-05-01T08:00:00Z", `{"frequency":"week","interval":2,"schedule":{"weekDays":["saturday","sunday","monday"]}}`, "At 08:00 on Monday, Saturday and Sunday, every 2 weeks"},
		{"2024-05-01T08:00:00Z", `{"frequency":"week","schedule":{"weekDays":["monday","tuesday","wednesday","thursday","friday","saturday","sunday"],"hours":[6]}}`, "At 06:00 on every day"},
		{"2024-05-01T08:00:00Z", `{"frequency":"month"}`, "At 08:00 on the first day of every month"},
		{"2024-01-31T09:00:00Z", `{"frequency":"month","interval":3}`, "At 09:00 on the 31st day of every 3 months (the last day in shorter months)"},
		{"2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"minutes":[0],"hours":[6],"monthDays":[-1]},"count":12}`, "At 06:00 on the last day of every month, 12 times"},
		{"2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"monthDays":[-2,13,22]},"endTime":"2024-12-31"}`, "At 08:00 on the 13th, 22nd and second-to-last day of every month, until 2024-12-31 00:00"},
		{"2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"monthDays":[13],"monthlyOccurrences":[{"day":"friday"}],"hours":[9]}}`, "On every Friday that is the 13th day of every month at 09:00"},
		{"2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"monday","occurrence":1},{"day":"friday","occurrence":-1},{"day":"monday","occurrence":3}]}}`, "On the first and third Monday and last Friday of every month at 08:00"},
		{"2024-01-01T18:00:00Z", `{"frequency":"year","schedule":{"months":[11],"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}}`, "On the last Friday of November every year at 18:00"},
		{"2024-02-29T12:00:00Z", `{"frequency":"year"}`, "At 12:00 on the 29th day of February every year (the last day in shorter months)"},
		{"2024-05-01T08:00:00Z", `{"frequency":"year","schedule":{"months":[1,7],"monthDays":[1]}}`, "At 08:00 on the first day of January and July every year"},
		{"2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"minutes":[5,20,50],"hours":[9,10,11]}}`, "At minutes 5, 20 and 50 past every hour, 09:05–11:50"},
		{"2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"minutes":[0,30],"hours":[1,5,9,13]}}`, "At minutes 0 and 30 past every hour, during hours 01, 05, 09 and 13"},
		{"2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"minutes":[5,25,45]}}`, "At 08:05, 08:25 and 08:45, every day"},
		{"2024-05-01T08:00:00Z", `{"frequency":"hour","schedule":{"minutes":[10,40],"hours":[9,10,11,12,13,14,15,16,17]}}`, "At minutes 10 and 40 past every hour, 09:10–17:40"},
		{"2024-05-01T08:00:00Z", `{"frequency":"hour","schedule":{"minutes":[5,20,35,50]}}`, "Every 15 minutes from :05"},
		{"2024-05-01T08:00:00Z", `{"frequency":"minute","schedule":{"hours":[9,10]}}`, "Every minute, 09:00–10:59"},
		{"2024-05-01T08:00:00Z", `{"frequency":"minute","interval":5,"schedule":{"hours":[9,10]}}`, "Every 5 minutes, 09:00–10:59"},
		{"2024-05-01T08:00:00Z", `{"frequency":"hour","interval":3,"schedule":{"minutes":[15]}}`, "Every 3 hours at 15 minutes past"},
		{"2024-05-01T08:00:00Z", `{"frequency":"hour","schedule":{"hours":[9],"minutes":[0]}}`, "At 09:00, every day"},
	}
	for _, tc := range tests {
		job := mustParse(t, jobJSON(tc.start, tc.rec))
		r, err := Compile(job, mustTime(t, now))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Description(); got != tc.want {
			t.Errorf("%s %s\n got %q\nwant %q", tc.start, tc.rec, got, tc.want)
		}
	}
}

// TestWarnings covers each kind of warning of SPEC §3.
func TestWarnings(t *testing.T) {
	tests := []struct {
		name, start, rec, now string
		n                     int
		extra                 string // more job fields
		want                  []string
	}{
		{"none", "2024-05-01T08:00:00Z", `{"frequency":"day"}`, "2024-05-01T10:05:00Z", 3, "", []string{}},
		{"skipped months (monthDays 31)", "2024-01-01T09:00:00Z", `{"frequency":"month","schedule":{"monthDays":[31]}}`, "2024-01-01T00:00:00Z", 4, "",
			[]string{"no occurrence in February 2024, April 2024 and June 2024: those months have no 31st day"}},
		{"skipped months (fifth Friday)", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":5}]}}`, "2024-05-01T10:05:00Z", 3, "",
			[]string{"no occurrence in June 2024, July 2024, September 2024 and 1 more: those months have no fifth Friday"}},
		{"skipped months (anchor day)", "2024-01-31T09:00:00Z", `{"frequency":"month","schedule":{"hours":[6]}}`, "2024-01-01T00:00:00Z", 2, "",
			[]string{"no occurrence in February 2024 and April 2024: those months have no 31st day (the day of the start time)"}},
		{"clamped to the last day", "2024-01-31T09:00:00Z", `{"frequency":"month"}`, "2024-01-01T00:00:00Z", 3, "",
			[]string{"day 31 does not exist in every month: in shorter months the job runs on the last day (e.g. 2024-02-29)"}},
		{"DST gap and merge", "2019-03-10T00:00:00", `{"frequency":"hour","timeZone":"America/Chicago","schedule":{"minutes":[30]}}`, "2019-03-01T00:00:00Z", 4, "",
			[]string{"2019-03-10 02:30 does not exist in America/Chicago (the clocks jump forward): it runs at 03:30 CDT instead, merged with the 03:30 occurrence (it runs once)"}},
		{"DST gap merged into another hour", "2023-03-25T00:00:00", `{"frequency":"day","timeZone":"Europe/Berlin","schedule":{"hours":[2,3],"minutes":[0]}}`, "2023-03-25T12:00:00Z", 2, "",
			[]string{"2023-03-26 02:00 does not exist in Europe/Berlin (the clocks jump forward): it runs at 03:00 CEST instead, merged with the 03:00 occurrence (it runs once)"}},
		{"DST half-hour gap", "2024-10-05T00:00:00", `{"frequency":"day","timeZone":"Australia/Lord_Howe","schedule":{"hours":[2],"minutes":[0,20,30]}}`, "2024-10-05T00:00:00Z", 3, "",
			[]string{
				"2024-10-06 02:00 does not exist in Australia/Lord_Howe (the clocks jump forward): it runs at 02:30 +11 instead, merged with the 02:30 occurrence (it runs once)",
				"2024-10-06 02:20 does not exist in Australia/Lord_Howe (the clocks jump forward): it runs at 02:50 +11 instead",
			}},
		{"DST gap", "2019-03-09T02:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-03-01T00:00:00Z", 3, "",
			[]string{"2019-03-10 02:30 does not exist in America/Chicago (the clocks jump forward): it runs at 03:30 CDT instead"}},
		{"DST overlap", "2019-11-02T01:30:00", `{"frequency":"day","timeZone":"America/Chicago"}`, "2019-11-01T00:00:00Z", 3, "",
			[]string{"2019-11-03 01:30 happens twice in America/Chicago (the clocks fall back): it runs once, at the first (01:30 CDT)"}},
		{"elapsed across DST", "2019-03-10T00:30:00", `{"frequency":"hour","timeZone":"America/Chicago"}`, "2019-03-01T00:00:00Z", 4, "",
			[]string{"Every hour counts elapsed time: after the daylight-saving change in America/Chicago at 2019-03-10 03:00 CDT the runs fall at other wall-clock times"}},
		{"count cut-off and count from now", "2024-04-01T08:00:00Z", `{"frequency":"day","count":3}`, "2024-05-01T10:05:00Z", 10, "",
			[]string{"startTime 2024-04-01T08:00:00Z is in the past: past occurrences do not run, and count 3 counts executions from now on",
				"count 3 ends the job: the last occurrence is 2024-05-04 08:00"}},
		{"endTime cut-off", "2024-05-01T08:00:00Z", `{"frequency":"day","endTime":"2024-05-04"}`, "2024-05-01T10:05:00Z", 10, "",
			[]string{"endTime 2024-05-04 ends the job: the last occurrence is 2024-05-03 08:00"}},
		{"endTime in the past", "2024-04-01T08:00:00Z", `{"frequency":"day","endTime":"2024-04-10"}`, "2024-05-01T10:05:00Z", 10, "",
			[]string{"endTime 2024-04-10 is in the past: the job has no future occurrence and is created completed"}},
		{"endTime before the first occurrence", "2024-06-01T08:00:00Z", `{"frequency":"day","endTime":"2024-05-20"}`, "2024-05-01T10:05:00Z", 10, "",
			[]string{"endTime 2024-05-20 comes before the first occurrence: the job has no future occurrence"}},
		{"never", "2024-01-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2],"monthDays":[30]}}`, "2024-01-01T00:00:00Z", 10, "",
			[]string{"the schedule never occurs: no date in the calendar matches it, so the job has no future occurrence"}},
		{"end of the calendar", "9999-12-30T00:00:00Z", `{"frequency":"day"}`, "9999-12-30T00:00:00Z", 10, "",
			[]string{"the schedule has no occurrence after 9999-12-31 00:00"}},
		{"one-time in the past", "2024-04-01T08:00:00Z", "", "2024-05-01T10:05:00Z", 10, "",
			[]string{"startTime 2024-04-01T08:00:00Z is in the past: the job runs once, immediately"}},
		{"disabled", "2024-05-01T08:00:00Z", `{"frequency":"day"}`, "2024-05-01T10:05:00Z", 2, `,"state":"disabled"`,
			[]string{"the job is disabled: these occurrences run only once it is enabled (re-enabling computes them from that moment)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js := jobJSON(tc.start, tc.rec)
			js = js[:len(js)-1] + tc.extra + "}"
			res := preview(t, js, tc.now, tc.n)
			if strings.Join(res.Warnings, "\n") != strings.Join(tc.want, "\n") || res.Warnings == nil {
				t.Errorf("\n got %q\nwant %q", res.Warnings, tc.want)
			}
		})
	}
}
