package web

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sked/models/jobdef"
	"sked/models/problem"

	"github.com/PuerkitoBio/goquery"
)

func TestJobFormLabel(t *testing.T) {
	for path, want := range map[string]string{
		"recurrence.interval":                           "Interval",
		"recurrence.schedule.minutes[2]":                "At minutes",
		"action.request.headers[0].name":                "Headers",
		"action.request.authentication.tenant":          "Tenant",
		"action.request.authentication.type":            "Authentication",
		"recurrence.schedule.monthlyOccurrences[1].day": "On week days of the month",
		"properties.unknown":                            "",
		"job":                                           "",
	} {
		if got := JobFormLabel(path); got != want {
			t.Errorf("JobFormLabel(%q) = %q, want %q", path, got, want)
		}
	}
	if got := JobFormSentence("recurrence.interval", "must be at least 1"); got != "Interval: must be at least 1" {
		t.Errorf("JobFormSentence = %q", got)
	}
	if got := JobFormSentence("job", "is not JSON"); got != "job: is not JSON" {
		t.Errorf("JobFormSentence without a label = %q", got)
	}
}

// TestJobFormLabelsCoverValidator feeds the validator broken jobs, one
// broken form field each, and checks that every path it reports has a
// label on the form.
func TestJobFormLabelsCoverValidator(t *testing.T) {
	const ok = `"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}}`
	broken := []string{
		`{"action":{"type":"nope","request":{"uri":"https://example.com/","method":"GET"}}}`,
		`{"action":{"type":"https","request":{"uri":"","method":"GET"}}}`,
		`{"action":{"type":"https","request":{"uri":"ftp://x","method":"FETCH"}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET","headers":{"":"x","Bad Name":"y"}}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET","authentication":{"type":"basic"}}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET","authentication":{"type":"activeDirectoryOAuth"}}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET","authentication":{"type":"clientCertificate","pfx":"!!"}}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryType":"fixed","retryInterval":"soon","retryCount":-1}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryType":"exponential","retryInterval":"PT1S","maxRetryInterval":"x"}}}`,
		`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{"retryType":"whatever"}}}`,
		`{"action":{"type":"https","timeout":"x","request":{"uri":"https://example.com/","method":"GET"},"errorAction":{"type":"https","request":{"uri":"","method":"NOPE"}}}}`,
		`{` + ok + `,"startTime":"yesterday","state":"sleepy"}`,
		`{` + ok + `,"recurrence":{"frequency":"fortnight","interval":0,"timeZone":"Mars/Base"}}`,
		`{` + ok + `,"recurrence":{"frequency":"day","count":-2,"endTime":"never"}}`,
		`{` + ok + `,"recurrence":{"frequency":"minute","interval":"x","schedule":{"minutes":[1]}}}`,
		`{` + ok + `,"recurrence":{"frequency":"week","schedule":{"minutes":[61],"hours":[25],"weekDays":["funday"],"monthDays":[40],"months":[13],"monthlyOccurrences":[{"day":"x","occurrence":9}]}}}`,
		`{` + ok + `,"recurrence":{"frequency":"day","calendars":{"exclude":["no such!"],"onExcluded":"maybe"}}}`,
	}
	seen := 0
	for _, def := range broken {
		_, err := jobdef.ParseWith([]byte(def), jobdef.Options{SecretsOptional: true})
		ve := problem.As(err)
		if ve == nil {
			t.Errorf("%s: no validation error (%v)", def, err)
			continue
		}
		for _, p := range ve.Problems {
			seen++
			if JobFormLabel(p.Path) == "" {
				t.Errorf("no form label for %q (%s)", p.Path, p.Message)
			}
		}
	}
	if seen < len(broken) {
		t.Errorf("only %d problems from %d broken jobs", seen, len(broken))
	}
}

// TestJobFormErrors splits problems into the builder's field errors, by
// label, and the rest, by path; the JSON tab lists them all by path.
func TestJobFormErrors(t *testing.T) {
	ve := &problem.List{Problems: []problem.Problem{
		{Path: "action.request.uri", Message: "is required"},
		{Path: "recurrence.schedule.hours[0]", Message: "25 is over 23"},
		{Path: "recurrence.schedule.hours[1]", Message: "30 is over 23"},
		{Path: "state", Message: `"sleepy" is not a state`},
	}}
	fields, rest := JobFormErrors(ve, false)
	want := FieldErrors{"uri": "URL: is required", "hours": "At hours: 25 is over 23; At hours: 30 is over 23"}
	if !reflect.DeepEqual(fields, want) || !reflect.DeepEqual(rest, []string{`state: "sleepy" is not a state`}) {
		t.Errorf("builder: fields %v, rest %v", fields, rest)
	}
	fields, rest = JobFormErrors(ve, true)
	if len(fields) != 0 || len(rest) != 4 || rest[0] != "action.request.uri: is required" {
		t.Errorf("JSON tab: fields %v, rest %v", fields, rest)
	}
}

// TestJobFormSlotsAreOnTheForm checks that the builder has an error slot
// for every field JobFormErrors keys, and that the live preview updates
// them all (JobFormSlots; the name is checked on Save only).
func TestJobFormSlotsAreOnTheForm(t *testing.T) {
	var html strings.Builder
	if err := JobFormFragment(JobForm{Mode: "form"}).Render(context.Background(), &html); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, slot := range append([]string{"name"}, JobFormSlots...) {
		if doc.Find("#err-"+slot).Length() != 1 {
			t.Errorf("the form has no error slot err-%s", slot)
		}
	}
	for path := range jobFormLabels {
		if slot := formErrorSlot(path); slot != "" && slot != "name" && !slices.Contains(JobFormSlots, slot) {
			t.Errorf("%s is shown in slot %s, which the live preview does not update", path, slot)
		}
	}
}
