package jobdef

import (
	"strings"
	"testing"
	"time"
)

// TestExponentialRetryPolicy checks retryType exponential (SPEC §13.1): its
// defaults, maxRetryInterval's range and that only exponential takes it,
// and the canonical form.
func TestExponentialRetryPolicy(t *testing.T) {
	job := func(policy string) string {
		return `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":` + policy +
			`,"errorAction":{"type":"http","request":{"uri":"https://example.com/e","method":"GET"},"retryPolicy":` + policy + `}}}`
	}
	for _, tc := range []struct {
		name, policy string
		want         RetryPolicy
		canonical    string
	}{
		{"defaults", `{"retryType":"Exponential"}`,
			RetryPolicy{Type: RetryExponential, Interval: 30 * time.Second, Count: 4, MaxInterval: time.Hour},
			`{"retryType":"exponential","retryInterval":"PT30S","retryCount":4,"maxRetryInterval":"PT1H"}`},
		{"all given", `{"retryType":"exponential","retryInterval":"PT15S","retryCount":20,"maxRetryInterval":"P1D"}`,
			RetryPolicy{Type: RetryExponential, Interval: 15 * time.Second, IntervalText: "PT15S", Count: 20,
				MaxInterval: 24 * time.Hour, MaxIntervalText: "P1D"},
			`{"retryType":"exponential","retryInterval":"PT15S","retryCount":20,"maxRetryInterval":"P1D"}`},
		{".NET form, cap equal to the interval", `{"retryType":"exponential","retryInterval":"00:02:00","maxRetryInterval":"00:02:00"}`,
			RetryPolicy{Type: RetryExponential, Interval: 2 * time.Minute, IntervalText: "00:02:00", Count: 4,
				MaxInterval: 2 * time.Minute, MaxIntervalText: "00:02:00"},
			`{"retryType":"exponential","retryInterval":"00:02:00","retryCount":4,"maxRetryInterval":"00:02:00"}`},
		{"18 months", `{"retryType":"exponential","maxRetryInterval":"P548D"}`,
			RetryPolicy{Type: RetryExponential, Interval: 30 * time.Second, Count: 4, MaxInterval: MaxRetryInterval, MaxIntervalText: "P548D"},
			`{"retryType":"exponential","retryInterval":"PT30S","retryCount":4,"maxRetryInterval":"P548D"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := Parse([]byte(job(tc.policy)))
			if err != nil {
				t.Fatal(err)
			}
			if j.Action.RetryPolicy != tc.want || j.Action.ErrorAction.RetryPolicy != tc.want {
				t.Errorf("policy %+v, want %+v", j.Action.RetryPolicy, tc.want)
			}
			if n := j.Action.RetryPolicy.MaxAttempts(); n != 1+tc.want.Count {
				t.Errorf("MaxAttempts %d", n)
			}
			out := string(j.MarshalProperties(MarshalOptions{}))
			if !strings.Contains(out, `"retryPolicy":`+tc.canonical) {
				t.Errorf("canonical form %s\nwant the retryPolicy %s", out, tc.canonical)
			}
			again, err := Parse([]byte(out))
			if err != nil || again.Action.RetryPolicy.MaxInterval != tc.want.MaxInterval {
				t.Errorf("the canonical form parses to %+v, %v", again, err)
			}
		})
	}
	for _, tc := range []struct{ name, policy, want string }{
		{"maxRetryInterval with fixed", `{"retryType":"fixed","maxRetryInterval":"PT1H"}`,
			"action.retryPolicy.maxRetryInterval: is only allowed with retryType exponential"},
		{"maxRetryInterval with none", `{"retryType":"none","maxRetryInterval":"PT1H"}`,
			"action.retryPolicy.maxRetryInterval: is only allowed with retryType exponential"},
		{"below retryInterval", `{"retryType":"exponential","retryInterval":"PT2M","maxRetryInterval":"PT1M"}`,
			`action.retryPolicy.maxRetryInterval: "PT1M" is below retryInterval (PT2M)`},
		{"below the default interval", `{"retryType":"exponential","maxRetryInterval":"PT20S"}`,
			`action.retryPolicy.maxRetryInterval: "PT20S" is below retryInterval (PT30S)`},
		{"over 18 months", `{"retryType":"exponential","maxRetryInterval":"P549D"}`,
			`action.retryPolicy.maxRetryInterval: "P549D" is over the maximum of 18 months`},
		{"not a duration", `{"retryType":"exponential","maxRetryInterval":"hourly"}`,
			`action.retryPolicy.maxRetryInterval: "hourly" is not an ISO 8601 duration`},
		{"not a string", `{"retryType":"exponential","maxRetryInterval":3600}`, "action.retryPolicy.maxRetryInterval"},
		{"interval under the minimum", `{"retryType":"exponential","retryInterval":"PT10S"}`,
			`action.retryPolicy.retryInterval: "PT10S" is below the minimum of PT15S`},
		{"no retryType", `{"maxRetryInterval":"PT1H"}`, "action.retryPolicy.retryType: is required"},
		{"unknown type", `{"retryType":"linear"}`, `action.retryPolicy.retryType: "linear" is not one of none, fixed, exponential`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":` + tc.policy + `}}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want a problem %q", err, tc.want)
			}
		})
	}
}
