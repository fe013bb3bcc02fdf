package calics_test

import (
	"testing"
	"time"

	"sked/models/caldef"
	"sked/scheduler/calics"
)

// FuzzImport feeds arbitrary files to Read and Convert: no panic, and every
// entry they give is a valid calendar entry. Run longer with
// go test ./scheduler/calics -run '^$' -fuzz FuzzImport -fuzztime 5m
// (add -fuzzminimizetime 0 on a busy machine: minimizing shows as 0/sec).
func FuzzImport(f *testing.F) {
	f.Add([]byte(file("SUMMARY:Day\nDTSTART;VALUE=DATE:20261225\nDTEND;VALUE=DATE:20261226")))
	f.Add([]byte(file("SUMMARY:Y\nDTSTART;VALUE=DATE:20200501\nRRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;UNTIL=20301231\nEXDATE;VALUE=DATE:20250501")))
	f.Add([]byte(file("SUMMARY:T\nDTSTART;TZID=America/New_York:20261231T170000\nDURATION:PT3H\nRRULE:FREQ=WEEKLY;BYDAY=MO,-1FR")))
	f.Add([]byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:2026\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	berlin, _ := time.LoadLocation("Europe/Berlin")
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := calics.Read(data)
		if err != nil {
			return
		}
		items, _ := file.Convert(berlin)
		cal := &caldef.Calendar{Location: berlin}
		for _, it := range items {
			cal.Entries = append(cal.Entries, it.Entry)
		}
		if len(cal.Entries) <= caldef.MaxEntries {
			if _, err := caldef.Parse(cal.Marshal()); err != nil {
				t.Fatalf("entries from %q do not parse: %v", data, err)
			}
		}
	})
}
