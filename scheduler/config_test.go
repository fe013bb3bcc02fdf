package scheduler

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsAndValidate(t *testing.T) {
	c := Config{}.WithDefaults()
	if c.MaxWorkers != 256 || c.LeaseMargin != 30*time.Second || c.MisfireGrace != time.Minute ||
		c.SafetyPoll != 30*time.Second || c.HistoryPerJob != 1000 || c.HistoryMaxAge != 60*24*time.Hour ||
		c.FinishedJobMaxAge != 60*24*time.Hour || c.ResultWriters != 2 || c.RetentionInterval != time.Hour {
		t.Errorf("defaults %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	bad := Config{MaxWorkers: -1, LeaseMargin: -time.Second, ResultWriters: 100, AttemptMaxAge: time.Minute}.WithDefaults()
	err := bad.Validate()
	for _, want := range []string{"max workers -1", "lease margin -1s", "result writers 100", "attempt max age 1m0s"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %q", err, want)
		}
	}
	if _, err := New(Config{}, Deps{}); err == nil {
		t.Error("New without a store succeeded")
	}
}
