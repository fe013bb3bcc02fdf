package recurrence

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"
)

// randRule is a random recurrence, kept as plain values so that an
// independent matcher can check occurrences without the package's internals.
type randRule struct {
	freq      string
	interval  int
	minutes   []int
	hours     []int
	weekDays  []time.Weekday
	monthDays []int
	occ       [][2]int // weekday, occurrence (0 = every)
	months    []int
	zone      string
	start     time.Time
}

// json renders the rule as a job.
func (rr randRule) json() string {
	sched := map[string]any{}
	if rr.minutes != nil {
		sched["minutes"] = rr.minutes
	}
	if rr.hours != nil {
		sched["hours"] = rr.hours
	}
	if rr.weekDays != nil {
		var names []string
		for _, d := range rr.weekDays {
			names = append(names, d.String())
		}
		sched["weekDays"] = names
	}
	if rr.monthDays != nil {
		sched["monthDays"] = rr.monthDays
	}
	if rr.occ != nil {
		var os []map[string]any
		for _, o := range rr.occ {
			m := map[string]any{"day": time.Weekday(o[0]).String()}
			if o[1] != 0 {
				m["occurrence"] = o[1]
			}
			os = append(os, m)
		}
		sched["monthlyOccurrences"] = os
	}
	if rr.months != nil {
		sched["months"] = rr.months
	}
	rec := map[string]any{"frequency": rr.freq, "interval": rr.interval, "timeZone": rr.zone}
	if len(sched) > 0 {
		rec["schedule"] = sched
	}
	b, _ := json.Marshal(rec)
	return jobJSON(rr.start.Format(time.RFC3339), string(b))
}

// pick returns a random non-empty subset of lo..hi (nil sometimes).
func pick(rng *rand.Rand, lo, hi, maxN int) []int {
	if rng.Intn(3) == 0 {
		return nil
	}
	n := 1 + rng.Intn(maxN)
	var out []int
	for i := 0; i < n; i++ {
		v := lo + rng.Intn(hi-lo+1)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// genRule draws a random rule in a zone without daylight saving, so wall
// times are never moved.
func genRule(rng *rand.Rand) randRule {
	freqs := []string{"minute", "hour", "day", "week", "month", "year"}
	rr := randRule{freq: freqs[rng.Intn(len(freqs))]}
	zones := []string{"UTC", "Asia/Tokyo", "Asia/Kolkata", "Etc/GMT+5"}
	rr.zone = zones[rng.Intn(len(zones))]
	maxI := map[string]int{"minute": 1000, "hour": 1000, "day": 548, "week": 78, "month": 18, "year": 1}[rr.freq]
	switch rng.Intn(3) {
	case 0:
		rr.interval = 1
	case 1:
		rr.interval = 1 + rng.Intn(min(maxI, 6))
	default:
		rr.interval = 1 + rng.Intn(maxI)
	}
	rr.minutes = pick(rng, 0, 59, 6)
	rr.hours = pick(rng, 0, 23, 5)
	switch rr.freq {
	case "week":
		for _, d := range pick(rng, 0, 6, 4) {
			rr.weekDays = append(rr.weekDays, time.Weekday(d))
		}
	case "year":
		rr.months = pick(rng, 1, 12, 3)
		fallthrough
	case "month":
		if rng.Intn(2) == 0 {
			for _, d := range pick(rng, 1, 31, 3) {
				if rng.Intn(3) == 0 {
					d = -d
				}
				rr.monthDays = append(rr.monthDays, d)
			}
		}
		if rng.Intn(2) == 0 {
			for i := 0; i < 1+rng.Intn(2); i++ {
				o := []int{0, 1, 2, 3, 4, 5, -1, -2, -5}[rng.Intn(9)]
				rr.occ = append(rr.occ, [2]int{rng.Intn(7), o})
			}
		}
	}
	rr.start = time.Date(2000+rng.Intn(40), time.Month(1+rng.Intn(12)), 1+rng.Intn(28), rng.Intn(24), rng.Intn(60), rng.Intn(2)*rng.Intn(60), 0, time.UTC)
	return rr
}

// simple reports whether the rule has no schedule.
func (rr randRule) simple() bool {
	return rr.minutes == nil && rr.hours == nil && rr.weekDays == nil && rr.monthDays == nil && rr.occ == nil && rr.months == nil
}

// civil returns the date of t as days since 1970-01-01, using only the time package.
func civil(t time.Time) int {
	return int(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// matches reports whether the instant t belongs to the rule's occurrences
// (anchor rr.start, zone loc), from the rule's definition (SPEC §2).
func (rr randRule) matches(t time.Time, loc *time.Location) bool {
	a := rr.start.In(loc)
	w := t.In(loc)
	has := func(list []int, v, def int) bool {
		if list == nil {
			return v == def
		}
		return slices.Contains(list, v)
	}
	if rr.freq == "second" {
		return rr.matchesSecond(t, w, a)
	}
	if rr.simple() && (rr.freq == "minute" || rr.freq == "hour") {
		step := int64(rr.interval) * 60
		if rr.freq == "hour" {
			step *= 60
		}
		d := t.Unix() - a.Unix()
		return d >= 0 && d%step == 0
	}
	sec := 0
	if rr.simple() {
		sec = a.Second()
	}
	if w.Second() != sec {
		return false
	}
	switch rr.freq {
	case "minute":
		wm := (t.Unix() + int64(offset(w))) / 60
		am := (a.Unix() + int64(offset(a))) / 60
		return (wm-am)%int64(rr.interval) == 0 && (rr.hours == nil || slices.Contains(rr.hours, w.Hour())) &&
			(rr.minutes == nil || slices.Contains(rr.minutes, w.Minute()))
	case "hour":
		wh := (t.Unix() + int64(offset(w))) / 3600
		ah := (a.Unix() + int64(offset(a))) / 3600
		return (wh-ah)%int64(rr.interval) == 0 && (rr.hours == nil || slices.Contains(rr.hours, w.Hour())) &&
			has(rr.minutes, w.Minute(), a.Minute())
	}
	if !has(rr.hours, w.Hour(), a.Hour()) || !has(rr.minutes, w.Minute(), a.Minute()) {
		return false
	}
	switch rr.freq {
	case "day":
		return (civil(w)-civil(a))%rr.interval == 0
	case "week":
		monday := func(t time.Time) int { return civil(t) - (int(t.Weekday())+6)%7 }
		if (monday(w)-monday(a))/7%rr.interval != 0 {
			return false
		}
		if rr.weekDays == nil {
			return w.Weekday() == a.Weekday()
		}
		return slices.Contains(rr.weekDays, w.Weekday())
	case "month":
		if ((w.Year()*12+int(w.Month()))-(a.Year()*12+int(a.Month())))%rr.interval != 0 {
			return false
		}
	case "year":
		if !has(rr.months, int(w.Month()), int(a.Month())) {
			return false
		}
	}
	dim := time.Date(w.Year(), w.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	dayOK := true
	if rr.monthDays != nil {
		dayOK = slices.Contains(rr.monthDays, w.Day()) || slices.Contains(rr.monthDays, w.Day()-dim-1)
	}
	if rr.occ != nil {
		nth, fromEnd := (w.Day()-1)/7+1, -((dim-w.Day())/7 + 1)
		ok := false
		for _, o := range rr.occ {
			ok = ok || (time.Weekday(o[0]) == w.Weekday() && (o[1] == 0 || o[1] == nth || o[1] == fromEnd))
		}
		dayOK = dayOK && ok
	}
	if rr.monthDays == nil && rr.occ == nil {
		want := a.Day()
		if rr.simple() && want > dim {
			want = dim
		}
		dayOK = w.Day() == want
	}
	return dayOK
}

// matchesSecond is matches for frequency second (instant t, its wall time
// w, the anchor a): every interval-th wall second from the anchor's (elapsed
// seconds without a schedule), each element given limiting it.
func (rr randRule) matchesSecond(t, w, a time.Time) bool {
	if rr.simple() {
		d := t.Unix() - a.Unix()
		return d >= 0 && d%int64(rr.interval) == 0
	}
	ws, as := t.Unix()+int64(offset(w)), a.Unix()+int64(offset(a))
	in := func(list []int, v int) bool { return list == nil || slices.Contains(list, v) }
	if (ws-as)%int64(rr.interval) != 0 || !in(rr.hours, w.Hour()) || !in(rr.minutes, w.Minute()) || !in(rr.months, int(w.Month())) {
		return false
	}
	if rr.weekDays != nil && !slices.Contains(rr.weekDays, w.Weekday()) {
		return false
	}
	dim := time.Date(w.Year(), w.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if rr.monthDays != nil && !slices.Contains(rr.monthDays, w.Day()) && !slices.Contains(rr.monthDays, w.Day()-dim-1) {
		return false
	}
	if rr.occ != nil {
		nth, fromEnd := (w.Day()-1)/7+1, -((dim-w.Day())/7 + 1)
		ok := false
		for _, o := range rr.occ {
			ok = ok || (time.Weekday(o[0]) == w.Weekday() && (o[1] == 0 || o[1] == nth || o[1] == fromEnd))
		}
		return ok
	}
	return true
}

// genSecondRule draws a random rule of frequency second in a zone without
// daylight saving: an interval from 1 to 86,400 and, sometimes, each
// element of the schedule.
func genSecondRule(rng *rand.Rand) randRule {
	rr := randRule{freq: "second"}
	zones := []string{"UTC", "Asia/Tokyo", "Asia/Kolkata", "Etc/GMT+5"}
	rr.zone = zones[rng.Intn(len(zones))]
	rr.interval = []int{1, 1, 2, 5, 7, 10, 30, 59, 60, 90, 600, 3599, 3600, 86399, 86400}[rng.Intn(15)]
	rr.minutes = pick(rng, 0, 59, 6)
	rr.hours = pick(rng, 0, 23, 5)
	if rng.Intn(3) == 0 {
		for _, d := range pick(rng, 0, 6, 4) {
			rr.weekDays = append(rr.weekDays, time.Weekday(d))
		}
	}
	if rng.Intn(4) == 0 {
		rr.months = pick(rng, 1, 12, 3)
	}
	if rng.Intn(4) == 0 {
		for _, d := range pick(rng, 1, 31, 3) {
			if rng.Intn(3) == 0 {
				d = -d
			}
			rr.monthDays = append(rr.monthDays, d)
		}
	}
	if rng.Intn(5) == 0 {
		rr.occ = append(rr.occ, [2]int{rng.Intn(7), []int{0, 1, 2, -1}[rng.Intn(4)]})
	}
	rr.start = time.Date(2000+rng.Intn(40), time.Month(1+rng.Intn(12)), 1+rng.Intn(28), rng.Intn(24), rng.Intn(60), rng.Intn(60), 0, time.UTC)
	return rr
}

// TestSecondProperties checks random rules of frequency second as
// TestProperties checks the others: results strictly increase, each
// matches, none lies before the start, Next agrees, and (over spans of at
// most two days, second by second) none is missing.
func TestSecondProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(20260516))
	cases := 600
	if testing.Short() {
		cases = 150
	}
	checked := 0
	for i := 0; i < cases; i++ {
		rr := genSecondRule(rng)
		js := rr.json()
		job := mustParse(t, js)
		loc := job.Location()
		now := rr.start.Add(time.Duration(rng.Int63n(int64(4*24*time.Hour)) - int64(2*24*time.Hour)))
		r, err := Compile(job, now)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		occ := r.Take(60)
		from := now.Truncate(time.Second)
		if rr.start.After(from) {
			from = rr.start
		}
		for k, o := range occ {
			if k > 0 && !o.After(occ[k-1]) {
				t.Fatalf("%s now %v: not increasing at %d: %v", js, now, k, occ)
			}
			if o.Before(from) {
				t.Fatalf("%s now %v: %v before the start %v", js, now, o, from)
			}
			if !rr.matches(o, loc) {
				t.Fatalf("%s now %v: %v does not match", js, now, o.In(loc))
			}
			if n, ok := r.Next(o.Add(-time.Nanosecond)); !ok || !n.Equal(o) {
				t.Fatalf("%s: Next just before %v gave %v", js, o, n)
			}
		}
		if len(occ) > 1 && occ[len(occ)-1].Sub(from) < 48*time.Hour {
			checked++
			set := map[int64]bool{}
			for _, o := range occ {
				set[o.Unix()] = true
			}
			for s := from; !s.After(occ[len(occ)-1]); s = s.Add(time.Second) {
				if rr.matches(s, loc) && !set[s.Unix()] {
					t.Fatalf("%s now %v: missing %v (got %v)", js, now, s.In(loc), formatAll(occ))
				}
			}
		}
	}
	if checked < cases/10 {
		t.Errorf("only %d cases checked for completeness", checked)
	}
	t.Logf("%d rules, %d enumerated for completeness", cases, checked)
}

// offset returns the zone offset of t in seconds.
func offset(t time.Time) int {
	_, off := t.Zone()
	return off
}

// TestProperties checks random rules: results strictly increase, each
// matches the schedule, none lies before the start or after the end, and
// (where the span is small enough to enumerate minute by minute) none is
// missing.
func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(20240501))
	cases := 1500
	if testing.Short() {
		cases = 300
	}
	checked := 0
	for i := 0; i < cases; i++ {
		rr := genRule(rng)
		js := rr.json()
		job := mustParse(t, js)
		loc := job.Location()
		now := rr.start.Add(time.Duration(rng.Int63n(int64(3*365*24*time.Hour)) - int64(365*24*time.Hour)))
		end := now.Add(time.Duration(rng.Int63n(int64(2 * 365 * 24 * time.Hour))))
		withEnd := rng.Intn(3) == 0
		if withEnd {
			var m map[string]any
			_ = json.Unmarshal([]byte(js), &m)
			m["recurrence"].(map[string]any)["endTime"] = end.Format(time.RFC3339)
			b, _ := json.Marshal(m)
			job = mustParse(t, string(b))
		}
		r, err := Compile(job, now)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		occ := r.Take(60)
		from := now.Truncate(time.Second)
		if rr.start.After(from) {
			from = rr.start
		}
		for k, o := range occ {
			if k > 0 && !o.After(occ[k-1]) {
				t.Fatalf("%s now %v: not increasing at %d: %v", js, now, k, occ)
			}
			if o.Before(from) {
				t.Fatalf("%s now %v: %v before the start %v", js, now, o, from)
			}
			if withEnd && o.After(end) {
				t.Fatalf("%s: %v after the end %v", js, o, end)
			}
			if !rr.matches(o, loc) {
				t.Fatalf("%s now %v: %v does not match", js, now, o.In(loc))
			}
			if n, ok := r.Next(o.Add(-time.Nanosecond)); !ok || !n.Equal(o) {
				t.Fatalf("%s: Next just before %v gave %v", js, o, n)
			}
		}
		// Completeness: no matching minute between from and the last result is missing.
		if len(occ) > 1 && occ[len(occ)-1].Sub(from) < 120*24*time.Hour {
			checked++
			set := map[int64]bool{}
			for _, o := range occ {
				set[o.Unix()] = true
			}
			sec := time.Duration(0)
			if rr.simple() {
				sec = time.Duration(rr.start.Second()) * time.Second
			}
			for m := from.Truncate(time.Minute).Add(sec); !m.After(occ[len(occ)-1]); m = m.Add(time.Minute) {
				if !m.Before(from) && rr.matches(m, loc) && !set[m.Unix()] {
					t.Fatalf("%s now %v: missing %v (got %v)", js, now, m.In(loc), formatAll(occ))
				}
			}
		}
	}
	if checked < cases/10 {
		t.Errorf("only %d cases checked for completeness", checked)
	}
	t.Logf("%d rules, %d enumerated for completeness", cases, checked)
}

// TestFarPastAnchors checks that anchors decades back give the same answers
// as recent ones (the period arithmetic, not a walk from the anchor).
func TestFarPastAnchors(t *testing.T) {
	tests := []struct{ start, rec, now, want string }{
		{"2010-01-01T00:03:00Z", `{"frequency":"minute","interval":7}`, "2024-05-01T10:05:00Z",
			// 2010-01-01 → 2024-05-01 is 14·365 + 3 leap days + 121 = 5234 days; plus 10:05 − 00:03 = 602 min:
			// 7,537,562 minutes; the next multiple of 7 is 7,537,565, three minutes later.
			"2024-05-01T10:08:00Z"},
		{"1900-01-01T06:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}}`, "2024-05-01T10:05:00Z",
			"2024-05-31T06:00:00Z"},
		{"0001-01-01T00:00:00Z", `{"frequency":"year","schedule":{"months":[2],"monthDays":[29]}}`, "2025-01-01T00:00:00Z",
			"2028-02-29T00:00:00Z"},
	}
	for _, tc := range tests {
		got := takeN(t, jobJSON(tc.start, tc.rec), tc.now, 1)
		if len(got) != 1 || !sameInstants(t, got, []string{tc.want}) {
			t.Errorf("%s %s: got %v, want %s", tc.start, tc.rec, got, tc.want)
		}
	}
}

// ExamplePreview shows the preview of a seed example.
func ExamplePreview() {
	job := `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
		"startTime":"2024-05-01T08:00:00Z",
		"recurrence":{"frequency":"week","schedule":{"weekDays":["monday","wednesday","friday"],"hours":[10,22]},"count":4}}`
	res, _ := Preview(mustParse(nil, job), time.Date(2024, 4, 30, 12, 0, 0, 0, time.UTC), 10)
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "occurrences": [
	//     "2024-05-01T10:00:00Z",
	//     "2024-05-01T22:00:00Z",
	//     "2024-05-03T10:00:00Z",
	//     "2024-05-03T22:00:00Z"
	//   ],
	//   "description": "At 10:00 and 22:00 on Monday, Wednesday and Friday, 4 times",
	//   "warnings": [
	//     "count 4 ends the job: the last occurrence is 2024-05-03 22:00"
	//   ]
	// }
}
