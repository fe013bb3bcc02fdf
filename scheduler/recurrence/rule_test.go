package recurrence

import (
	"testing"
	"time"
)

// TestNextAPI checks Next as the engine uses it: strictly after its
// argument, the run at creation for jobs without startTime, one-time jobs,
// and endTime, independently of count.
func TestNextAPI(t *testing.T) {
	created := mustTime(t, "2024-05-01T10:05:30Z")
	next := func(js string, after string) string {
		t.Helper()
		r, err := Compile(mustParse(t, js), created)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := r.Next(mustTime(t, after))
		if !ok {
			return "none"
		}
		return v.Format(time.RFC3339)
	}
	tests := []struct{ name, js, after, want string }{
		{"run at creation first", jobJSON("", `{"frequency":"day","schedule":{"hours":[9]}}`), "2024-05-01T00:00:00Z", "2024-05-01T10:05:30Z"},
		{"then the schedule", jobJSON("", `{"frequency":"day","schedule":{"hours":[9]}}`), "2024-05-01T10:05:30Z", "2024-05-02T09:05:00Z"},
		{"strictly after", jobJSON("2024-05-01T00:00:00Z", `{"frequency":"day"}`), "2024-05-02T00:00:00Z", "2024-05-03T00:00:00Z"},
		{"sub-second after", jobJSON("2024-05-01T00:00:00Z", `{"frequency":"day"}`), "2024-05-01T23:59:59.999Z", "2024-05-02T00:00:00Z"},
		{"never before creation", jobJSON("2024-04-01T00:00:00Z", `{"frequency":"day"}`), "2024-04-10T00:00:00Z", "2024-05-02T00:00:00Z"},
		{"count is not applied by Next", jobJSON("2024-05-02T00:00:00Z", `{"frequency":"day","count":1}`), "2024-05-02T00:00:00Z", "2024-05-03T00:00:00Z"},
		{"endTime is applied", jobJSON("2024-05-02T00:00:00Z", `{"frequency":"day","endTime":"2024-05-03"}`), "2024-05-02T00:00:00Z", "2024-05-03T00:00:00Z"},
		{"after endTime", jobJSON("2024-05-02T00:00:00Z", `{"frequency":"day","endTime":"2024-05-03"}`), "2024-05-03T00:00:00Z", "none"},
		{"one-time future", jobJSON("2024-06-01T00:00:00Z", ""), "2024-05-01T00:00:00Z", "2024-06-01T00:00:00Z"},
		{"one-time done", jobJSON("2024-06-01T00:00:00Z", ""), "2024-06-01T00:00:00Z", "none"},
		{"one-time past start runs at creation", jobJSON("2024-01-01T00:00:00Z", ""), "2000-01-01T00:00:00Z", "2024-05-01T10:05:30Z"},
		{"result in the job's zone", jobJSON("2024-05-02T09:00:00", `{"frequency":"day","timeZone":"Asia/Tokyo"}`), "2024-05-01T00:00:00Z", "2024-05-02T09:00:00+09:00"},
	}
	for _, tc := range tests {
		if got := next(tc.js, tc.after); got != tc.want {
			t.Errorf("%s: Next(%s) = %s, want %s", tc.name, tc.after, got, tc.want)
		}
	}
	r, _ := Compile(mustParse(t, jobJSON("2024-01-31T10:00:00+01:00", `{"frequency":"day","count":5,"endTime":"2025-01-01","timeZone":"Europe/Paris"}`)), created)
	if a := r.Anchor().Format(time.RFC3339); a != "2024-01-31T10:00:00+01:00" || r.Count() != 5 || r.IsOnce() || r.Location().String() != "Europe/Paris" {
		t.Errorf("accessors: %s %d %v %v", a, r.Count(), r.IsOnce(), r.Location())
	}
	if u, ok := r.Until(); !ok || u.Format(time.RFC3339) != "2025-01-01T00:00:00+01:00" {
		t.Errorf("until %v %v", u, ok)
	}
	if _, err := Compile(mustParse(t, jobJSON("", `{"frequency":"day"}`)), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("compile accepted year 10000")
	}
}
