package engine

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestMetricsCountAttemptsLatenessAndBacklog(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.WriteHeader(http.StatusNotFound)
		}
	})
	reg := prometheus.NewRegistry()
	eng, err := New(allowLoopback(Config{InstanceID: "metrics"}), Deps{Store: e.store, Clock: e.clock, Logger: quietLogger(), Metrics: NewMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	e.useEngine(eng)
	e.put("good", `{"action":`+e.action("/good", "")+`}`)
	e.put("bad", `{"action":`+e.action("/bad", `"retryPolicy":{"retryType":"none"}`)+`}`)
	// Scheduled but not run yet: two due occurrences.
	if _, err := e.store.Claim(e.ctx, eng.claimRequest(e.clock.Now(), 0)); err != nil {
		t.Fatal(err)
	}
	if got := gaugeValue(t, reg, "sked_engine_due_backlog"); got != 2 {
		t.Errorf("backlog %v, want 2", got)
	}
	e.drain()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := ""
			for _, l := range m.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + " "
			}
			switch {
			case m.GetCounter() != nil:
				seen[f.GetName()+" "+labels] = fmt.Sprint(m.GetCounter().GetValue())
			case m.GetHistogram() != nil:
				seen[f.GetName()+" "+labels] = fmt.Sprint(m.GetHistogram().GetSampleCount())
			}
		}
	}
	for k, v := range map[string]string{
		"sked_engine_attempts_total action=MainAction status=Completed ": "1",
		"sked_engine_attempts_total action=MainAction status=Failed ":    "1",
		"sked_engine_start_lateness_seconds ":                            "2",
		"sked_engine_http_duration_seconds class=2xx ":                   "1",
		"sked_engine_http_duration_seconds class=4xx ":                   "1",
	} {
		if seen[k] != v {
			t.Errorf("%s= %q, want %s (all: %v)", k, seen[k], v, seen)
		}
	}
	if seen["sked_engine_claim_duration_seconds "] != "0" {
		t.Errorf("claim durations %q: runDue does not observe them", seen["sked_engine_claim_duration_seconds "])
	}
}

// gaugeValue gathers reg and returns the value of the gauge name.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
