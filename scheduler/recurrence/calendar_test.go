package recurrence

import (
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"sked/models/caldef"
)

// calendarCases and calendarSeed size and seed TestCalendarProperty.
var (
	calendarCases = flag.Int("calendar.cases", 0, "random cases for TestCalendarProperty (0: 400, 100 with -short)")
	calendarSeed  = flag.Int64("calendar.seed", 136, "random seed for TestCalendarProperty")
)

// mustCalendar compiles a calendar from its JSON.
func mustCalendar(t testing.TB, name, js string) *Calendar {
	t.Helper()
	c, err := caldef.Parse([]byte(js))
	if err != nil {
		t.Fatalf("calendar %s: %v", name, err)
	}
	cal, err := CompileCalendar(name, c)
	if err != nil {
		t.Fatalf("calendar %s: %v", name, err)
	}
	return cal
}

// calendarsOf compiles name → JSON pairs into Calendars.
func calendarsOf(t testing.TB, defs map[string]string) Calendars {
	t.Helper()
	cals := Calendars{}
	for name, js := range defs {
		cals[strings.ToLower(name)] = mustCalendar(t, name, js)
	}
	return cals
}

// takeWith returns the first n executions of a job with calendars.
func takeWith(t testing.TB, js, now string, n int, cals Calendars) []string {
	t.Helper()
	r, err := CompileWith(mustParse(t, js), mustTime(t, now), Options{Calendars: cals})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return formatAll(r.Take(n))
}

// holidays is a calendar of the test table: Christmas and New Year in
// Berlin, a range over a month end, and the last Monday of May.
const holidays = `{"timeZone":"Europe/Berlin","entries":[
	{"yearly":"12-25","label":"Christmas Day"},{"yearly":"12-26","label":"Boxing Day"},
	{"yearly":"01-01","label":"New Year"},
	{"from":"2026-04-29","to":"2026-05-04","label":"Spring break"},
	{"rule":{"frequency":"year","schedule":{"months":[5],"monthlyOccurrences":[{"day":"monday","occurrence":-1}]}},"label":"Memorial Day"}]}`

// TestCalendarOccurrences checks skip, nextDay and previousDay across
// month and year ends, overlapping ranges, a daylight-saving day and a
// calendar in another zone than the job.
func TestCalendarOccurrences(t *testing.T) {
	cals := calendarsOf(t, map[string]string{
		"holidays": holidays,
		"overlap":  `{"entries":[{"from":"2026-03-02","to":"2026-03-04"},{"from":"2026-03-04","to":"2026-03-06"},{"date":"2026-03-09"}]}`,
		"tokyo":    `{"timeZone":"Asia/Tokyo","entries":[{"date":"2026-06-10","label":"Tokyo day"}]}`,
		"dst":      `{"timeZone":"Europe/Berlin","entries":[{"date":"2026-03-29","label":"DST day"}]}`,
		"weekends": `{"entries":[{"rule":{"frequency":"week","schedule":{"weekDays":["saturday","sunday"]}},"label":"Weekend"}]}`,
	})
	tests := []struct {
		name, start, rec, now string
		want                  []string
	}{
		{"skip year end", "2026-12-23T09:00:00", `{"frequency":"day","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"]}}`, "2026-12-01T00:00:00Z",
			[]string{"2026-12-23T09:00:00+01:00", "2026-12-24T09:00:00+01:00", "2026-12-27T09:00:00+01:00", "2026-12-28T09:00:00+01:00", "2026-12-29T09:00:00+01:00", "2026-12-30T09:00:00+01:00", "2026-12-31T09:00:00+01:00", "2027-01-02T09:00:00+01:00"}},
		{"daily next day is skip", "2026-12-24T09:00:00", `{"frequency":"day","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`, "2026-12-01T00:00:00Z",
			[]string{"2026-12-24T09:00:00+01:00", "2026-12-27T09:00:00+01:00", "2026-12-28T09:00:00+01:00"}},
		{"weekly next day", "2026-12-03T07:00:00", `{"frequency":"week","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`, "2026-12-01T00:00:00Z",
			// Thursdays: 12-24 runs, 12-31 runs, 2026-12-25 is not a Thursday; 2027-01-01 is a Friday.
			[]string{"2026-12-03T07:00:00+01:00", "2026-12-10T07:00:00+01:00", "2026-12-17T07:00:00+01:00", "2026-12-24T07:00:00+01:00", "2026-12-31T07:00:00+01:00"}},
		{"weekly Friday next day over the year end", "2026-12-18T07:00:00", `{"frequency":"week","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`, "2026-12-01T00:00:00Z",
			// 12-25 (Christmas) and 12-26 excluded: moved to 12-27; 2027-01-01 moved to 01-02.
			[]string{"2026-12-18T07:00:00+01:00", "2026-12-27T07:00:00+01:00", "2027-01-02T07:00:00+01:00", "2027-01-08T07:00:00+01:00"}},
		{"weekly Friday previous day", "2026-12-18T07:00:00", `{"frequency":"week","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"],"onExcluded":"previousDay"}}`, "2026-12-01T00:00:00Z",
			[]string{"2026-12-18T07:00:00+01:00", "2026-12-24T07:00:00+01:00", "2026-12-31T07:00:00+01:00", "2027-01-08T07:00:00+01:00"}},
		{"monthly first, next day over the range across the month end", "2026-04-01T06:00:00", `{"frequency":"month","timeZone":"Europe/Berlin","schedule":{"monthDays":[1]},"calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`, "2026-03-01T00:00:00Z",
			// 05-01 falls in the spring break (04-29…05-04): moved to 05-05.
			[]string{"2026-04-01T06:00:00+02:00", "2026-05-05T06:00:00+02:00", "2026-06-01T06:00:00+02:00"}},
		{"monthly first, previous day before the range", "2026-04-01T06:00:00", `{"frequency":"month","timeZone":"Europe/Berlin","schedule":{"monthDays":[1]},"calendars":{"exclude":["holidays"],"onExcluded":"previousDay"}}`, "2026-03-01T00:00:00Z",
			[]string{"2026-04-01T06:00:00+02:00", "2026-04-28T06:00:00+02:00", "2026-06-01T06:00:00+02:00"}},
		{"rule entry: last Monday of May", "2026-05-18T08:00:00Z", `{"frequency":"week","calendars":{"exclude":["holidays"]}}`, "2026-05-01T00:00:00Z",
			[]string{"2026-05-18T08:00:00Z", "2026-06-01T08:00:00Z"}},
		{"overlapping ranges", "2026-03-01T10:00:00Z", `{"frequency":"day","calendars":{"exclude":["overlap"]}}`, "2026-03-01T00:00:00Z",
			[]string{"2026-03-01T10:00:00Z", "2026-03-07T10:00:00Z", "2026-03-08T10:00:00Z", "2026-03-10T10:00:00Z"}},
		{"calendar in another zone", "2026-06-09T20:00:00Z", `{"frequency":"hour","interval":4,"calendars":{"exclude":["tokyo"]}}`, "2026-06-01T00:00:00Z",
			// Tokyo's 2026-06-10 is 06-09T15:00Z … 06-10T15:00Z.
			[]string{"2026-06-10T16:00:00Z", "2026-06-10T20:00:00Z"}},
		{"daylight-saving day excluded", "2026-03-28T02:30:00", `{"frequency":"day","timeZone":"Europe/Berlin","calendars":{"exclude":["dst"]}}`, "2026-03-01T00:00:00Z",
			[]string{"2026-03-28T02:30:00+01:00", "2026-03-30T02:30:00+02:00"}},
		{"weekends and holidays, business days", "2026-12-23T09:00:00", `{"frequency":"day","timeZone":"Europe/Berlin","calendars":{"exclude":["weekends","holidays"]}}`, "2026-12-01T00:00:00Z",
			[]string{"2026-12-23T09:00:00+01:00", "2026-12-24T09:00:00+01:00", "2026-12-28T09:00:00+01:00", "2026-12-29T09:00:00+01:00", "2026-12-30T09:00:00+01:00", "2026-12-31T09:00:00+01:00", "2027-01-04T09:00:00+01:00"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := takeWith(t, jobJSON(tc.start, tc.rec), tc.now, len(tc.want), cals)
			if !sameInstants(t, got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestCalendarPreview checks the description and the warnings that name
// moved and skipped occurrences, and a calendar that excludes every day.
func TestCalendarPreview(t *testing.T) {
	cals := calendarsOf(t, map[string]string{
		"holidays": holidays,
		"always":   `{"entries":[{"rule":{"frequency":"day"}}]}`,
	})
	job := mustParse(t, jobJSON("2026-12-18T07:00:00", `{"frequency":"week","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`))
	res, err := PreviewWith(job, mustTime(t, "2026-12-01T00:00:00Z"), 3, Options{Calendars: cals})
	if err != nil {
		t.Fatal(err)
	}
	if want := "At 07:00 on Friday, except on holidays (moved to the next day) (Europe/Berlin)"; res.Description != want {
		t.Errorf("description %q, want %q", res.Description, want)
	}
	wantWarnings := []string{
		"2026-12-25 07:00 falls on Christmas Day (holidays): it runs on 2026-12-27 07:00 instead",
		"2027-01-01 07:00 falls on New Year (holidays): it runs on 2027-01-02 07:00 instead",
	}
	if !slices.Equal(res.Warnings, wantWarnings) {
		t.Errorf("warnings %q, want %q", res.Warnings, wantWarnings)
	}

	daily := mustParse(t, jobJSON("2026-12-24T09:00:00", `{"frequency":"day","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"]}}`))
	res, err = PreviewWith(daily, mustTime(t, "2026-12-01T00:00:00Z"), 3, Options{Calendars: cals})
	if err != nil {
		t.Fatal(err)
	}
	wantWarnings = []string{"2026-12-25 09:00 is skipped: Christmas Day (holidays)", "2026-12-26 09:00 is skipped: Boxing Day (holidays)"}
	if !slices.Equal(res.Warnings, wantWarnings) || !strings.HasSuffix(res.Description, "except on holidays (Europe/Berlin)") {
		t.Errorf("daily: %q %q", res.Description, res.Warnings)
	}

	// A daily job with nextDay: 12-25 would pass the 12-26 run (skipped),
	// 12-26 moves onto the 12-27 run (merged: one run).
	dailyNext := mustParse(t, jobJSON("2026-12-24T09:00:00", `{"frequency":"day","timeZone":"Europe/Berlin","calendars":{"exclude":["holidays"],"onExcluded":"nextDay"}}`))
	res, err = PreviewWith(dailyNext, mustTime(t, "2026-12-01T00:00:00Z"), 3, Options{Calendars: cals})
	if err != nil {
		t.Fatal(err)
	}
	wantWarnings = []string{
		"2026-12-25 09:00 is skipped: Christmas Day (holidays), and the next free day comes after the next run",
		"2026-12-26 09:00 falls on Boxing Day (holidays): it runs on 2026-12-27 09:00 instead, together with the run due then",
	}
	if got := formatAll(res.Occurrences); !slices.Equal(res.Warnings, wantWarnings) || !slices.Equal(got, []string{"2026-12-24T09:00:00+01:00", "2026-12-27T09:00:00+01:00", "2026-12-28T09:00:00+01:00"}) {
		t.Errorf("daily nextDay: %v %q", got, res.Warnings)
	}

	never := mustParse(t, jobJSON("", `{"frequency":"minute","interval":7,"calendars":{"exclude":["always"],"onExcluded":"previousDay"}}`))
	res, err = PreviewWith(never, mustTime(t, "2026-12-01T00:00:00Z"), 5, Options{Calendars: cals})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Occurrences) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "the calendars always exclude every day") {
		t.Errorf("every day excluded: %v %q", res.Occurrences, res.Warnings)
	}
}

// TestCalendarMissing checks that a job naming a calendar the workspace
// lacks does not compile, with the problem naming the field.
func TestCalendarMissing(t *testing.T) {
	job := mustParse(t, jobJSON("", `{"frequency":"day","calendars":{"exclude":["holidays","nope"]}}`))
	_, err := CompileWith(job, mustTime(t, "2026-12-01T00:00:00Z"), Options{Calendars: calendarsOf(t, map[string]string{"Holidays": holidays})})
	if err == nil || !strings.Contains(err.Error(), `recurrence.calendars.exclude[1]: there is no calendar named "nope" in this workspace`) {
		t.Fatalf("got %v", err)
	}
	if _, err := Compile(job, time.Now()); err == nil {
		t.Fatal("Compile without calendars accepted a job that names some")
	}
}

// TestCalendarExcludedDays checks the year-view helpers and labels.
func TestCalendarExcludedDays(t *testing.T) {
	cal := mustCalendar(t, "h", holidays)
	days := cal.ExcludedDays(caldef.Date{Year: 2026, Month: 4, Day: 30}, caldef.Date{Year: 2026, Month: 5, Day: 31})
	var got []string
	for _, d := range days {
		got = append(got, d.Date.String()+" "+d.Label)
	}
	want := []string{"2026-04-30 Spring break", "2026-05-01 Spring break", "2026-05-02 Spring break", "2026-05-03 Spring break", "2026-05-04 Spring break", "2026-05-25 Memorial Day"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if l, ok := cal.Excluded(caldef.Date{Year: 2099, Month: 12, Day: 26}); !ok || l != "Boxing Day" {
		t.Errorf("2099-12-26: %q %v", l, ok)
	}
	if _, ok := cal.Excluded(caldef.Date{Year: 2026, Month: 12, Day: 27}); ok {
		t.Error("2026-12-27 excluded")
	}
}

// TestCalendarProperty checks random rules against random calendars: with
// skip, the executions are exactly the plain rule's occurrences on days no
// calendar excludes; with nextDay and previousDay, every execution is such
// an occurrence or one moved from an excluded day to a day that is not
// excluded, strictly between its neighbouring regular occurrences, and every
// regular occurrence not excluded runs.
func TestCalendarProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(*calendarSeed))
	cases := *calendarCases
	if cases == 0 {
		cases = 400
		if testing.Short() {
			cases = 100
		}
	}
	zones := []string{"UTC", "Europe/Berlin", "America/Chicago", "Asia/Tokyo", "Australia/Lord_Howe"}
	for i := 0; i < cases; i++ {
		rr := genRule(rng)
		var entries []string
		for range 1 + rng.Intn(12) {
			d := time.Date(2024+rng.Intn(3), time.Month(1+rng.Intn(12)), 1+rng.Intn(28), 0, 0, 0, 0, time.UTC)
			switch rng.Intn(4) {
			case 0:
				entries = append(entries, fmt.Sprintf(`{"date":%q}`, d.Format("2006-01-02")))
			case 1:
				entries = append(entries, fmt.Sprintf(`{"from":%q,"to":%q}`, d.Format("2006-01-02"), d.AddDate(0, 0, rng.Intn(20)).Format("2006-01-02")))
			case 2:
				entries = append(entries, fmt.Sprintf(`{"yearly":%q}`, d.Format("01-02")))
			default:
				entries = append(entries, fmt.Sprintf(`{"rule":{"frequency":"week","schedule":{"weekDays":[%q]}},"since":%q,"until":%q}`,
					time.Weekday(rng.Intn(7)).String(), d.Format("2006-01-02"), d.AddDate(0, 2, 0).Format("2006-01-02")))
			}
		}
		calJSON := fmt.Sprintf(`{"timeZone":%q,"entries":[%s]}`, zones[rng.Intn(len(zones))], strings.Join(entries, ","))
		cals := calendarsOf(t, map[string]string{"c": calJSON})
		mode := []string{"skip", "nextDay", "previousDay"}[rng.Intn(3)]
		rr.start = time.Date(2024+rng.Intn(2), time.Month(1+rng.Intn(12)), 1+rng.Intn(28), rng.Intn(24), rng.Intn(60), 0, 0, time.UTC)
		js := strings.Replace(rr.json(), `"frequency":`, `"calendars":{"exclude":["c"],"onExcluded":"`+mode+`"},"frequency":`, 1)
		job := mustParse(t, js)
		now := rr.start.Add(-time.Duration(rng.Intn(48)) * time.Hour)
		plain, err := Compile(mustParse(t, rr.json()), now)
		if err != nil {
			t.Fatal(err)
		}
		r, err := CompileWith(job, now, Options{Calendars: cals})
		if err != nil {
			t.Fatal(err)
		}
		got := r.take(80)
		if len(got) == 0 {
			continue
		}
		last := got[len(got)-1].at
		var regular []occurrence
		for t0 := int64(-1 << 62); ; {
			o, ok := plain.regular(t0)
			if !ok || o.at > last+40*secondsPerDay {
				break
			}
			regular = append(regular, o)
			t0 = o.at + 1
		}
		isRegular := map[int64]int{}
		for k, o := range regular {
			isRegular[o.at] = k
		}
		produced := map[int64]bool{}
		for k, o := range got {
			produced[o.at] = true
			if k > 0 && o.at <= got[k-1].at {
				t.Fatalf("%s now %v: not increasing: %v", js, now, got)
			}
			if _, ex := r.excluded(o.at); ex {
				t.Fatalf("%s %s now %v: %v falls on an excluded day", js, calJSON, now, time.Unix(o.at, 0).UTC())
			}
			if _, ok := isRegular[o.at]; ok {
				continue
			}
			if mode == "skip" || o.movedFrom == 0 {
				t.Fatalf("%s %s now %v: %v is not a regular occurrence", js, calJSON, now, time.Unix(o.at, 0).UTC())
			}
			k, ok := isRegular[o.movedFrom]
			if !ok {
				t.Fatalf("%s: moved from %v, which is not regular", js, time.Unix(o.movedFrom, 0).UTC())
			}
			if (k > 0 && o.at <= regular[k-1].at) || (k+1 < len(regular) && o.at >= regular[k+1].at) {
				t.Fatalf("%s %s: %v moved from %v is not between its neighbours", js, calJSON, time.Unix(o.at, 0).UTC(), time.Unix(o.movedFrom, 0).UTC())
			}
		}
		for _, o := range regular {
			if o.at > last {
				break
			}
			if _, ex := r.excluded(o.at); !ex && !produced[o.at] {
				t.Fatalf("%s %s now %v: regular %v is not excluded but missing", js, calJSON, now, time.Unix(o.at, 0).UTC())
			}
		}
	}
}
