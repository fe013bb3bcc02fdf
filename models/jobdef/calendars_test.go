package jobdef

import (
	"strings"
	"testing"
)

// TestRecurrenceCalendars checks recurrence.calendars: accepted forms in
// canonical output, and every refusal naming its field.
func TestRecurrenceCalendars(t *testing.T) {
	const head = `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"day","calendars":`
	tests := []struct {
		name, calendars string
		want            string // canonical calendars, or the problem
	}{
		{"default skip", `{"exclude":["holidays-de"]}`, `{"exclude":["holidays-de"],"onExcluded":"skip"}`},
		{"next day any case", `{"exclude":["a","B.c"],"onExcluded":"NEXTDAY"}`, `{"exclude":["a","B.c"],"onExcluded":"nextDay"}`},
		{"previous day", `{"exclude":["a"],"onExcluded":"previousDay"}`, `{"exclude":["a"],"onExcluded":"previousDay"}`},
		{"not an object", `"holidays"`, `recurrence.calendars: must be an object, not a string`},
		{"missing exclude", `{"onExcluded":"skip"}`, `recurrence.calendars.exclude: is required`},
		{"empty exclude", `{"exclude":[]}`, `recurrence.calendars.exclude: must name at least one calendar`},
		{"exclude not array", `{"exclude":"a"}`, `recurrence.calendars.exclude: must be an array of calendar names, not a string`},
		{"bad name", `{"exclude":["a b"]}`, `recurrence.calendars.exclude[0]: "a b" is not a calendar name`},
		{"number", `{"exclude":[1]}`, `recurrence.calendars.exclude[0]: must be a calendar name, not a number`},
		{"twice", `{"exclude":["a","A"]}`, `recurrence.calendars.exclude[1]: "A" is listed twice`},
		{"too many", `{"exclude":["a","b","c","d","e","f","g","h","i","j","k"]}`, `recurrence.calendars.exclude: names 11 calendars, over the maximum of 10`},
		{"bad onExcluded", `{"exclude":["a"],"onExcluded":"later"}`, `recurrence.calendars.onExcluded: "later" is not one of skip, nextDay, previousDay`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job, err := Parse([]byte(head + tc.calendars + `}}`))
			if strings.HasPrefix(tc.want, "recurrence.") {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want a problem %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := string(job.MarshalProperties(MarshalOptions{}))
			if !strings.Contains(out, `"calendars":`+tc.want) {
				t.Errorf("output %s lacks %s", out, tc.want)
			}
			again, err := Parse([]byte(out))
			if err != nil {
				t.Fatalf("canonical output does not parse again: %v", err)
			}
			if out2 := string(again.MarshalProperties(MarshalOptions{})); out2 != out {
				t.Errorf("round trip: %s, then %s", out, out2)
			}
		})
	}
}
