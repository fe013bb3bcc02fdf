package calics_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"sked/models/caldef"
	"sked/scheduler/calics"
	"sked/scheduler/recurrence"
)

// file wraps events into an iCalendar file.
func file(events ...string) []byte {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-TIMEZONE:Europe/Berlin\r\n")
	for i, e := range events {
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:%d@test\r\nDTSTAMP:20260101T000000Z\r\n", i)
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(e), "\n", "\r\n"))
		b.WriteString("\r\nEND:VEVENT\r\n")
	}
	b.WriteString("END:VCALENDAR\r\n")
	return []byte(b.String())
}

func TestImportEvents(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		name, event string
		want        string // the entries' JSON, space separated, or the reason
	}{
		{"all-day", "SUMMARY:Christmas Day\nDTSTART;VALUE=DATE:20261225\nDTEND;VALUE=DATE:20261226",
			`{"date":"2026-12-25","label":"Christmas Day"}`},
		{"all-day without DTEND", "SUMMARY:Eve\nDTSTART;VALUE=DATE:20261224", `{"date":"2026-12-24","label":"Eve"}`},
		{"multi-day, DTEND exclusive", "SUMMARY:Between\nDTSTART;VALUE=DATE:20261227\nDTEND;VALUE=DATE:20270101",
			`{"from":"2026-12-27","to":"2026-12-31","label":"Between"}`},
		{"all-day with DURATION", "SUMMARY:Two\nDTSTART;VALUE=DATE:20260301\nDURATION:P2D",
			`{"from":"2026-03-01","to":"2026-03-02","label":"Two"}`},
		{"timed across midnight in another zone", "SUMMARY:Party\nDTSTART;TZID=America/New_York:20261231T170000\nDTEND;TZID=America/New_York:20261231T200000",
			`{"from":"2026-12-31","to":"2027-01-01","label":"Party"}`},
		{"timed UTC ending at midnight", "SUMMARY:Late\nDTSTART:20260310T200000Z\nDTEND:20260310T230000Z",
			`{"date":"2026-03-10","label":"Late"}`},
		{"yearly RRULE with EXDATE and UNTIL", "SUMMARY:Labour Day\nDTSTART;VALUE=DATE:20200501\nRRULE:FREQ=YEARLY;UNTIL=20301231\nEXDATE;VALUE=DATE:20250501,20260501",
			`{"yearly":"05-01","label":"Labour Day","since":"2020-05-01","until":"2030-12-31","except":["2025-05-01","2026-05-01"]}`},
		{"yearly RRULE with BYMONTH and BYMONTHDAY", "SUMMARY:Unity\nDTSTART;VALUE=DATE:19900101\nRRULE:FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=3",
			`{"yearly":"10-03","label":"Unity","since":"1990-01-01"}`},
		{"yearly BYDAY 4TH", "SUMMARY:Thanksgiving\nDTSTART;VALUE=DATE:20201126\nRRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
			`{"rule":{"frequency":"year","schedule":{"monthlyOccurrences":[{"day":"thursday","occurrence":4}],"months":[11]}},"label":"Thanksgiving","since":"2020-11-26"}`},
		{"yearly BYDAY -1MO", "SUMMARY:Memorial Day\nDTSTART;VALUE=DATE:20200525\nRRULE:FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO",
			`{"rule":{"frequency":"year","schedule":{"monthlyOccurrences":[{"day":"monday","occurrence":-1}],"months":[5]}},"label":"Memorial Day","since":"2020-05-25"}`},
		{"weekly", "SUMMARY:Weekend\nDTSTART;VALUE=DATE:20260103\nRRULE:FREQ=WEEKLY;BYDAY=SA,SU",
			`{"rule":{"frequency":"week","schedule":{"weekDays":["saturday","sunday"]}},"label":"Weekend","since":"2026-01-03"}`},
		{"monthly by day", "SUMMARY:Close\nDTSTART;VALUE=DATE:20260131\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-1",
			`{"rule":{"frequency":"month","schedule":{"monthDays":[-1]}},"label":"Close","since":"2026-01-31"}`},
		{"RDATE adds days", "SUMMARY:Extra\nDTSTART;VALUE=DATE:20260601\nRRULE:FREQ=YEARLY\nRDATE;VALUE=DATE:20260815",
			`{"yearly":"06-01","label":"Extra","since":"2026-06-01"} {"date":"2026-08-15","label":"Extra"}`},
		{"unsupported BYSETPOS", "SUMMARY:Last workday\nDTSTART;VALUE=DATE:20260130\nRRULE:FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO,TU,WE,TH,FR",
			"RRULE uses BYSETPOS, which a calendar entry cannot express"},
		{"unsupported COUNT", "SUMMARY:Few\nDTSTART;VALUE=DATE:20260130\nRRULE:FREQ=YEARLY;COUNT=3",
			"RRULE ends after COUNT occurrences"},
		{"hourly", "SUMMARY:Often\nDTSTART:20260130T100000Z\nRRULE:FREQ=HOURLY",
			"FREQ=HOURLY repeats within a day"},
		{"cancelled", "SUMMARY:Off\nSTATUS:CANCELLED\nDTSTART;VALUE=DATE:20260130", "the event is cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := calics.Read(file(tc.event))
			if err != nil {
				t.Fatal(err)
			}
			if f.TimeZone != "Europe/Berlin" {
				t.Errorf("X-WR-TIMEZONE read as %q", f.TimeZone)
			}
			items, skipped := f.Convert(berlin)
			var got []string
			for _, it := range items {
				got = append(got, string(it.Entry.Marshal()))
			}
			for _, s := range skipped {
				got = append(got, s.Reason)
			}
			if g := strings.Join(got, " "); !strings.HasPrefix(g, tc.want) {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}

func TestReadRefusesWhatIsNotICalendar(t *testing.T) {
	for _, in := range []string{"hello", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n", "\xff\xfe"} {
		if _, err := calics.Read([]byte(in)); err == nil || !strings.Contains(err.Error(), "file") {
			t.Errorf("Read(%q) = %v, want a problem with the file", in, err)
		}
	}
}

// TestExportReimportsToTheSameDays exports a calendar of every kind of
// entry, parses the file with the same library, imports it again and
// compares the days both calendars exclude over the exported window.
func TestExportReimportsToTheSameDays(t *testing.T) {
	orig, err := caldef.Parse([]byte(`{"timeZone":"Europe/Berlin","entries":[
		{"date":"2027-06-01","label":"Once"},
		{"from":"2026-12-27","to":"2027-01-02","label":"Between the years"},
		{"yearly":"12-25","label":"Christmas Day","except":["2030-12-25"]},
		{"yearly":"02-29","label":"Leap","since":"2027-01-01","until":"2033-01-01"},
		{"rule":{"frequency":"year","schedule":{"months":[5],"monthlyOccurrences":[{"day":"monday","occurrence":-1}]}},"label":"Memorial Day","since":"2000-01-01"},
		{"rule":{"frequency":"week","interval":2,"schedule":{"weekDays":["friday"]}},"since":"2026-01-02","label":"Every other Friday"},
		{"rule":{"frequency":"week","schedule":{"weekDays":["saturday","sunday"]}},"since":"2027-03-01","until":"2029-06-30","except":["2027-03-06"],"label":"Weekend"},
		{"rule":{"frequency":"month","schedule":{"monthDays":[-1]}},"label":"Month end"},
		{"rule":{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"wednesday"}]}},"since":"2031-01-01","until":"2031-12-31","label":"Wednesdays of 2031"},
		{"rule":{"frequency":"year","schedule":{"months":[1,7],"monthDays":[1,15]}},"label":"Quarter-ish"},
		{"rule":{"frequency":"day"},"since":"2034-02-01","until":"2034-02-10","label":"Closed"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	out, err := calics.Export("holidays", orig, now, expander(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{"RRULE:FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO", "RRULE:FREQ=WEEKLY;BYDAY=SA,SU;UNTIL=20290630",
		"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1", "RRULE:FREQ=MONTHLY;BYDAY=WE;UNTIL=20311231", "RRULE:FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1,15",
		"RRULE:FREQ=DAILY;UNTIL=20340210", "RRULE:FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25", "EXDATE;VALUE=DATE:20301225"} {
		if !strings.Contains(out, rule) {
			t.Errorf("the export lacks %s", rule)
		}
	}
	// The same library parses it, with all-day events.
	parsed, err := ics.ParseCalendar(strings.NewReader(out))
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, out)
	}
	if n := len(parsed.Events()); n < 6 {
		t.Errorf("%d events", n)
	}
	f, err := calics.Read([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if f.TimeZone != "Europe/Berlin" || f.Name != "holidays" {
		t.Errorf("zone %q, name %q", f.TimeZone, f.Name)
	}
	items, skipped := f.Convert(orig.Location)
	if len(skipped) > 0 {
		t.Errorf("not imported: %+v", skipped)
	}
	again := &caldef.Calendar{TimeZone: orig.TimeZone, Location: orig.Location}
	for _, it := range items {
		again.Entries = append(again.Entries, it.Entry)
	}
	// The canonical JSON parses again.
	if _, err := caldef.Parse(again.Marshal()); err != nil {
		t.Fatal(err)
	}
	from, to := caldef.Date{Year: 2026, Month: 1, Day: 1}, caldef.Date{Year: 2035, Month: 12, Day: 31}
	want, got := days(t, orig, from, to), days(t, again, from, to)
	if len(want) != len(got) {
		t.Errorf("%d days excluded after the round trip, want %d", len(got), len(want))
	}
	for d, label := range want {
		if _, ok := got[d]; !ok {
			t.Errorf("%s (%s) is lost in the round trip", d, label)
		}
	}
	for d, label := range got {
		if _, ok := want[d]; !ok {
			t.Errorf("%s (%s) appears in the round trip", d, label)
		}
	}
	// Labels survive (where one entry alone gives the day).
	for d, label := range map[string]string{"2030-05-27": "Memorial Day", "2034-02-06": "Closed",
		"2031-01-08": "Wednesdays of 2031", "2027-06-01": "Once", "2027-03-07": "Weekend"} {
		if want[d] != label || got[d] != label {
			t.Errorf("%s: label %q, after the round trip %q; want %q", d, want[d], got[d], label)
		}
	}
	if _, ok := want["2030-12-25"]; ok {
		t.Error("2030-12-25 is an exception but excluded")
	}
	if _, ok := want["2027-03-06"]; ok {
		t.Error("2027-03-06 is an exception but excluded")
	}
}

// days maps the days cal excludes from from to to onto their labels.
func days(t *testing.T, cal *caldef.Calendar, from, to caldef.Date) map[string]string {
	t.Helper()
	rc, err := recurrence.CompileCalendar("c", cal)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range rc.ExcludedDays(from, to) {
		out[d.Date.String()] = d.Label
	}
	return out
}

// expander compiles one entry alone, as the catalog does.
func expander(t *testing.T) calics.Expander {
	return func(e caldef.Entry, from, to caldef.Date) ([]caldef.Date, error) {
		rc, err := recurrence.CompileCalendar("x", &caldef.Calendar{Location: time.UTC, Entries: []caldef.Entry{e}})
		if err != nil {
			return nil, err
		}
		var out []caldef.Date
		for _, d := range rc.ExcludedDays(from, to) {
			out = append(out, d.Date)
		}
		return out, nil
	}
}
