package jobdef

import (
	"encoding/json"
	"sked/models/problem"

	"strings"
	"testing"
)

// all60 and all31 are the lists every minute and every day of the month
// convert to.
var all60, all31 = intsJSON(0, 59), intsJSON(1, 31)

func intsJSON(lo, hi int) string {
	b, _ := json.Marshal(intRange(lo, hi))
	return string(b)
}

// cronTable lists crontab lines with the recurrence JSON they convert to, or
// "!" and the reason they are refused. Every field form is here: *, ?,
// values, names (any case), lists, ranges, steps (*/n, a-b/n, a/n), 0 and 7
// for Sunday, L, L-n, nL, n#k, the nicknames and CRON_TZ=. "*/7" in the
// minute field converts exactly to minutes 0,7,…,56 (cron restarts the step
// every hour, so does the list).
var cronTable = []struct{ line, want string }{
	{"15 5 * * 1-5", `{"frequency":"week","interval":1,"schedule":{"minutes":[15],"hours":[5],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}}`},
	{"*/7 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0,7,14,21,28,35,42,49,56]}}`},
	{"* * * * *", `{"frequency":"minute","interval":1,"schedule":{"minutes":` + all60 + `}}`},
	{"0 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0]}}`},
	{"*/15 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0,15,30,45]}}`},
	{"10-50/10 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[10,20,30,40,50]}}`},
	{"5/15 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[5,20,35,50]}}`},
	{"0,30 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0,30]}}`},
	{"0-5,55-59 * * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0,1,2,3,4,5,55,56,57,58,59]}}`},
	{"*/1 * * * *", `{"frequency":"minute","interval":1,"schedule":{"minutes":` + all60 + `}}`},
	{"0 */2 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[0,2,4,6,8,10,12,14,16,18,20,22]}}`},
	{"30 9-17 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[30],"hours":[9,10,11,12,13,14,15,16,17]}}`},
	{"0 9-17/4 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[9,13,17]}}`},
	{"0 22/1 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[22,23]}}`},
	{"45 23 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[45],"hours":[23]}}`},
	{"* 9 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":` + all60 + `,"hours":[9]}}`},
	{"0 0-23 * * *", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0]}}`},
	{"0 0 * * 0", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[0],"weekDays":["sunday"]}}`},
	{"0 0 * * 7", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[0],"weekDays":["sunday"]}}`},
	{"0 0 * * 0,7", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[0],"weekDays":["sunday"]}}`},
	{"0 12 * * MON-FRI", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}}`},
	{"0 12 * * mon,wed,Fri", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["monday","wednesday","friday"]}}`},
	{"0 12 * * SAT-SUN", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["saturday","sunday"]}}`},
	{"0 12 * * 5-0", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["friday","saturday","sunday"]}}`},
	{"-5 * * * *", `!minute "-5": a range needs a start and an end (e.g. 1-5)`},
	{"0 12 * * 6-7", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["saturday","sunday"]}}`},
	{"0 12 * * */2", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["tuesday","thursday","saturday","sunday"]}}`},
	{"0 12 * * 1/2", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[12],"weekDays":["monday","wednesday","friday"]}}`},
	{"0 12 * * 0-6", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[12]}}`},
	{"0 12 * * ?", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[12]}}`},
	{"0 6 1 * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[1]}}`},
	{"0 6 1,15 * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[1,15]}}`},
	{"0 6 */10 * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[1,11,21,31]}}`},
	{"0 6 1-31 * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[6]}}`},
	{"0 6 31 * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[31]}}`},
	{"0 6 L * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[-1]}}`},
	{"0 6 L-2 * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[-3]}}`},
	{"0 6 1,L * *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthDays":[1,-1]}}`},
	{"0 6 ? * 5L", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[6],"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}}`},
	{"0 9 * * 5L", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[9],"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}}`},
	{"0 9 * * FRI#3", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[9],"monthlyOccurrences":[{"day":"friday","occurrence":3}]}}`},
	{"0 9 * * 5#3", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[9],"monthlyOccurrences":[{"day":"friday","occurrence":3}]}}`},
	{"0 9 * * 1#1,5#1", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[9],"monthlyOccurrences":[{"day":"monday","occurrence":1},{"day":"friday","occurrence":1}]}}`},
	{"0 9 * * 1,5#3", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[9],"monthlyOccurrences":[{"day":"monday"},{"day":"friday","occurrence":3}]}}`},
	{"0 9 * * 0#5", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[9],"monthlyOccurrences":[{"day":"sunday","occurrence":5}]}}`},
	{"0 0 1 1 *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1],"months":[1]}}`},
	{"0 0 1 JAN *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1],"months":[1]}}`},
	{"0 0 25 dec *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[25],"months":[12]}}`},
	{"0 0 * 6-8 *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":` + all31 + `,"months":[6,7,8]}}`},
	{"0 0 L 2 *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[-1],"months":[2]}}`},
	{"0 0 29 2 *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[29],"months":[2]}}`},
	{"0 0 1 */3 *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1],"months":[1,4,7,10]}}`},
	{"0 0 1 jan-mar/2 *", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1],"months":[1,3]}}`},
	{"30 8 * 11 5L", `{"frequency":"year","interval":1,"schedule":{"minutes":[30],"hours":[8],"monthlyOccurrences":[{"day":"friday","occurrence":-1}],"months":[11]}}`},
	{"0 0 * 1 MON", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthlyOccurrences":[{"day":"monday"}],"months":[1]}}`},
	{"0 0 1 1-12 *", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1]}}`},
	{"@yearly", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1],"months":[1]}}`},
	{"@annually", `{"frequency":"year","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1],"months":[1]}}`},
	{"@monthly", `{"frequency":"month","interval":1,"schedule":{"minutes":[0],"hours":[0],"monthDays":[1]}}`},
	{"@weekly", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[0],"weekDays":["sunday"]}}`},
	{"@daily", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[0]}}`},
	{"@midnight", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[0]}}`},
	{"@hourly", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0]}}`},
	{"@HOURLY", `{"frequency":"hour","interval":1,"schedule":{"minutes":[0]}}`},
	{"CRON_TZ=Europe/Berlin 0 5 * * *", `{"frequency":"day","interval":1,"schedule":{"minutes":[0],"hours":[5]},"timeZone":"Europe/Berlin"}`},
	{"TZ=America/New_York 0 9 * * 1-5", `{"frequency":"week","interval":1,"schedule":{"minutes":[0],"hours":[9],"weekDays":["monday","tuesday","wednesday","thursday","friday"]},"timeZone":"America/New_York"}`},
	{"0 0 1 * 1", `!standard cron runs when day-of-month OR day-of-week matches ("0 0 1 * 1": day-of-month 1 or day-of-week 1); a recurrence can only require both: use two jobs, one per field`},
	{"0 0 */2 * 1", `!standard cron runs when day-of-month OR day-of-week matches ("0 0 */2 * 1": day-of-month */2 or day-of-week 1); a recurrence can only require both: use two jobs, one per field`},
	{"0 0 L * 5", `!standard cron runs when day-of-month OR day-of-week matches ("0 0 L * 5": day-of-month L or day-of-week 5); a recurrence can only require both: use two jobs, one per field`},
	{"0 0 1-31 * 1", `!standard cron runs when day-of-month OR day-of-week matches ("0 0 1-31 * 1": day-of-month 1-31 or day-of-week 1); a recurrence can only require both: use two jobs, one per field`},
	{"0 0 15W * *", `!day-of-month "15W": W (the nearest weekday) is not supported: a recurrence cannot move a day to the nearest weekday`},
	{"0 0 LW * *", `!day-of-month "LW": W (the nearest weekday) is not supported: a recurrence cannot move a day to the nearest weekday`},
	{"0 0 0 * * *", `!has 6 fields: seconds (or year) fields are not supported, a job runs on whole minutes; write the five fields minute hour day-of-month month day-of-week`},
	{"0 0 0 * * * 2025", `!has 7 fields: seconds (or year) fields are not supported, a job runs on whole minutes; write the five fields minute hour day-of-month month day-of-week`},
	{"0 0 * *", `!has 4 fields; a cron line has five: minute hour day-of-month month day-of-week`},
	{"@reboot", `!@reboot runs when cron starts, not at a time of day: a schedule cannot express it`},
	{"@every 5m", `!@every counts from when cron started: use frequency minute or hour with an interval and a startTime instead`},
	{"@fortnightly", `!"@fortnightly" is not a cron nickname (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)`},
	{"60 * * * *", `!minute "60": 60 is out of range 0–59`},
	{"* 24 * * *", `!hour "24": 24 is out of range 0–23`},
	{"0 0 0 * *", `!day-of-month "0": 0 is out of range 1–31`},
	{"0 0 1 13 *", `!month "13": 13 is out of range 1–12`},
	{"0 0 * * 8", `!day-of-week "8": 8 is out of range 0–7`},
	{"0 0 * * 5#6", `!day-of-week "5#6": #n needs n between 1 and 5 (the n-th such day of the month)`},
	{"0 0 * * 5#0", `!day-of-week "5#0": #n needs n between 1 and 5 (the n-th such day of the month)`},
	{"0 0 * * L", `!day-of-week "L": L alone means Saturday in Quartz and nothing in standard cron: write SAT, or 6L for the last Saturday of the month`},
	{"0 0 30 2 *", `!never runs: there is no day 30 in February`},
	{"0 0 31 4,6,9,11 *", `!never runs: there is no day 31 in April or June or September or November`},
	{"? * * * *", `!minute "?": ? is only meaningful in day-of-month or day-of-week`},
	{"*/0 * * * *", `!minute "*/0": the step after / must be a whole number of at least 1`},
	{"5-1 * * * *", `!minute "5-1": the range runs backwards; write it as two ranges (e.g. 22-23,0-2 for hours)`},
	{"0 0 * FOO *", `!month "FOO": "FOO" is not a number or a month name (JAN–DEC)`},
	{"0 0 1,,2 * *", `!day-of-month: empty item in a list (two commas, or a trailing comma)`},
	{"0 0 * * MON-WED#2", `!day-of-week "MON-WED#2": "MON-WED" is not a number or a day name (SUN–SAT)`},
	{"0 0 5L * *", `!day-of-month "5L": L and # are only allowed in day-of-month (L, L-3) and day-of-week (5L, 5#3)`},
	{"0 5 * * * CRON_TZ=Mars/Olympus", `!has 6 fields: seconds (or year) fields are not supported, a job runs on whole minutes; write the five fields minute hour day-of-month month day-of-week`},
	{"CRON_TZ=Mars/Olympus 0 5 * * *", `!CRON_TZ=Mars/Olympus: "Mars/Olympus" is not a known IANA or Windows time zone`},
	{"-5 * * * *", `!minute "-5": a range needs a start and an end (e.g. 1-5)`},
}

// TestCronTable checks every line of cronTable.
func TestCronTable(t *testing.T) {
	if len(cronTable) < 60 {
		t.Fatalf("the table has %d lines; the issue asks for at least 60", len(cronTable))
	}
	for _, tc := range cronTable {
		got, err := CronRecurrenceJSON(tc.line)
		if reason, refused := strings.CutPrefix(tc.want, "!"); refused {
			if err == nil {
				t.Errorf("%q: converted to %s, want refused: %s", tc.line, got, reason)
			} else if err.Error() != reason {
				t.Errorf("%q: refused with\n %s\nwant\n %s", tc.line, err, reason)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: refused: %v", tc.line, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.line, got, tc.want)
		}
	}
}

// cronJob is a flat job whose recurrence is rec.
func cronJob(rec string) []byte {
	return []byte(`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"startTime":"2026-01-01T00:00:00Z","recurrence":` + rec + `}`)
}

// TestCronInJobs checks recurrence.cron inside a job: the parsed job holds
// the converted recurrence (count, endTime and timeZone kept), its canonical
// JSON has no cron, and mixing cron with frequency/schedule/interval, a
// refused line or a wrong type is a problem naming recurrence.cron.
func TestCronInJobs(t *testing.T) {
	job, err := Parse([]byte(`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"recurrence":{"cron":"15 5 * * 1-5","timeZone":"Europe/Berlin","count":10,"endTime":"2027-01-01"}}`))
	if err != nil {
		t.Fatal(err)
	}
	props := string(job.MarshalProperties(MarshalOptions{}))
	want := `"recurrence":{"frequency":"week","interval":1,"count":10,"endTime":"2027-01-01","schedule":{"minutes":[15],"hours":[5],"weekDays":["monday","tuesday","wednesday","thursday","friday"]},"timeZone":"Europe/Berlin"}`
	if !strings.Contains(props, want) || strings.Contains(props, "cron") {
		t.Fatalf("stored %s\nwant it to contain %s", props, want)
	}
	// Without a startTime a cron job starts at CronStart (it must not also
	// run at creation); a given startTime stays.
	if !strings.HasPrefix(props, `{"startTime":"2000-01-01T00:00:00",`) {
		t.Errorf("startTime of a cron job without one: %s", props)
	}
	withStart := `{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"startTime":"2026-01-01T00:00:00Z","recurrence":{"cron":"@daily"}}`
	if job, err := Parse([]byte(withStart)); err != nil || job.StartTime.Raw != "2026-01-01T00:00:00Z" {
		t.Errorf("given startTime: %+v %v", job, err)
	}
	if job, err = Parse(cronJob(`{"cron":"0 9 * * *","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`)); err != nil ||
		job.Recurrence.Calendars == nil || job.Recurrence.Frequency != Day {
		t.Fatalf("cron with calendars: %+v %v", job, err)
	}
	if job, err = Parse(cronJob(`{"Cron":"CRON_TZ=Asia/Tokyo @daily"}`)); err != nil || job.Recurrence.TimeZone != "Asia/Tokyo" || job.Recurrence.Frequency != Day {
		t.Fatalf("CRON_TZ: %+v %v", job, err)
	}
	for rec, msg := range map[string]string{
		`{"cron":"0 5 * * *","frequency":"day"}`:                     "use either cron or frequency/schedule, not both (frequency given too)",
		`{"cron":"0 5 * * *","schedule":{"hours":[5]},"interval":2}`: "use either cron or frequency/schedule, not both (interval, schedule given too)",
		`{"cron":"0 0 1 * 1"}`:                                       `standard cron runs when day-of-month OR day-of-week matches`,
		`{"cron":5}`:                                                 "must be a string",
		`{"cron":"CRON_TZ=Asia/Tokyo 0 5 * * *","timeZone":"UTC"}`:   "differs from recurrence.timeZone",
	} {
		_, err := Parse(cronJob(rec))
		ve := problem.As(err)
		if ve == nil || len(ve.Problems) != 1 || ve.Problems[0].Path != "recurrence.cron" || !strings.Contains(ve.Problems[0].Message, msg) {
			t.Errorf("%s: got %v, want one problem at recurrence.cron containing %q", rec, err, msg)
		}
	}
	// Other problems of the recurrence are still reported beside the cron's.
	_, err = Parse(cronJob(`{"cron":"@reboot","timeZone":"Mars"}`))
	if ve := problem.As(err); ve == nil || len(ve.Problems) != 2 {
		t.Fatalf("want two problems, got %v", err)
	}
}

// TestCronRoundTrip checks recurrence → cron → recurrence for every line of
// the table that converts, and CronOf on recurrences written by hand.
func TestCronRoundTrip(t *testing.T) {
	n := 0
	for _, tc := range cronTable {
		if strings.HasPrefix(tc.want, "!") {
			continue
		}
		job, err := Parse(cronJob(tc.want))
		if err != nil {
			t.Fatalf("%q: the converted recurrence does not parse: %v", tc.line, err)
		}
		line, ok := CronOf(job.Recurrence)
		if !ok {
			t.Errorf("%q: no cron for %s", tc.line, tc.want)
			continue
		}
		again, err := CronRecurrenceJSON(line)
		if err != nil {
			t.Errorf("%q → %q: refused: %v", tc.line, line, err)
			continue
		}
		var a, b map[string]any
		_ = json.Unmarshal(again, &a)
		_ = json.Unmarshal([]byte(tc.want), &b)
		delete(b, "timeZone")
		if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
			t.Errorf("%q → %q → %s, want %s", tc.line, line, ja, jb)
		}
		n++
	}
	t.Logf("%d lines round-tripped", n)

	for rec, want := range map[string]string{
		`{"frequency":"day","schedule":{"hours":[5,17],"minutes":[15]}}`:                                                                 "15 5,17 * * *",
		`{"frequency":"week","schedule":{"weekDays":["monday","friday"],"hours":9,"minutes":0}}`:                                         "0 9 * * 1,5",
		`{"frequency":"month","schedule":{"monthDays":[-1],"hours":6,"minutes":0}}`:                                                      "0 6 L * *",
		`{"frequency":"month","schedule":{"monthDays":[1,2,3,15],"hours":6,"minutes":0}}`:                                                "0 6 1-3,15 * *",
		`{"frequency":"year","schedule":{"months":[11],"monthlyOccurrences":[{"day":"friday","occurrence":-1}],"hours":8,"minutes":30}}`: "30 8 * 11 5L",
		`{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":3}],"hours":8,"minutes":30}}`:               "30 8 * * 5#3",
		`{"frequency":"hour","schedule":{"minutes":[0,15,30,45]}}`:                                                                       "*/15 * * * *",
		`{"frequency":"minute","schedule":{"hours":[9]}}`:                                                                                "* 9 * * *",
		`{"frequency":"day","schedule":{"hours":[0,2,4,6,8,10,12,14,16,18,20,22],"minutes":[0]}}`:                                        "0 */2 * * *",
	} {
		job, err := Parse(cronJob(rec))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := CronOf(job.Recurrence); !ok || got != want {
			t.Errorf("%s: CronOf = %q, %v; want %q", rec, got, ok, want)
		}
	}
	for _, rec := range []string{
		`{"frequency":"day"}`, // anchor's time
		`{"frequency":"day","interval":2,"schedule":{"hours":5,"minutes":0}}`,                                               // every other day
		`{"frequency":"day","schedule":{"hours":5}}`,                                                                        // anchor's minute
		`{"frequency":"week","schedule":{"hours":5,"minutes":0}}`,                                                           // anchor's weekday
		`{"frequency":"month","schedule":{"hours":5,"minutes":0}}`,                                                          // anchor's day
		`{"frequency":"year","schedule":{"monthDays":[1],"hours":5,"minutes":0}}`,                                           // anchor's month
		`{"frequency":"month","schedule":{"monthDays":[13],"monthlyOccurrences":[{"day":"friday"}],"hours":5,"minutes":0}}`, // Friday the 13th
		`{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":-2}],"hours":5,"minutes":0}}`,  // second to last
		`{"frequency":"hour","schedule":{"hours":[5]}}`,                                                                     // anchor's minute
		`{"frequency":"second","schedule":{"hours":[5],"minutes":[0]}}`,                                                     // every second of 05:00
	} {
		job, err := Parse(cronJob(rec))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := CronOf(job.Recurrence); ok {
			t.Errorf("%s: CronOf = %q, want none", rec, got)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
