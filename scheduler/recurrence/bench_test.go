package recurrence

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchRule compiles a seed-style job for benchmarks.
func benchRule(b *testing.B, start, rec, now string) *Rule {
	b.Helper()
	r, err := Compile(mustParse(b, jobJSON(start, rec)), mustTime(b, now))
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// benchNext measures Next walking forward through consecutive occurrences,
// starting over from `from` every 64 steps (and when the rule ends) so that
// every call asks about an instant near "now".
func benchNext(b *testing.B, r *Rule, from time.Time) {
	b.Helper()
	t := from
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, ok := r.Next(t)
		if !ok || i%64 == 63 {
			next = from
		}
		t = next
	}
}

// BenchmarkNextSeeds measures Next on every seed example (UTC).
func BenchmarkNextSeeds(b *testing.B) {
	for i, row := range seedRows {
		start := row.start
		if start == "" {
			start = seedStart
		}
		r := benchRule(b, start, `{"frequency":"`+row.freq+`","schedule":`+row.schedule+`}`, seedNow)
		b.Run(seedBenchName(i), func(b *testing.B) { benchNext(b, r, mustTime(b, seedNow)) })
	}
}

// seedBenchName names seed row i for benchmarks: row01 … row31.
func seedBenchName(i int) string {
	return "row" + string(rune('0'+(i+1)/10)) + string(rune('0'+(i+1)%10))
}

// BenchmarkNextAnchorAge measures Next for anchors 1, 14 and 124 years in the
// past: the cost must not grow with the age.
func BenchmarkNextAnchorAge(b *testing.B) {
	const now = "2024-05-01T10:05:00Z"
	rules := []struct{ name, rec string }{
		{"minute7", `{"frequency":"minute","interval":7}`},
		{"monthLastFriday", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":-1}],"hours":[6],"minutes":[0]}}`},
		{"week3MonFri", `{"frequency":"week","interval":3,"schedule":{"weekDays":["monday","friday"],"hours":[9,17]}}`},
		{"chicagoDaily0230", `{"frequency":"day","timeZone":"America/Chicago","schedule":{"hours":[2],"minutes":[30]}}`},
	}
	for _, rr := range rules {
		for _, start := range []string{"2023-05-01T00:03:00Z", "2010-01-01T00:03:00Z", "1900-01-01T00:03:00Z"} {
			r := benchRule(b, start, rr.rec, now)
			b.Run(rr.name+"/anchor"+start[:4], func(b *testing.B) { benchNext(b, r, mustTime(b, now)) })
		}
	}
}

// BenchmarkNextSparse measures sparse and impossible schedules.
func BenchmarkNextSparse(b *testing.B) {
	const now = "2024-05-01T10:05:00Z"
	rules := []struct{ name, rec string }{
		{"fifthFriday", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":5}]}}`},
		{"feb29", `{"frequency":"year","schedule":{"months":[2],"monthDays":[29]}}`},
		{"friday13", `{"frequency":"month","schedule":{"monthDays":[13],"monthlyOccurrences":[{"day":"friday"}]}}`},
		{"impossibleFeb30", `{"frequency":"year","schedule":{"months":[2],"monthDays":[30]}}`},
		{"impossible31Every12", `{"frequency":"month","interval":12,"schedule":{"monthDays":[31]}}`},
	}
	for _, rr := range rules {
		r := benchRule(b, "2010-02-01T00:00:00Z", rr.rec, now)
		b.Run(rr.name, func(b *testing.B) { benchNext(b, r, mustTime(b, now)) })
	}
}

// BenchmarkPreview50 measures a whole preview of 50 occurrences (compile,
// occurrences, description, warnings) of seed examples, as the preview
// endpoint runs it.
func BenchmarkPreview50(b *testing.B) {
	cases := []struct{ name, rec string }{
		{"weekdays15min", `{"frequency":"week","schedule":{"minutes":[0,15,30,45],"hours":[9,10,11,12,13,14,15,16],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}}`},
		{"firstLastFridayBerlin", `{"frequency":"month","timeZone":"Europe/Berlin","schedule":{"minutes":[15],"hours":[5],"monthlyOccurrences":[{"day":"friday","occurrence":1},{"day":"friday","occurrence":-1}]}}`},
	}
	for _, c := range cases {
		job := mustParse(b, jobJSON("2010-01-01T00:00:00Z", c.rec))
		now := mustTime(b, "2024-05-01T10:05:00Z")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Preview(job, now, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// zoneBenchRules are rules in zones with daylight saving, whose times fall
// in or next to a gap or a repeated hour: the cases the zone handling
// (resolve, searchStart and the gap look-ahead) costs the most on.
var zoneBenchRules = []struct{ name, rec string }{
	{"berlinDaily0230", `{"frequency":"day","timeZone":"Europe/Berlin","schedule":{"hours":[2],"minutes":[30]}}`},
	{"lordHoweDaily02", `{"frequency":"day","timeZone":"Australia/Lord_Howe","schedule":{"hours":[2],"minutes":[20,25,40]}}`},
	{"chathamHourly", `{"frequency":"hour","timeZone":"Pacific/Chatham","schedule":{"hours":[2,3],"minutes":[0,50]}}`},
	{"londonMinute20", `{"frequency":"minute","interval":20,"timeZone":"Europe/London","schedule":{"hours":[0,1,2]}}`},
	{"sydneyWeekly", `{"frequency":"week","timeZone":"Australia/Sydney","schedule":{"weekDays":["sunday"],"hours":[2,3],"minutes":[30]}}`},
	{"chicagoSimpleDaily", `{"frequency":"day","timeZone":"America/Chicago"}`},
}

// BenchmarkNextZones measures Next across daylight-saving transitions
// (wall-clock and CPU time per op, see benchNextCPU):
// each op asks for the occurrence after the previous one, starting over
// every 64 steps from an instant just before a spring-forward night (or its
// southern-hemisphere counterpart), so that every run crosses a transition.
func BenchmarkNextZones(b *testing.B) {
	for _, rr := range zoneBenchRules {
		r := benchRule(b, "2010-01-01T01:30:00", rr.rec, "2024-03-01T00:00:00Z")
		from := zoneBenchFrom(b, rr.name)
		b.Run(rr.name, func(b *testing.B) { benchNextCPU(b, r, from) })
	}
}

// BenchmarkPreview50Zones measures a whole preview of 50 occurrences of the
// zone rules, created just before a transition (wall-clock and CPU time
// per op: Preview runs on one goroutine, locked to its thread here).
func BenchmarkPreview50Zones(b *testing.B) {
	for _, rr := range zoneBenchRules {
		job := mustParse(b, jobJSON("2010-01-01T01:30:00", rr.rec))
		now := zoneBenchFrom(b, rr.name)
		b.Run(rr.name, func(b *testing.B) {
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start, ok := threadCPUTime()
			for i := 0; i < b.N; i++ {
				if _, err := Preview(job, now, 50); err != nil {
					b.Fatal(err)
				}
			}
			if end, ok2 := threadCPUTime(); ok && ok2 && b.N > 0 {
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// zoneBenchFrom returns an instant a day before a 2024 spring-forward
// transition of the rule's zone.
func zoneBenchFrom(b *testing.B, name string) time.Time {
	b.Helper()
	switch name {
	case "lordHoweDaily02", "sydneyWeekly":
		return mustTime(b, "2024-10-05T00:00:00Z")
	case "chathamHourly":
		return mustTime(b, "2024-09-28T00:00:00Z")
	case "chicagoSimpleDaily":
		return mustTime(b, "2024-03-09T06:00:00Z")
	}
	return mustTime(b, "2024-03-30T00:00:00Z")
}

// BenchmarkNextCalendar measures Next for a daily and a weekly job without
// a calendar and with a holiday calendar of 200 entries (about 8% of the
// days excluded), for each onExcluded: the target is within 2× of
// Next without one.
func BenchmarkNextCalendar(b *testing.B) {
	// A holiday calendar: 10 yearly dates, and 19 days or short breaks a
	// year over 2020–2029.
	var entries []string
	for i := 0; i < 10; i++ {
		entries = append(entries, fmt.Sprintf(`{"yearly":"%02d-%02d","label":"h%d"}`, 1+i, 1+(i*7)%28, i))
	}
	for i := 0; i < 190; i++ {
		d := time.Date(2020+i/19, time.Month(1+(i%19)*12/19), 3+(i*11)%25, 0, 0, 0, 0, time.UTC)
		if i%4 == 0 {
			entries = append(entries, fmt.Sprintf(`{"from":%q,"to":%q}`, d.Format("2006-01-02"), d.AddDate(0, 0, 3).Format("2006-01-02")))
		} else {
			entries = append(entries, fmt.Sprintf(`{"date":%q}`, d.Format("2006-01-02")))
		}
	}
	cals := calendarsOf(b, map[string]string{"cal200": `{"timeZone":"Europe/Berlin","entries":[` + strings.Join(entries, ",") + `]}`})
	for _, freq := range []string{"day", "week"} {
		for _, mode := range []string{"", "skip", "nextDay", "previousDay"} {
			rec := `{"frequency":"` + freq + `","timeZone":"Europe/Berlin","schedule":{"hours":[9],"minutes":[0]}}`
			name := freq + "/none"
			if mode != "" {
				rec = `{"frequency":"` + freq + `","timeZone":"Europe/Berlin","schedule":{"hours":[9],"minutes":[0]},"calendars":{"exclude":["cal200"],"onExcluded":"` + mode + `"}}`
				name = freq + "/cal200-" + mode
			}
			r, err := CompileWith(mustParse(b, jobJSON("2020-01-01T00:00:00", rec)), mustTime(b, "2024-05-01T00:00:00Z"), Options{Calendars: cals})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name, func(b *testing.B) { benchNextCPU(b, r, mustTime(b, "2024-05-01T10:05:00Z")) })
		}
	}
}

// benchNextCPU is benchNext on one OS thread, reporting also the thread's
// CPU time per op (cpu-ns/op, on Linux): on a machine shared with other
// work the wall-clock ns/op counts the time spent waiting for a core, the
// CPU time does not.
func benchNextCPU(b *testing.B, r *Rule, from time.Time) {
	b.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := threadCPUTime()
	benchNext(b, r, from)
	if end, ok2 := threadCPUTime(); ok && ok2 && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}
