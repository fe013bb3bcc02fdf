package recurrence

import (
	"encoding/json"
	"math/bits"
	"testing"
	"time"

	"sked/models/jobdef"
)

// fuzzZones are the zones FuzzNext picks from: UTC, fixed, and zones with
// daylight saving on both hemispheres, a half-hour change and a skipped day.
var fuzzZones = []string{"UTC", "America/Chicago", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata", "America/Sao_Paulo"}

// fuzzFreqs are the frequencies FuzzNext picks from.
var fuzzFreqs = []string{"minute", "hour", "day", "week", "month", "year"}

// maskList turns the low n bits of mask into a list of lo+i, or nil when empty.
func maskList(mask uint64, n, lo int) []int {
	var out []int
	for i := 0; i < n; i++ {
		if mask&(1<<i) != 0 {
			out = append(out, lo+i)
		}
	}
	return out
}

// FuzzNext builds rules from raw numbers and checks that Next never panics
// nor hangs, that results strictly increase, stay within start and end, and
// that Next from just before a result returns that result.
func FuzzNext(f *testing.F) {
	f.Add(uint8(1), uint16(7), uint64(1<<15), uint32(0), uint8(0), uint64(0), uint32(0), uint16(0), int64(1262304000), int64(1714557900), uint8(0), int64(0))
	f.Add(uint8(4), uint16(1), uint64(0), uint32(1<<5), uint8(0), uint64(0), uint32(0x50), uint16(0), int64(1262304000), int64(1714557900), uint8(2), int64(0))
	f.Add(uint8(5), uint16(1), uint64(0), uint32(0), uint8(0), uint64(1<<29), uint32(0), uint16(1<<1), int64(1262304000), int64(1714557900), uint8(1), int64(3e7))
	f.Add(uint8(2), uint16(1), uint64(1<<30), uint32(1<<2|1<<1), uint8(0), uint64(0), uint32(0), uint16(0), int64(1552176000), int64(1552176000), uint8(1), int64(0))
	f.Fuzz(func(t *testing.T, freq uint8, interval uint16, minMask uint64, hourMask uint32, wdMask uint8,
		mdMask uint64, occMask uint32, monthsMask uint16, start, now int64, zone uint8, endAfter int64) {
		f := fuzzFreqs[int(freq)%len(fuzzFreqs)]
		max := jobdef.Frequency(f).MaxInterval()
		sched := map[string]any{}
		if l := maskList(minMask, 60, 0); l != nil {
			sched["minutes"] = l
		}
		if l := maskList(uint64(hourMask), 24, 0); l != nil {
			sched["hours"] = l
		}
		if f == "week" {
			var names []string
			for _, d := range maskList(uint64(wdMask), 7, 0) {
				names = append(names, time.Weekday(d).String())
			}
			if names != nil {
				sched["weekDays"] = names
			}
		}
		if f == "month" || f == "year" {
			var md []int
			for _, d := range maskList(mdMask, 62, 0) {
				if d < 31 {
					md = append(md, d+1)
				} else {
					md = append(md, 30-d)
				}
			}
			if md != nil {
				sched["monthDays"] = md
			}
			var occ []map[string]any
			for _, b := range maskList(uint64(occMask), 32, 0) {
				o := map[string]any{"day": time.Weekday(b % 7).String()}
				if n := []int{0, 1, 2, 3, 4, 5, -1, -2, -3, -4, -5}[bits.OnesCount32(occMask>>b)%11]; n != 0 {
					o["occurrence"] = n
				}
				occ = append(occ, o)
			}
			if occ != nil {
				sched["monthlyOccurrences"] = occ
			}
		}
		if f == "year" {
			if l := maskList(uint64(monthsMask), 12, 1); l != nil {
				sched["months"] = l
			}
		}
		const lo, hi = -62135596800, 253402300799 // years 0001 … 9999
		clamp := func(v int64) int64 { return lo + int64(uint64(v)%uint64(hi-lo)) }
		st, nw := time.Unix(clamp(start), 0).UTC(), time.Unix(clamp(now), 0).UTC()
		rec := map[string]any{"frequency": f, "interval": 1 + int(interval)%max, "schedule": sched,
			"timeZone": fuzzZones[int(zone)%len(fuzzZones)]}
		var end time.Time
		if endAfter != 0 {
			end = time.Unix(clamp(nw.Unix()+endAfter%(400*86400)), 0).UTC()
			rec["endTime"] = end.Format(time.RFC3339)
		}
		b, _ := json.Marshal(map[string]any{"action": map[string]any{"type": "http", "request": map[string]any{"uri": "http://example.com/", "method": "GET"}}, "startTime": st.Format(time.RFC3339), "recurrence": rec})
		job, err := jobdef.Parse(b)
		if err != nil {
			t.Fatalf("generated job rejected: %v\n%s", err, b)
		}
		r, err := Compile(job, nw)
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		prev := time.Time{}
		for i := 0; i < 20; i++ {
			next, ok := r.Next(prev)
			if i == 0 {
				next, ok = r.Next(nw.Add(-time.Second))
			}
			if !ok {
				break
			}
			if !prev.IsZero() && !next.After(prev) {
				t.Fatalf("%s: %v not after %v", b, next, prev)
			}
			if next.Before(nw) || next.Before(st) || (!end.IsZero() && next.After(end)) {
				t.Fatalf("%s: %v outside [%v, %v]", b, next, nw, end)
			}
			if again, ok := r.Next(next.Add(-time.Second)); !ok || !again.Equal(next) {
				t.Fatalf("%s: Next before %v gave %v", b, next, again)
			}
			prev = next
		}
		if _, err := Preview(job, nw, 20); err != nil {
			t.Fatalf("preview: %v", err)
		}
	})
}

// FuzzPreview feeds raw job JSON through Parse and Preview.
func FuzzPreview(f *testing.F) {
	f.Add([]byte(`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"startTime":"2019-03-10T02:30:00","recurrence":{"frequency":"hour","timeZone":"America/Chicago","schedule":{"minutes":[30]}}}`), int64(1552176000), uint16(50))
	f.Add([]byte(`{"properties":{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"recurrence":{"frequency":"year","schedule":{"months":[2],"monthDays":[30]}}}}`), int64(0), uint16(1000))
	f.Fuzz(func(t *testing.T, data []byte, now int64, n uint16) {
		job, err := jobdef.Parse(data)
		if err != nil {
			return
		}
		at := time.Unix(now%253402300799, 0)
		if at.Year() < 1 {
			at = time.Unix(0, 0)
		}
		res, err := Preview(job, at, int(n)%(MaxPreviewCount+1))
		if err != nil {
			return
		}
		for i := 1; i < len(res.Occurrences); i++ {
			if !res.Occurrences[i].After(res.Occurrences[i-1]) {
				t.Fatalf("not increasing: %v", res.Occurrences)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("marshal: %v", err)
		}
	})
}
