package recurrence

import (
	"strings"
	"testing"
)

// TestSpecWorkedChecks covers the recorded answers of the original service and
// the worked example of SPEC §2.
func TestSpecWorkedChecks(t *testing.T) {
	tests := []struct {
		name, start, rec, now string
		want                  []string
	}{
		{"recorded week/1", "2015-07-13T00:00Z", `{"frequency":"week","interval":1}`, "2016-03-30T19:36:33Z",
			[]string{"2016-04-04T00:00:00Z", "2016-04-11T00:00:00Z"}},
		{"recorded month/1 monthDays 15,30", "2015-07-13T00:00Z",
			`{"frequency":"month","interval":1,"schedule":{"hours":[5,10,15,20],"minutes":[0,10,20,30,40,50],"monthDays":[15,30]}}`,
			"2016-03-30T19:37:03Z",
			// Hour 19 is not selected: the next is 20:00, then every 10 minutes.
			[]string{"2016-03-30T20:00:00Z", "2016-03-30T20:10:00Z", "2016-03-30T20:20:00Z"}},
		{"recorded month/1 first Monday and Friday", "2015-07-13T00:00Z",
			`{"frequency":"month","interval":1,"schedule":{"hours":[5,10,15,20],"minutes":[0,10,20,30,40,50],"monthlyOccurrences":[{"day":"monday","occurrence":1},{"day":"friday","occurrence":1}]}}`,
			"2016-03-30T19:35:16Z",
			// April 2016: Friday 1st, Monday 4th.
			[]string{"2016-04-01T05:00:00Z", "2016-04-01T05:10:00Z"}},
		{"recorded minute/1", "2015-05-14T14:10Z", `{"frequency":"minute","interval":1}`, "2016-03-16T19:04:23Z",
			[]string{"2016-03-16T19:05:00Z", "2016-03-16T19:06:00Z"}},
		{"day/2 start 04-07", "2015-04-07T14:00Z", `{"frequency":"day","interval":2}`, "2015-04-08T13:00:00Z",
			[]string{"2015-04-09T14:00:00Z", "2015-04-11T14:00:00Z", "2015-04-13T14:00:00Z", "2015-04-15T14:00:00Z"}},
		{"day/2 start 04-05", "2015-04-05T14:00Z", `{"frequency":"day","interval":2}`, "2015-04-08T13:00:00Z",
			[]string{"2015-04-09T14:00:00Z", "2015-04-11T14:00:00Z", "2015-04-13T14:00:00Z", "2015-04-15T14:00:00Z"}},
		{"day/2 start 04-01", "2015-04-01T14:00Z", `{"frequency":"day","interval":2}`, "2015-04-08T13:00:00Z",
			[]string{"2015-04-09T14:00:00Z", "2015-04-11T14:00:00Z", "2015-04-13T14:00:00Z", "2015-04-15T14:00:00Z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := takeN(t, jobJSON(tc.start, tc.rec), tc.now, len(tc.want))
			if !sameInstants(t, got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestChicagoDST is the America/Chicago 2019 reference table of SPEC §2:
// daily at 01:30 and daily at 02:30 local across both changes.
func TestChicagoDST(t *testing.T) {
	tests := []struct {
		name, start, now string
		want             []string
	}{
		{"01:30 spring", "2019-03-09T01:30:00", "2019-03-01T00:00:00Z",
			[]string{"2019-03-09T07:30:00Z", "2019-03-10T07:30:00Z", "2019-03-11T06:30:00Z"}},
		{"02:30 spring (gap → 03:30 CDT)", "2019-03-09T02:30:00", "2019-03-01T00:00:00Z",
			[]string{"2019-03-09T08:30:00Z", "2019-03-10T08:30:00Z", "2019-03-11T07:30:00Z"}},
		{"01:30 fall (overlap → once, first)", "2019-11-02T01:30:00", "2019-11-01T00:00:00Z",
			[]string{"2019-11-02T06:30:00Z", "2019-11-03T06:30:00Z", "2019-11-04T07:30:00Z"}},
		{"02:30 fall", "2019-11-02T02:30:00", "2019-11-01T00:00:00Z",
			[]string{"2019-11-02T07:30:00Z", "2019-11-03T08:30:00Z", "2019-11-04T08:30:00Z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js := jobJSON(tc.start, `{"frequency":"day","timeZone":"America/Chicago"}`)
			got := takeN(t, js, tc.now, 3)
			if !sameInstants(t, got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			// The same with a schedule giving the time explicitly.
			sched := `{"frequency":"day","timeZone":"Central Standard Time","schedule":{"hours":[` +
				strings.TrimPrefix(tc.start[11:13], "0") + `],"minutes":[30]}}`
			got = takeN(t, jobJSON(tc.start[:10]+"T00:00:00", sched), tc.now, 3)
			if !sameInstants(t, got, tc.want) {
				t.Errorf("schedule: got %v, want %v", got, tc.want)
			}
		})
	}
}
