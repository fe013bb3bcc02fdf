package jobdef

import (
	"sked/models/problem"
	"testing"
)

// FuzzParse checks that Parse never panics and always returns either a job or
// a *problem.List with at least one problem.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"recurrence":{"frequency":"week","schedule":{"weekDays":["monday"],"hours":[10,22]}}}`,
		`{"properties":{"action":{"type":"http","timeout":"PT30S"},"startTime":"2024-05-01T09:30:00+02:00","recurrence":{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","Occurrence":-1}]}}}}`,
		`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"recurrence":{"frequency":"minute","interval":1e99,"count":-1,"endTime":"2024-02-30","timeZone":"Mars"}}`,
		`[[[[[[]]]]]]`, `{"action":null}`, `not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		job, err := Parse(data)
		if err == nil {
			if job == nil {
				t.Fatal("nil job without error")
			}
			if job.Recurrence != nil && (job.Recurrence.Interval < 1 || job.Recurrence.Interval > job.Recurrence.Frequency.MaxInterval()) {
				t.Fatalf("accepted interval %d", job.Recurrence.Interval)
			}
			return
		}
		ve := problem.As(err)
		if ve == nil || len(ve.Problems) == 0 || job != nil {
			t.Fatalf("bad error %T %v", err, err)
		}
	})
}
