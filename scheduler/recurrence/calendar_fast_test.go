package recurrence

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// fastCases and fastSeed size and seed TestCalendarFastPath.
var (
	fastCases = flag.Int("calendar.fastcases", 0, "random cases for TestCalendarFastPath (0: 200, 50 with -short)")
	fastSeed  = flag.Int64("calendar.fastseed", 17, "random seed for TestCalendarFastPath")
)

// randCalendarJSON draws a calendar: dates, ranges, yearly dates, weekly
// rules, sometimes a cluster of many dates (for the span index) or a rule
// that excludes every day from some date on (a span without end).
func randCalendarJSON(rng *rand.Rand) string {
	zones := []string{"UTC", "Europe/Berlin", "America/Chicago", "Asia/Tokyo", "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo"}
	day := func() time.Time {
		return time.Date(2023+rng.Intn(5), time.Month(1+rng.Intn(12)), 1+rng.Intn(28), 0, 0, 0, 0, time.UTC)
	}
	var entries []string
	for range 1 + rng.Intn(30) {
		d := day()
		switch rng.Intn(9) {
		case 0, 1, 2:
			entries = append(entries, fmt.Sprintf(`{"date":%q}`, d.Format("2006-01-02")))
		case 3, 4:
			entries = append(entries, fmt.Sprintf(`{"from":%q,"to":%q}`, d.Format("2006-01-02"), d.AddDate(0, 0, rng.Intn(20)).Format("2006-01-02")))
		case 5:
			entries = append(entries, fmt.Sprintf(`{"yearly":%q}`, d.Format("01-02")))
		case 6:
			entries = append(entries, fmt.Sprintf(`{"rule":{"frequency":"week","schedule":{"weekDays":[%q]}},"since":%q,"until":%q}`,
				time.Weekday(rng.Intn(7)).String(), d.Format("2006-01-02"), d.AddDate(0, 1+rng.Intn(6), 0).Format("2006-01-02")))
		case 7:
			// A cluster: many days close together.
			for range 20 + rng.Intn(200) {
				entries = append(entries, fmt.Sprintf(`{"date":%q}`, d.AddDate(0, 0, rng.Intn(120)).Format("2006-01-02")))
			}
		default:
			entries = append(entries, fmt.Sprintf(`{"from":%q,"to":%q}`, d.Format("2006-01-02"), d.AddDate(0, 0, 1).Format("2006-01-02")))
		}
	}
	if rng.Intn(15) == 0 {
		// Every day from some date on: a span without end (costly to expand).
		entries = append(entries, fmt.Sprintf(`{"rule":{"frequency":"day"},"since":%q}`, day().Format("2006-01-02")))
	}
	return fmt.Sprintf(`{"timeZone":%q,"entries":[%s]}`, zones[rng.Intn(len(zones))], strings.Join(entries, ","))
}

// TestCalendarFastPath compares the calendar search (the span index and
// the shortcuts of first) with the slow path it replaces
// (calendar_slow_test.go) on random rules and calendars, in zones with and
// without daylight saving: the same execution, moved or not, for random
// instants and for each instant just after an execution.
func TestCalendarFastPath(t *testing.T) {
	rng := rand.New(rand.NewSource(*fastSeed))
	cases := *fastCases
	if cases == 0 {
		cases = 200
		if testing.Short() {
			cases = 50
		}
	}
	jobZones := []string{"Europe/Berlin", "America/Chicago", "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo", "Asia/Tokyo"}
	for i := 0; i < cases; i++ {
		rr := genRule(rng)
		if rng.Intn(2) == 0 {
			rr.zone = jobZones[rng.Intn(len(jobZones))]
		}
		if rng.Intn(3) == 0 {
			// A rule of days or weeks at one time of day: minGap's shape.
			rr.freq = []string{"day", "week"}[rng.Intn(2)]
			rr.hours, rr.minutes, rr.monthDays, rr.occ, rr.months = []int{rng.Intn(24)}, []int{rng.Intn(60)}, nil, nil, nil
			rr.weekDays = nil
			if rr.freq == "week" && rng.Intn(2) == 0 {
				for _, d := range pick(rng, 0, 6, 3) {
					rr.weekDays = append(rr.weekDays, time.Weekday(d))
				}
			}
			rr.interval = 1 + rng.Intn(3)
		}
		if rr.freq != "year" && rng.Intn(2) == 0 {
			rr.interval = 1 + rng.Intn(3)
		}
		rr.start = time.Date(2023+rng.Intn(4), time.Month(1+rng.Intn(12)), 1+rng.Intn(28), rng.Intn(24), rng.Intn(60), 0, 0, time.UTC)
		defs := map[string]string{}
		var names []string
		for k := range 1 + rng.Intn(3) {
			name := fmt.Sprintf("c%d", k)
			defs[name] = randCalendarJSON(rng)
			names = append(names, `"`+name+`"`)
		}
		cals := calendarsOf(t, defs)
		mode := []string{"skip", "nextDay", "previousDay"}[rng.Intn(3)]
		extra := `"calendars":{"exclude":[` + strings.Join(names, ",") + `],"onExcluded":"` + mode + `"},`
		if rng.Intn(4) == 0 {
			extra += `"endTime":"` + rr.start.AddDate(0, 1+rng.Intn(30), rng.Intn(28)).Format(time.RFC3339) + `",`
		}
		js := strings.Replace(rr.json(), `"frequency":`, extra+`"frequency":`, 1)
		now := rr.start.Add(time.Duration(rng.Intn(24*400)-24*40) * time.Hour)
		r, err := CompileWith(mustParse(t, js), now, Options{Calendars: cals})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.cals {
			checkSpanIndex(t, rng, c)
		}
		check := func(t0 int64) (execution, bool) {
			got, ok := r.first(t0)
			want, wok := r.slowFirst(t0)
			if got != want || ok != wok {
				t.Fatalf("%s\ncalendars %v\nfirst(%v) = %+v, %v; the slow path gives %+v, %v",
					js, defs, time.Unix(t0, 0).UTC(), got, ok, want, wok)
			}
			return got, ok
		}
		lo := now.Unix() - 30*secondsPerDay
		for range 150 {
			check(lo + rng.Int63n(4*366*secondsPerDay))
		}
		t0 := now.Unix()
		for range 150 {
			e, ok := check(t0)
			if !ok {
				break
			}
			check(e.at)
			check(e.at - rng.Int63n(2*secondsPerDay))
			t0 = e.at + 1
		}
	}
}

// checkSpanIndex compares spanAt with a binary search over all spans, at
// the bounds of every span, next to them and at random instants.
func checkSpanIndex(t *testing.T, rng *rand.Rand, c *Calendar) {
	t.Helper()
	at := func(u int64) {
		if got, want := c.spanAt(u), c.slowSpanAt(u); got != want {
			t.Fatalf("calendar %s (%d spans): spanAt(%d) = %d, want %d", c.name, len(c.ispans), u, got, want)
		}
	}
	for _, u := range []int64{math.MinInt64, math.MinInt64 / 2, -1, 0, math.MaxInt64 / 2, math.MaxInt64} {
		at(u)
	}
	for _, sp := range c.ispans {
		for _, d := range []int64{-secondsPerDay, -1, 0, 1, secondsPerDay} {
			at(sp.start + d)
			if sp.end != math.MaxInt64 {
				at(sp.end + d)
			}
		}
	}
	if len(c.ispans) > 0 {
		first, last := c.ispans[0].start, c.ispans[len(c.ispans)-1].start
		for range 200 {
			at(first - 10*secondsPerDay + rng.Int63n(last-first+20*secondsPerDay))
		}
	}
}

// TestCalendarFastPathDST compares the calendar search with the slow path
// around daylight-saving transitions (and Samoa's skipped day), for rules
// at times of day in and next to the changed hour, with excluded days on
// and next to the day of the change, for every quarter of an hour.
func TestCalendarFastPathDST(t *testing.T) {
	transitions := []struct{ zone, day string }{
		{"Europe/Berlin", "2026-03-29"}, {"Europe/Berlin", "2026-10-25"},
		{"Australia/Lord_Howe", "2026-04-05"}, {"Australia/Lord_Howe", "2026-10-04"},
		{"America/Sao_Paulo", "2018-11-04"}, {"America/Sao_Paulo", "2018-02-17"},
		{"Pacific/Apia", "2011-12-30"},
	}
	tods := []string{"00:30", "01:30", "02:00", "02:30", "03:00", "09:00", "23:30"}
	for _, tr := range transitions {
		day, err := time.Parse("2006-01-02", tr.day)
		if err != nil {
			t.Fatal(err)
		}
		date := func(k int) string { return day.AddDate(0, 0, k).Format("2006-01-02") }
		calendars := []string{
			`{"date":"` + date(0) + `"}`,
			`{"date":"` + date(-1) + `"}`,
			`{"date":"` + date(1) + `"}`,
			`{"from":"` + date(-1) + `","to":"` + date(0) + `"},{"date":"` + date(2) + `"}`,
		}
		for ci, entries := range calendars {
			for _, calZone := range []string{tr.zone, "UTC"} {
				cals := calendarsOf(t, map[string]string{"c": `{"timeZone":"` + calZone + `","entries":[` + entries + `]}`})
				for _, tod := range tods {
					for _, freq := range []string{"day", "week"} {
						for _, mode := range []string{"skip", "nextDay", "previousDay"} {
							rec := `{"frequency":"` + freq + `","timeZone":"` + tr.zone + `","calendars":{"exclude":["c"],"onExcluded":"` + mode + `"}}`
							start := day.AddDate(0, 0, -10).Format("2006-01-02") + "T" + tod + ":00"
							if freq == "week" {
								start = day.AddDate(0, 0, -14+ci%3).Format("2006-01-02") + "T" + tod + ":00"
							}
							js := jobJSON(start, rec)
							r, err := CompileWith(mustParse(t, js), day.AddDate(0, 0, -20), Options{Calendars: cals})
							if err != nil {
								t.Fatal(err)
							}
							for t0 := day.AddDate(0, 0, -4).Unix(); t0 < day.AddDate(0, 0, 5).Unix(); t0 += 900 {
								for _, u := range []int64{t0, t0 + 1} {
									got, ok := r.first(u)
									want, wok := r.slowFirst(u)
									if got != want || ok != wok {
										t.Fatalf("%s calendar %s in %s\nfirst(%v) = %+v, %v; the slow path gives %+v, %v",
											js, entries, calZone, time.Unix(u, 0).UTC(), got, ok, want, wok)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}
