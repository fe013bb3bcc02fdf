package recurrence

import (
	"testing"
)

// seedRow is one row of the seeds' example table (000/002) with the
// frequency the row implies, expected instants written by hand from the rule.
type seedRow struct {
	name     string // the seeds' description
	schedule string
	freq     string
	start    string // default seedStart
	want     []string
	wantDesc string
}

// Unless a row says otherwise: the job starts (in the past) on Wednesday
// 2024-05-01 at 08:00 UTC and is created at 10:05 the same day, so elements
// not given default to hour 8, minute 0 (SPEC §2: RRULE defaults from the
// anchor). May 2024: Fridays 3, 10, 17, 24, 31; Wednesdays 1, 8, 15, 22, 29.
const (
	seedStart = "2024-05-01T08:00:00Z"
	seedNow   = "2024-05-01T10:05:00Z"
)

var seedRows = []seedRow{
	{"Run at 5AM every day", `{"hours":[5]}`, "day", "",
		[]string{"2024-05-02T05:00:00Z", "2024-05-03T05:00:00Z", "2024-05-04T05:00:00Z"},
		"At 05:00, every day"},
	{"Run at 5:15AM every day", `{"minutes":[15],"hours":[5]}`, "day", "",
		[]string{"2024-05-02T05:15:00Z", "2024-05-03T05:15:00Z"},
		"At 05:15, every day"},
	{"Run at 5:15 AM and 5:15 PM every day", `{"minutes":[15],"hours":[5,17]}`, "day", "",
		[]string{"2024-05-01T17:15:00Z", "2024-05-02T05:15:00Z", "2024-05-02T17:15:00Z"},
		"At 05:15 and 17:15, every day"},
	{"Run at 5:15AM, 5:45AM, 5:15PM, and 5:45PM every day", `{"minutes":[15,45],"hours":[5,17]}`, "day", "",
		[]string{"2024-05-01T17:15:00Z", "2024-05-01T17:45:00Z", "2024-05-02T05:15:00Z", "2024-05-02T05:45:00Z", "2024-05-02T17:15:00Z"},
		"At 05:15, 05:45, 17:15 and 17:45, every day"},
	{"Run every 15 minutes", `{"minutes":[0,15,30,45]}`, "hour", "",
		[]string{"2024-05-01T10:15:00Z", "2024-05-01T10:30:00Z", "2024-05-01T10:45:00Z", "2024-05-01T11:00:00Z"},
		"Every 15 minutes"},
	{"Run every hour (minute from the start time, 12:25)", `{"hours":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]}`, "day",
		"2024-04-30T12:25:00Z",
		[]string{"2024-05-01T10:25:00Z", "2024-05-01T11:25:00Z", "2024-05-01T12:25:00Z"},
		"At 25 minutes past every hour"},
	{"Run every hour on the hour", `{"minutes":[0]}`, "hour", "",
		[]string{"2024-05-01T11:00:00Z", "2024-05-01T12:00:00Z", "2024-05-01T13:00:00Z"},
		"Every hour on the hour"},
	{"Run at 15 minutes past hour every hour", `{"minutes":[15]}`, "hour", "",
		[]string{"2024-05-01T10:15:00Z", "2024-05-01T11:15:00Z", "2024-05-01T12:15:00Z"},
		"At 15 minutes past every hour"},
	{"Run at 5PM on Saturdays every week", `{"hours":[17],"weekDays":["saturday"]}`, "week", "",
		[]string{"2024-05-04T17:00:00Z", "2024-05-11T17:00:00Z"},
		"At 17:00 on Saturday"},
	{"Run at 5PM on Monday, Wednesday, and Friday every week", `{"hours":[17],"weekDays":["monday","wednesday","friday"]}`, "week", "",
		[]string{"2024-05-01T17:00:00Z", "2024-05-03T17:00:00Z", "2024-05-06T17:00:00Z"},
		"At 17:00 on Monday, Wednesday and Friday"},
	{"Run at 5:15PM and 5:45PM on Monday, Wednesday, and Friday every week", `{"minutes":[15,45],"hours":[17],"weekDays":["monday","wednesday","friday"]}`, "week", "",
		[]string{"2024-05-01T17:15:00Z", "2024-05-01T17:45:00Z", "2024-05-03T17:15:00Z", "2024-05-03T17:45:00Z", "2024-05-06T17:15:00Z"},
		"At 17:15 and 17:45 on Monday, Wednesday and Friday"},
	{"Run at 5AM and 5PM on Monday, Wednesday, and Friday every week", `{"hours":[5,17],"weekDays":["monday","wednesday","friday"]}`, "week", "",
		[]string{"2024-05-01T17:00:00Z", "2024-05-03T05:00:00Z", "2024-05-03T17:00:00Z", "2024-05-06T05:00:00Z"},
		"At 05:00 and 17:00 on Monday, Wednesday and Friday"},
	{"Run at 5:15AM, 5:45AM, 5:15PM, and 5:45PM on Monday, Wednesday, and Friday every week", `{"minutes":[15,45],"hours":[5,17],"weekDays":["monday","wednesday","friday"]}`, "week", "",
		[]string{"2024-05-01T17:15:00Z", "2024-05-01T17:45:00Z", "2024-05-03T05:15:00Z", "2024-05-03T05:45:00Z", "2024-05-03T17:15:00Z"},
		"At 05:15, 05:45, 17:15 and 17:45 on Monday, Wednesday and Friday"},
	// SPEC §2 is normative: hours not given default to the anchor's (08), so
	// this runs every 15 minutes of the 08:00 hour on weekdays.
	{"Run every 15 minutes on weekdays", `{"minutes":[0,15,30,45],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}`, "week", "",
		[]string{"2024-05-02T08:00:00Z", "2024-05-02T08:15:00Z", "2024-05-02T08:30:00Z", "2024-05-02T08:45:00Z", "2024-05-03T08:00:00Z"},
		"Every 15 minutes on Monday to Friday, 08:00–08:45"},
	{"Run every 15 minutes on weekdays between 9AM and 4:45PM", `{"minutes":[0,15,30,45],"hours":[9,10,11,12,13,14,15,16],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}`, "week", "",
		[]string{"2024-05-01T10:15:00Z", "2024-05-01T10:30:00Z", "2024-05-01T10:45:00Z", "2024-05-01T11:00:00Z"},
		"Every 15 minutes on Monday to Friday, 09:00–16:45"},
	{"Run on Sundays at start time", `{"weekDays":["sunday"]}`, "week", "",
		[]string{"2024-05-05T08:00:00Z", "2024-05-12T08:00:00Z"},
		"At 08:00 on Sunday"},
	{"Run on Tuesdays and Thursdays at start time", `{"weekDays":["tuesday","thursday"]}`, "week", "",
		[]string{"2024-05-02T08:00:00Z", "2024-05-07T08:00:00Z", "2024-05-09T08:00:00Z"},
		"At 08:00 on Tuesday and Thursday"},
	{"Run at 6AM on the 28th day of every month", `{"minutes":[0],"hours":[6],"monthDays":[28]}`, "month", "",
		[]string{"2024-05-28T06:00:00Z", "2024-06-28T06:00:00Z", "2024-07-28T06:00:00Z"},
		"At 06:00 on the 28th day of every month"},
	{"Run at 6AM on the last day of the month", `{"minutes":[0],"hours":[6],"monthDays":[-1]}`, "month", "",
		[]string{"2024-05-31T06:00:00Z", "2024-06-30T06:00:00Z", "2024-07-31T06:00:00Z", "2024-08-31T06:00:00Z", "2024-09-30T06:00:00Z"},
		"At 06:00 on the last day of every month"},
	{"Run at 6AM on the first and last day of every month", `{"minutes":[0],"hours":[6],"monthDays":[1,-1]}`, "month", "",
		[]string{"2024-05-31T06:00:00Z", "2024-06-01T06:00:00Z", "2024-06-30T06:00:00Z", "2024-07-01T06:00:00Z"},
		"At 06:00 on the first and last day of every month"},
	{"Run on the first and last day of every month at start time", `{"monthDays":[1,-1]}`, "month", "",
		[]string{"2024-05-31T08:00:00Z", "2024-06-01T08:00:00Z", "2024-06-30T08:00:00Z"},
		"At 08:00 on the first and last day of every month"},
	{"Run on the first and fourteenth day of every month at start time", `{"monthDays":[1,14]}`, "month", "",
		[]string{"2024-05-14T08:00:00Z", "2024-06-01T08:00:00Z", "2024-06-14T08:00:00Z"},
		"At 08:00 on the first and 14th day of every month"},
	{"Run on the second day of the month at start time", `{"monthDays":[2]}`, "month", "",
		[]string{"2024-05-02T08:00:00Z", "2024-06-02T08:00:00Z"},
		"At 08:00 on the second day of every month"},
	{"Run on first Friday of every month at 5AM", `{"minutes":[0],"hours":[5],"monthlyOccurrences":[{"day":"friday","occurrence":1}]}`, "month", "",
		[]string{"2024-05-03T05:00:00Z", "2024-06-07T05:00:00Z", "2024-07-05T05:00:00Z"},
		"On the first Friday of every month at 05:00"},
	{"Run on first Friday of every month at start time", `{"monthlyOccurrences":[{"day":"friday","occurrence":1}]}`, "month", "",
		[]string{"2024-05-03T08:00:00Z", "2024-06-07T08:00:00Z", "2024-07-05T08:00:00Z"},
		"On the first Friday of every month at 08:00"},
	{"Run on third Friday from end of month, every month, at start time", `{"monthlyOccurrences":[{"day":"friday","occurrence":-3}]}`, "month", "",
		[]string{"2024-05-17T08:00:00Z", "2024-06-14T08:00:00Z", "2024-07-12T08:00:00Z"},
		"On the third-to-last Friday of every month at 08:00"},
	{"Run on first and last Friday of every month at 5:15AM", `{"minutes":[15],"hours":[5],"monthlyOccurrences":[{"day":"friday","occurrence":1},{"day":"friday","occurrence":-1}]}`, "month", "",
		[]string{"2024-05-03T05:15:00Z", "2024-05-31T05:15:00Z", "2024-06-07T05:15:00Z", "2024-06-28T05:15:00Z"},
		"On the first and last Friday of every month at 05:15"},
	{"Run on first and last Friday of every month at start time", `{"monthlyOccurrences":[{"day":"friday","occurrence":1},{"day":"friday","occurrence":-1}]}`, "month", "",
		[]string{"2024-05-03T08:00:00Z", "2024-05-31T08:00:00Z", "2024-06-07T08:00:00Z", "2024-06-28T08:00:00Z"},
		"On the first and last Friday of every month at 08:00"},
	// Five Fridays in 2024: May (31st), August (30th), November (29th).
	{"Run on fifth Friday of every month at start time", `{"monthlyOccurrences":[{"day":"friday","occurrence":5}]}`, "month", "",
		[]string{"2024-05-31T08:00:00Z", "2024-08-30T08:00:00Z", "2024-11-29T08:00:00Z"},
		"On the fifth Friday of every month at 08:00"},
	{"Run every 15 minutes on last Friday of the month", `{"minutes":[0,15,30,45],"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}`, "month", "",
		[]string{"2024-05-31T08:00:00Z", "2024-05-31T08:15:00Z", "2024-05-31T08:30:00Z", "2024-05-31T08:45:00Z", "2024-06-28T08:00:00Z"},
		"Every 15 minutes on the last Friday of every month, 08:00–08:45"},
	{"Run at 5:15AM, 5:45AM, 5:15PM, and 5:45PM on the 3rd Wednesday of every month", `{"minutes":[15,45],"hours":[5,17],"monthlyOccurrences":[{"day":"wednesday","occurrence":3}]}`, "month", "",
		[]string{"2024-05-15T05:15:00Z", "2024-05-15T05:45:00Z", "2024-05-15T17:15:00Z", "2024-05-15T17:45:00Z", "2024-06-19T05:15:00Z"},
		"On the third Wednesday of every month at 05:15, 05:45, 17:15 and 17:45"},
}

// TestSeedExamples checks every row of the seeds' example table.
func TestSeedExamples(t *testing.T) {
	for _, row := range seedRows {
		t.Run(row.name, func(t *testing.T) {
			start := row.start
			if start == "" {
				start = seedStart
			}
			js := jobJSON(start, `{"frequency":"`+row.freq+`","interval":1,"schedule":`+row.schedule+`}`)
			got := takeN(t, js, seedNow, len(row.want))
			if !sameInstants(t, got, row.want) {
				t.Errorf("occurrences\n got %v\nwant %v", got, row.want)
			}
		})
	}
}

// TestSeedJobExample is the job of the seeds' "How To" excerpt: from Saturday
// 2012-08-04, weekly on Monday, Wednesday and Friday at 10:00 and 22:00, count
// 10, endTime 2012-11-04 (count ends it first, on Wednesday 2012-08-15).
func TestSeedJobExample(t *testing.T) {
	js := jobJSON("2012-08-04T00:00Z", `{"frequency":"week","interval":1,"schedule":{"weekDays":["monday","wednesday","friday"],"hours":[10,22]},"count":10,"endTime":"2012-11-04"}`)
	want := []string{
		"2012-08-06T10:00:00Z", "2012-08-06T22:00:00Z", "2012-08-08T10:00:00Z", "2012-08-08T22:00:00Z",
		"2012-08-10T10:00:00Z", "2012-08-10T22:00:00Z", "2012-08-13T10:00:00Z", "2012-08-13T22:00:00Z",
		"2012-08-15T10:00:00Z", "2012-08-15T22:00:00Z",
	}
	got := takeN(t, js, "2012-08-01T00:00:00Z", 50)
	if !sameInstants(t, got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestSeedWeekdayWorkingHours walks a whole working day and a weekend.
func TestSeedWeekdayWorkingHours(t *testing.T) {
	js := jobJSON(seedStart, `{"frequency":"week","schedule":{"minutes":[0,15,30,45],"hours":[9,10,11,12,13,14,15,16],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}}`)
	// Created Friday 2024-05-03 16:40: 16:45, then Monday 09:00.
	got := takeN(t, js, "2024-05-03T16:40:00Z", 3)
	want := []string{"2024-05-03T16:45:00Z", "2024-05-06T09:00:00Z", "2024-05-06T09:15:00Z"}
	if !sameInstants(t, got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// 32 a day: 10:15 … 16:45 is 27 on Wednesday, then Thursday 09:00.
	all := takeN(t, js, seedNow, 28)
	if all[26] != "2024-05-01T16:45:00Z" || all[27] != "2024-05-02T09:00:00Z" {
		t.Errorf("day boundary: got %v and %v", all[26], all[27])
	}
}

// TestSeedDescriptions checks the description of every seed example.
func TestSeedDescriptions(t *testing.T) {
	for _, row := range seedRows {
		t.Run(row.name, func(t *testing.T) {
			start := row.start
			if start == "" {
				start = seedStart
			}
			job := mustParse(t, jobJSON(start, `{"frequency":"`+row.freq+`","interval":1,"schedule":`+row.schedule+`}`))
			r, err := Compile(job, mustTime(t, seedNow))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Description(); got != row.wantDesc {
				t.Errorf("description\n got %q\nwant %q", got, row.wantDesc)
			}
		})
	}
}
