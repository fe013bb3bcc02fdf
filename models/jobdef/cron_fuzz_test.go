package jobdef

import (
	"bytes"
	"testing"
)

// FuzzCron checks that ParseCron never panics, that every accepted line
// converts to a recurrence that Parse accepts, and that the recurrence's
// cron equivalent (CronOf) converts back to the same recurrence.
func FuzzCron(f *testing.F) {
	for _, tc := range cronTable {
		f.Add(tc.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		rec, err := CronRecurrenceJSON(line)
		if err != nil {
			if _, ok := err.(*CronError); !ok || err.Error() == "" {
				t.Fatalf("%q: bad error %T %v", line, err, err)
			}
			return
		}
		job, err := Parse(cronJob(string(rec)))
		if err != nil {
			t.Fatalf("%q converts to %s, which Parse refuses: %v", line, rec, err)
		}
		back, ok := CronOf(job.Recurrence)
		if !ok {
			t.Fatalf("%q converts to %s, which has no cron equivalent", line, rec)
		}
		again, err := CronRecurrenceJSON(back)
		if err != nil {
			t.Fatalf("%q → %q: refused: %v", line, back, err)
		}
		job.Recurrence.TimeZone = ""
		want := job.marshalRecurrence(MarshalOptions{})
		if !bytes.Equal(again, want) {
			t.Fatalf("%q → %s → %q → %s", line, want, back, again)
		}
	})
}
