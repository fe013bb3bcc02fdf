package jobdef

import (
	"sked/models/problem"
	"strings"
	"testing"
	"time"
)

const testAction = `"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}}`

// TestParseShapes checks that the flat and the ARM shape give the same job.
func TestParseShapes(t *testing.T) {
	props := `"startTime":"2012-08-04T00:00Z",` + testAction + `,
		"recurrence":{"frequency":"Week","interval":1,"schedule":{"weekDays":["Monday","wednesday","FRIDAY","monday"],"hours":[10,22]},
		"count":10,"endTime":"2012-11-04"},"state":"Disabled",
		"status":{"lastExecutionTime":"2007-03-01T13:00:00Z","executionCount":3},"unknownField":true`
	flat, err := Parse([]byte("{" + props + "}"))
	if err != nil {
		t.Fatalf("flat: %v", err)
	}
	arm, err := Parse([]byte(`{"id":"/subscriptions/s/resourceGroups/g/providers/Microsoft.Scheduler/jobCollections/c/jobs/j",
		"name":"c/j","type":"Microsoft.Scheduler/jobCollections/jobs","properties":{` + props + `}}`))
	if err != nil {
		t.Fatalf("arm: %v", err)
	}
	if flat.Shape != ShapeFlat || arm.Shape != ShapeARM || arm.Name != "c/j" {
		t.Errorf("shapes: %v %v %q", flat.Shape, arm.Shape, arm.Name)
	}
	for _, j := range []*Job{flat, arm} {
		if j.StartTime == nil || !j.StartTime.HasOffset || !j.StartTime.Time.Equal(time.Date(2012, 8, 4, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("startTime: %+v", j.StartTime)
		}
		r := j.Recurrence
		if r.Frequency != Week || r.Interval != 1 || r.Count != 10 || !r.EndTime.DateOnly || r.EndTime.Raw != "2012-11-04" {
			t.Errorf("recurrence: %+v", r)
		}
		if got := r.Schedule.WeekDays; len(got) != 3 || got[0] != time.Monday || got[1] != time.Wednesday || got[2] != time.Friday {
			t.Errorf("weekDays (de-duplicated): %v", got)
		}
		if j.State != Disabled || j.MisfirePolicy != MisfireSkip || j.Concurrency != ConcurrencyAllow {
			t.Errorf("defaults: %v %v %v", j.State, j.MisfirePolicy, j.Concurrency)
		}
		if j.Action.Type != "http" || j.Action.Timeout != DefaultTimeout || j.Location() != time.UTC {
			t.Errorf("action: %q %v %v", j.Action.Type, j.Action.Timeout, j.Location())
		}
	}
}

// TestParseValues checks typed values and the accepted spellings.
func TestParseValues(t *testing.T) {
	job, err := Parse([]byte(`{"action":{"type":"HTTPS","request":{"uri":"https://example.com/","method":"post"},"timeout":"PT90S",
		"errorAction":{"type":"http","request":{"uri":"http://example.com/e","method":"GET"},"timeout":"PT2M"}},
		"startTime":"2024-05-01T09:30:15.250+02:00","misfirePolicy":"RUNONCE","concurrency":"Forbid",
		"recurrence":{"frequency":"YEAR","schedule":{"minutes":5,"hours":[1,1,2],"months":12,"monthDays":[-1,1],
		"monthlyOccurrences":[{"day":"Friday","Occurrence":-1},{"day":"sunday"},{"day":"friday","occurrence":-1}]},
		"timeZone":"W. Europe Standard Time"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if job.Action.Timeout != 90*time.Second || job.Action.ErrorAction == nil || job.Action.ErrorAction.Timeout != 2*time.Minute {
		t.Errorf("timeouts: %+v", job.Action)
	}
	if job.MisfirePolicy != MisfireRunOnce || job.Concurrency != ConcurrencyForbid {
		t.Errorf("policies: %v %v", job.MisfirePolicy, job.Concurrency)
	}
	if want := time.Date(2024, 5, 1, 7, 30, 15, 250e6, time.UTC); !job.StartTime.Time.Equal(want) {
		t.Errorf("startTime %v, want %v", job.StartTime.Time, want)
	}
	s := job.Recurrence.Schedule
	if len(s.Minutes) != 1 || s.Minutes[0] != 5 || len(s.Hours) != 2 || len(s.Months) != 1 || len(s.MonthDays) != 2 {
		t.Errorf("schedule: %+v", s)
	}
	if len(s.MonthlyOccurrences) != 2 || s.MonthlyOccurrences[0] != (MonthlyOccurrence{time.Friday, -1}) ||
		s.MonthlyOccurrences[1] != (MonthlyOccurrence{time.Sunday, 0}) {
		t.Errorf("monthlyOccurrences: %+v", s.MonthlyOccurrences)
	}
	if got := job.Location().String(); got != "Europe/Berlin" || job.Recurrence.TimeZone != "W. Europe Standard Time" {
		t.Errorf("zone %q", got)
	}
	for _, alias := range []string{"monthly", "Daily", "minute"} {
		if _, err := Parse([]byte(`{` + testAction + `,"recurrence":{"frequency":"` + alias + `"}}`)); err != nil {
			t.Errorf("frequency %q: %v", alias, err)
		}
	}
	empty, err := Parse([]byte(`{` + testAction + `,"recurrence":{"frequency":"day","schedule":{}}}`))
	if err != nil || empty.Recurrence.Schedule != nil {
		t.Errorf("empty schedule should be no schedule: %v %+v", err, empty.Recurrence)
	}
}

// TestDateTimeFormats checks the ISO 8601 forms accepted for startTime/endTime.
func TestDateTimeFormats(t *testing.T) {
	good := map[string]string{
		"2012-08-04T00:00Z":         "2012-08-04T00:00:00Z",
		"2013-01-09T09:30:00-08:00": "2013-01-09T17:30:00Z",
		"2013-01-09T09:30:00+0530":  "2013-01-09T04:00:00Z",
		"2013-01-09T09:30:00+05":    "2013-01-09T04:30:00Z",
		"2013-01-09 09:30:00Z":      "2013-01-09T09:30:00Z",
		"2024-02-29T23:59:59.9Z":    "2024-02-29T23:59:59.9Z",
		"2015-07-13T14:00:00":       "2015-07-13T14:00:00Z",
		"2012-11-04":                "2012-11-04T00:00:00Z",
	}
	for in, want := range good {
		d, err := ParseDateTime(in, true)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := d.Time.UTC().Format(time.RFC3339Nano); got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
	}
	for _, in := range []string{"", "2023-02-29", "2024-13-01", "2024-01-01T24:00Z", "2024-01-01T10:60Z",
		"24-01-01", "2024-01-01T10", "2024-01-01T10:00:00+25:00", "2024-01-01T10:00:00Zjunk", "tomorrow", "2024-01-01T10:00:00."} {
		if _, err := ParseDateTime(in, true); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
	if _, err := ParseDateTime("2024-01-01", false); err == nil {
		t.Error("date-only accepted where a time is required")
	}
}

// TestISODurations checks the duration parser.
func TestISODurations(t *testing.T) {
	good := map[string]time.Duration{"PT60S": time.Minute, "PT1M30S": 90 * time.Second, "PT0.5S": 500 * time.Millisecond,
		"P1D": 24 * time.Hour, "P1DT2H": 26 * time.Hour, "pt10m": 10 * time.Minute, "P1W": 7 * 24 * time.Hour}
	for in, want := range good {
		if got, err := ParseISODuration(in); err != nil || got != want {
			t.Errorf("%q: got %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "P", "PT", "60S", "PT5X", "P1H", "-PT5S", "PTS", "PT1.2.3S", "P1DTT"} {
		if _, err := ParseISODuration(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestValidationMessages checks every validation message, and that all
// problems are reported at once.
func TestValidationMessages(t *testing.T) {
	tests := []struct {
		name, json string
		want       []string
	}{
		{"not JSON", `{"action":`, []string{"job: not valid JSON: unexpected end of JSON input (at byte 10)"}},
		{"not an object", `[1,2]`, []string{"job: must be a JSON object, not an array"}},
		{"properties not an object", `{"properties":"x"}`, []string{"properties: must be an object, not a string"}},
		{"too large", `{"action":{"type":"http","body":"` + strings.Repeat("x", MaxJobBytes) + `"}}`,
			[]string{"job: the job JSON is 16036 bytes, over the maximum of 16000"}},
		{"action missing", `{}`, []string{"action: is required"}},
		{"action null", `{"action":null}`, []string{"action: is required"}},
		{"action wrong type", `{"action":"http"}`, []string{"action: must be an object, not a string"}},
		{"action type missing", `{"action":{}}`, []string{"action.type: is required"}},
		{"action type empty", `{"action":{"type":""}}`, []string{"action.type: is required"}},
		{"action type not a string", `{"action":{"type":3}}`, []string{"action.type: must be a string, not a number"}},
		{"timeouts", `{"action":{"type":"http","request":{"uri":"http://x.example/","method":"GET"},"timeout":"PT20M","errorAction":{"type":"http","request":{"uri":"http://x.example/","method":"GET"},"timeout":"soon"}}}`, []string{
			`action.timeout: "PT20M" is over the maximum of PT10M`,
			`action.errorAction.timeout: "soon" is not an ISO 8601 duration (e.g. PT30S)`}},
		{"timeout zero and wrong type", `{"action":{"type":"http","request":{"uri":"http://x.example/","method":"GET"},"timeout":"PT0S","errorAction":{"type":"http","request":{"uri":"http://x.example/","method":"GET"},"timeout":30}}}`, []string{
			`action.timeout: "PT0S" must be longer than zero`,
			`action.errorAction.timeout: must be a string, not a number`}},
		{"errorAction not an object", `{"action":{"type":"http","request":{"uri":"http://x.example/","method":"GET"},"errorAction":[]}}`, []string{"action.errorAction: must be an object, not an array"}},
		{"startTime", `{` + testAction + `,"startTime":"next week"}`, []string{`startTime: "next week" is not an ISO 8601 date-time (e.g. 2024-05-01T09:30:00Z)`}},
		{"startTime type", `{` + testAction + `,"startTime":20240501}`, []string{`startTime: must be a string, not a number`}},
		{"state", `{` + testAction + `,"state":"paused"}`, []string{`state: "paused" is not one of enabled, disabled`}},
		{"misfirePolicy and concurrency", `{` + testAction + `,"misfirePolicy":"later","concurrency":true}`, []string{
			`misfirePolicy: "later" is not one of skip, runOnce`, `concurrency: must be a string, not a boolean`}},
		{"concurrency value", `{` + testAction + `,"concurrency":"never"}`, []string{`concurrency: "never" is not one of allow, forbid`}},
		{"recurrence type", `{` + testAction + `,"recurrence":[]}`, []string{"recurrence: must be an object, not an array"}},
		{"frequency missing", `{` + testAction + `,"recurrence":{"interval":2}}`, []string{"recurrence.frequency: is required"}},
		{"frequency unknown", `{` + testAction + `,"recurrence":{"frequency":"fortnight"}}`, []string{
			`recurrence.frequency: "fortnight" is not one of second, minute, hour, day, week, month, year`}},
		{"frequency type", `{` + testAction + `,"recurrence":{"frequency":7}}`, []string{"recurrence.frequency: must be a string, not a number"}},
		{"interval over the maximum", `{` + testAction + `,"recurrence":{"frequency":"minute","interval":2000}}`, []string{
			`recurrence.interval: 2000 is over the maximum of 1000 for frequency "minute"`}},
		{"interval maxima", `{` + testAction + `,"recurrence":{"frequency":"Day","interval":549}}`, []string{
			`recurrence.interval: 549 is over the maximum of 548 for frequency "day"`}},
		{"interval week", `{` + testAction + `,"recurrence":{"frequency":"week","interval":79}}`, []string{
			`recurrence.interval: 79 is over the maximum of 78 for frequency "week"`}},
		{"interval month", `{` + testAction + `,"recurrence":{"frequency":"month","interval":19}}`, []string{
			`recurrence.interval: 19 is over the maximum of 18 for frequency "month"`}},
		{"interval year", `{` + testAction + `,"recurrence":{"frequency":"year","interval":2}}`, []string{
			`recurrence.interval: 2 is over the maximum of 1 for frequency "year"`}},
		{"interval hour", `{` + testAction + `,"recurrence":{"frequency":"hour","interval":1001}}`, []string{
			`recurrence.interval: 1001 is over the maximum of 1000 for frequency "hour"`}},
		{"interval zero", `{` + testAction + `,"recurrence":{"frequency":"day","interval":0}}`, []string{"recurrence.interval: 0 is below the minimum of 1"}},
		{"interval fraction", `{` + testAction + `,"recurrence":{"frequency":"day","interval":1.5}}`, []string{"recurrence.interval: 1.5 is not an integer"}},
		{"interval string", `{` + testAction + `,"recurrence":{"frequency":"day","interval":"2"}}`, []string{"recurrence.interval: must be an integer, not a string"}},
		{"interval huge", `{` + testAction + `,"recurrence":{"frequency":"day","interval":1e300}}`, []string{"recurrence.interval: 1e300 is too large"}},
		{"count", `{` + testAction + `,"recurrence":{"frequency":"day","count":0}}`, []string{"recurrence.count: 0 is below the minimum of 1"}},
		{"count negative huge", `{` + testAction + `,"recurrence":{"frequency":"day","count":-99999999999}}`, []string{"recurrence.count: -99999999999 is below the minimum of 1"}},
		{"endTime", `{` + testAction + `,"recurrence":{"frequency":"day","endTime":"2024-02-30"}}`, []string{
			`recurrence.endTime: "2024-02-30" is not an ISO 8601 date or date-time (e.g. 2024-05-01 or 2024-05-01T09:30:00Z)`}},
		{"timeZone", `{` + testAction + `,"recurrence":{"frequency":"day","timeZone":"Mars/Olympus_Mons"}}`, []string{
			`recurrence.timeZone: "Mars/Olympus_Mons" is not a known IANA or Windows time zone`}},
		{"timeZone Local", `{` + testAction + `,"recurrence":{"frequency":"day","timeZone":"Local"}}`, []string{
			`recurrence.timeZone: "Local" is not a known IANA or Windows time zone`}},
		{"schedule type", `{` + testAction + `,"recurrence":{"frequency":"day","schedule":[5]}}`, []string{"recurrence.schedule: must be an object, not an array"}},
		{"weekDays only with week", `{` + testAction + `,"recurrence":{"frequency":"day","schedule":{"weekDays":["monday"]}}}`, []string{
			`recurrence.schedule.weekDays: can only be used with frequency "week"`}},
		{"month elements only with month or year", `{` + testAction + `,"recurrence":{"frequency":"week","schedule":{"monthDays":[1],"monthlyOccurrences":[{"day":"friday"}]}}}`, []string{
			`recurrence.schedule.monthDays: can only be used with frequency "month" or "year"`,
			`recurrence.schedule.monthlyOccurrences: can only be used with frequency "month" or "year"`}},
		{"months only with year", `{` + testAction + `,"recurrence":{"frequency":"month","schedule":{"months":[1]}}}`, []string{
			`recurrence.schedule.months: can only be used with frequency "year"`}},
		{"element ranges", `{` + testAction + `,"recurrence":{"frequency":"year","schedule":{"minutes":[0,60],"hours":24,"monthDays":[0,32,-32],"months":[13]}}}`, []string{
			"recurrence.schedule.minutes[1]: 60 is out of range (0 to 59)",
			"recurrence.schedule.hours: 24 is out of range (0 to 23)",
			"recurrence.schedule.monthDays[0]: 0 is out of range (1 to 31, or -31 to -1 counting from the end)",
			"recurrence.schedule.monthDays[1]: 32 is out of range (1 to 31, or -31 to -1 counting from the end)",
			"recurrence.schedule.monthDays[2]: -32 is out of range (1 to 31, or -31 to -1 counting from the end)",
			"recurrence.schedule.months[0]: 13 is out of range (1 to 12)"}},
		{"element types", `{` + testAction + `,"recurrence":{"frequency":"hour","schedule":{"minutes":"5","hours":[1,"2",2.5,1e99]}}}`, []string{
			"recurrence.schedule.minutes: must be an integer or an array of integers, not a string",
			"recurrence.schedule.hours[1]: must be an integer, not a string",
			"recurrence.schedule.hours[2]: 2.5 is not an integer",
			"recurrence.schedule.hours[3]: 1e99 is out of range (0 to 23)"}},
		{"weekDays values", `{` + testAction + `,"recurrence":{"frequency":"week","schedule":{"weekDays":["funday",1]}}}`, []string{
			`recurrence.schedule.weekDays[0]: "funday" is not a day of the week (sunday to saturday)`,
			`recurrence.schedule.weekDays[1]: must be a day name such as "monday", not a number`}},
		{"weekDays type and size", `{` + testAction + `,"recurrence":{"frequency":"week","schedule":{"weekDays":{"day":"monday"}}}}`, []string{
			"recurrence.schedule.weekDays: must be a day name or an array of day names, not an object"}},
		{"weekDays more than 7", `{` + testAction + `,"recurrence":{"frequency":"week","schedule":{"weekDays":["monday","tuesday","wednesday","thursday","friday","saturday","sunday","monday"]}}}`, []string{
			"recurrence.schedule.weekDays: 8 days given, at most 7"}},
		{"monthlyOccurrences", `{` + testAction + `,"recurrence":{"frequency":"month","schedule":{"monthlyOccurrences":[{"occurrence":1},{"day":"friday","occurrence":0},{"day":"friday","Occurrence":6},{"day":"friday","occurrence":"1"},5]}}}`, []string{
			"recurrence.schedule.monthlyOccurrences[0].day: is required",
			"recurrence.schedule.monthlyOccurrences[1].occurrence: 0 is out of range (1 to 5, or -1 to -5 counting from the end)",
			"recurrence.schedule.monthlyOccurrences[2].occurrence: 6 is out of range (1 to 5, or -1 to -5 counting from the end)",
			"recurrence.schedule.monthlyOccurrences[3].occurrence: must be an integer, not a string",
			`recurrence.schedule.monthlyOccurrences[4]: must be an object {"day", "occurrence"}, not a number`}},
		{"monthlyOccurrences type", `{` + testAction + `,"recurrence":{"frequency":"month","schedule":{"monthlyOccurrences":"friday"}}}`, []string{
			`recurrence.schedule.monthlyOccurrences: must be an array of {"day", "occurrence"} objects, not a string`}},
		{"all at once", `{"recurrence":{"frequency":"minute","interval":2000,"count":0,"schedule":{"weekDays":["monday"]}},"state":"on"}`, []string{
			`recurrence.interval: 2000 is over the maximum of 1000 for frequency "minute"`,
			"recurrence.count: 0 is below the minimum of 1",
			`recurrence.schedule.weekDays: can only be used with frequency "week"`,
			`state: "on" is not one of enabled, disabled`,
			"action: is required"}},
		{"window too long", `{` + testAction + `,"recurrence":{"frequency":"day","window":"PT2H"}}`, []string{
			`recurrence.window: "PT2H" is over the maximum of PT1H`}},
		{"window negative", `{` + testAction + `,"recurrence":{"frequency":"day","window":"-PT5M"}}`, []string{
			`recurrence.window: "-PT5M" is negative: give PT0S to PT1H`}},
		{"window garbage", `{` + testAction + `,"recurrence":{"frequency":"day","window":"5 minutes"}}`, []string{
			`recurrence.window: "5 minutes" is not an ISO 8601 duration (e.g. PT5M)`}},
		{"window fraction", `{` + testAction + `,"recurrence":{"frequency":"day","window":"PT1.5S"}}`, []string{
			`recurrence.window: "PT1.5S" is not a whole number of seconds`}},
		{"window type", `{` + testAction + `,"recurrence":{"frequency":"day","window":300}}`, []string{
			`recurrence.window: must be a string, not a number`}},
		{"ARM paths are relative to properties", `{"properties":{"recurrence":{"frequency":"day","schedule":{"weekDays":"monday"}}}}`, []string{
			`recurrence.schedule.weekDays: can only be used with frequency "week"`, "action: is required"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job, err := Parse([]byte(tc.json))
			if err == nil {
				t.Fatalf("accepted: %+v", job)
			}
			ve := problem.As(err)
			if ve == nil {
				t.Fatalf("not a *problem.List: %T %v", err, err)
			}
			if got, want := ve.Error(), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestRecurrenceWindow: recurrence.window is read, kept as given and
// written back; absent is zero.
func TestRecurrenceWindow(t *testing.T) {
	for _, tc := range []struct {
		window string
		want   time.Duration
	}{{"PT5M", 5 * time.Minute}, {"PT0S", 0}, {"PT1H", time.Hour}, {"pt90s", 90 * time.Second}, {"", 0}} {
		rec := `{"frequency":"day"}`
		if tc.window != "" {
			rec = `{"frequency":"day","window":"` + tc.window + `"}`
		}
		job, err := Parse([]byte(`{` + testAction + `,"recurrence":` + rec + `}`))
		if err != nil {
			t.Fatalf("%q: %v", tc.window, err)
		}
		if job.Recurrence.Window != tc.want || job.Recurrence.WindowText != tc.window {
			t.Errorf("%q: window %v %q, want %v", tc.window, job.Recurrence.Window, job.Recurrence.WindowText, tc.want)
		}
		out := string(job.MarshalProperties(MarshalOptions{}))
		if has := strings.Contains(out, `"window":"`+tc.window+`"`); has != (tc.window != "") {
			t.Errorf("%q: marshalled %s", tc.window, out)
		}
	}
}

// TestWindowsZones checks that every Windows zone maps to a loadable IANA
// zone (with the embedded tzdata) and that lookups ignore case.
func TestWindowsZones(t *testing.T) {
	names := WindowsZoneNames()
	if len(names) < 130 {
		t.Errorf("only %d Windows zones", len(names))
	}
	for win, iana := range names {
		loc, err := LoadZone(win)
		if err != nil {
			t.Errorf("%q → %q: %v", win, iana, err)
			continue
		}
		if loc.String() != iana && !(win == "UTC" && loc == time.UTC) {
			t.Errorf("%q → %q, loaded %q", win, iana, loc.String())
		}
	}
	if loc, err := LoadZone("central standard time"); err != nil || loc.String() != "America/Chicago" {
		t.Errorf("case-insensitive Windows name: %v %v", loc, err)
	}
	if loc, err := LoadZone("Europe/Berlin"); err != nil || loc.String() != "Europe/Berlin" {
		t.Errorf("IANA: %v %v", loc, err)
	}
}

// TestParseDeepNesting checks that absurd inputs fail cleanly.
func TestParseDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	for _, in := range []string{deep, `{"action":` + deep[:7000] + `}`, `{"recurrence":{"frequency":"hour","schedule":{"minutes":` + deep[:4000] + `}}}`, "", "null", `"x"`} {
		if len(in) > MaxJobBytes {
			in = in[:MaxJobBytes]
		}
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("accepted %.40q", in)
		}
	}
}

func TestStateNote(t *testing.T) {
	base := `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"state":"disabled",`
	long := strings.Repeat("é", MaxStateNote)
	for _, tc := range []struct {
		name, note, want, problem string
	}{
		{"plain", `"  waiting for the vendor's maintenance "`, "waiting for the vendor's maintenance", ""},
		{"500 characters", `"` + long + `"`, long, ""},
		{"501 characters", `"` + long + `x"`, "", "stateNote: is 501 characters long, over the maximum of 500"},
		{"line break", `"a\nb"`, "", "stateNote: may not hold control characters or line breaks (found U+000A)"},
		{"tab", `"a\tb"`, "", "stateNote: may not hold control characters or line breaks (found U+0009)"},
		{"not a string", `42`, "", "stateNote: must be a string, not a number"},
		{"null", `null`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := Parse([]byte(base + `"stateNote":` + tc.note + `}`))
			if tc.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("Parse = %v, want %q", err, tc.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if j.StateNote != tc.want {
				t.Errorf("StateNote = %q, want %q", j.StateNote, tc.want)
			}
			out := string(j.MarshalProperties(MarshalOptions{}))
			if tc.want != "" && !strings.Contains(out, `"stateNote":`) {
				t.Errorf("MarshalProperties = %s, want the note", out)
			}
		})
	}
}
