package calics_test

import (
	"strings"
	"testing"
	"time"

	"sked/scheduler/calics"
)

// TestImportLocalTimesDaylightSaving checks that a TZID date-time the
// zone's clocks skip or repeat is the instant RFC 5545 and SPEC §2 agree
// on (a skipped time moves forward by the gap, a repeated one is its
// first instant), so that an event lands on its own date where daylight
// saving changes at midnight.
func TestImportLocalTimesDaylightSaving(t *testing.T) {
	santiago, err := time.LoadLocation("America/Santiago")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, event, want string }{
		{"skipped midnight: the same date, an hour later", "SUMMARY:Gap\nDTSTART;TZID=America/Santiago:20240908T003000",
			`{"date":"2024-09-08","label":"Gap"}`},
		{"skipped midnight, floating time on the calendar's clock", "SUMMARY:Gap\nDTSTART:20240908T001500",
			`{"date":"2024-09-08","label":"Gap"}`},
		{"repeated hour: the first pass", "SUMMARY:Twice\nDTSTART;TZID=America/Santiago:20240406T233000\nDTEND;TZID=America/Santiago:20240407T003000",
			`{"from":"2024-04-06","to":"2024-04-07","label":"Twice"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := calics.Read(file(tc.event))
			if err != nil {
				t.Fatal(err)
			}
			items, skipped := f.Convert(santiago)
			var got []string
			for _, it := range items {
				got = append(got, string(it.Entry.Marshal()))
			}
			for _, s := range skipped {
				got = append(got, s.Reason)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}
