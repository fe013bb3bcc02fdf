package caldef

import (
	"strings"
	"testing"
)

// TestParseRoundTrip checks that valid calendars parse and write back in
// canonical form, which parses to the same output again.
func TestParseRoundTrip(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", `{"entries":[]}`, `{"entries":[]}`},
		{"every kind", `{"timeZone":"Europe/Berlin","description":"Holidays","entries":[
			{"date":"2026-12-24","label":"Christmas Eve"},
			{"from":"2026-12-27","to":"2026-12-31"},
			{"yearly":"12-25","label":"Christmas Day","except":["2030-12-25"],"since":"2000-01-01"},
			{"rule":{"frequency":"year","schedule":{"months":[5],"monthlyOccurrences":[{"day":"monday","occurrence":-1}]}},"label":"Memorial Day","until":"2100-12-31"}]}`,
			`{"timeZone":"Europe/Berlin","description":"Holidays","entries":[{"date":"2026-12-24","label":"Christmas Eve"},{"from":"2026-12-27","to":"2026-12-31"},{"yearly":"12-25","label":"Christmas Day","since":"2000-01-01","except":["2030-12-25"]},{"rule":{"frequency":"year","schedule":{"months":[5],"monthlyOccurrences":[{"day":"monday","occurrence":-1}]}},"label":"Memorial Day","until":"2100-12-31"}]}`},
		{"leap day yearly, windows zone", `{"timeZone":"W. Europe Standard Time","entries":[{"yearly":"02-29"}]}`,
			`{"timeZone":"W. Europe Standard Time","entries":[{"yearly":"02-29"}]}`},
		{"name and days ignored", `{"name":"x","days":3,"entries":[{"date":"2026-01-01"}]}`, `{"entries":[{"date":"2026-01-01"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(c.Marshal()); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			again, err := Parse(c.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			if got := string(again.Marshal()); got != tc.want {
				t.Errorf("second round: %s", got)
			}
		})
	}
}

// TestParseProblems checks that bad calendars are refused with every
// problem naming its field.
func TestParseProblems(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"not json", `nope`, []string{"calendar: must be a JSON object"}},
		{"array", `[]`, []string{"calendar: must be a JSON object"}},
		{"no entries", `{}`, []string{"entries: is required"}},
		{"entries not array", `{"entries":{}}`, []string{"entries: must be an array"}},
		{"unknown field", `{"entries":[],"holidays":1}`, []string{"holidays: is not a field of a calendar"}},
		{"bad zone", `{"timeZone":"Mars/Olympus","entries":[]}`, []string{`timeZone: "Mars/Olympus" is not a known`}},
		{"two kinds", `{"entries":[{"date":"2026-01-01","yearly":"01-01"}]}`, []string{"entries[0]: must have exactly one of"}},
		{"no kind", `{"entries":[{"label":"x"}]}`, []string{"entries[0]: must have exactly one of"}},
		{"bad date", `{"entries":[{"date":"2026-02-30"}]}`, []string{`entries[0].date: "2026-02-30" is not a date`}},
		{"date out of years", `{"entries":[{"date":"2300-01-01"}]}`, []string{"entries[0].date: \"2300-01-01\" is outside the years 1900–2199"}},
		{"range backwards", `{"entries":[{"from":"2026-02-03","to":"2026-02-01"}]}`, []string{"entries[0].to: 2026-02-01 comes before from (2026-02-03)"}},
		{"range without to", `{"entries":[{"from":"2026-02-03"}]}`, []string{"entries[0].to: is required"}},
		{"range too long", `{"entries":[{"from":"2000-01-01","to":"2020-01-01"}]}`, []string{"entries[0].to: the range has 7306 days, over the maximum of 3660"}},
		{"bad yearly", `{"entries":[{"yearly":"13-01"}]}`, []string{`entries[0].yearly: "13-01" is not a month and day`}},
		{"since on a date", `{"entries":[{"date":"2026-01-01","since":"2020-01-01"}]}`, []string{`entries[0].since: applies only to "yearly" and "rule" entries`}},
		{"until before since", `{"entries":[{"yearly":"01-01","since":"2020-01-01","until":"2019-01-01"}]}`, []string{"entries[0].until: 2019-01-01 comes before since (2020-01-01)"}},
		{"bad except", `{"entries":[{"yearly":"01-01","except":["x"]}]}`, []string{`entries[0].except[0]: "x" is not a date`}},
		{"rule hours", `{"entries":[{"rule":{"frequency":"day","schedule":{"hours":[5]}}}]}`, []string{"entries[0].rule.schedule: a calendar rule names days"}},
		{"rule minute", `{"entries":[{"rule":{"frequency":"minute"}}]}`, []string{`entries[0].rule.frequency: "minute" is not a frequency of days`}},
		{"rule bad", `{"entries":[{"rule":{"frequency":"month","schedule":{"monthDays":[40]}}}]}`, []string{"entries[0].rule.schedule.monthDays"}},
		{"rule count", `{"entries":[{"rule":{"frequency":"day","count":3}}]}`, []string{`entries[0].rule: use the entry's "since" and "until"`}},
		{"label type", `{"entries":[{"date":"2026-01-01","label":5}]}`, []string{"entries[0].label: must be a string"}},
		{"several at once", `{"entries":[{"date":"x"},{"yearly":"x"}]}`, []string{"entries[0].date", "entries[1].yearly"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			if err == nil {
				t.Fatalf("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
