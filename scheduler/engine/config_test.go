package engine

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsAndValidate(t *testing.T) {
	c := Config{}.WithDefaults()
	if c.MaxWorkers != 256 || c.LeaseMargin != 30*time.Second || c.MisfireGrace != time.Minute ||
		c.SafetyPoll != 30*time.Second || c.HistoryPerJob != 1000 || c.HistoryMaxAge != 60*24*time.Hour ||
		c.FinishedJobMaxAge != 60*24*time.Hour || c.ResultWriters != 2 || c.ClaimOverlap != 2 || c.RetentionInterval != time.Hour ||
		c.HeartbeatInterval != 5*time.Second || c.DeadAfter != 20*time.Second || c.MaxClockOffset != 5*time.Second {
		t.Errorf("defaults %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	bad := Config{MaxWorkers: -1, LeaseMargin: -time.Second, ResultWriters: 100, ClaimOverlap: 17}.WithDefaults()
	err := bad.Validate()
	for _, want := range []string{"max workers -1", "lease margin -1s", "result writers 100", "claim overlap 17"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %q", err, want)
		}
	}
	bad = Config{HeartbeatInterval: 5 * time.Second, DeadAfter: 9 * time.Second}.WithDefaults()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "dead after 9s must be at least twice the heartbeat interval 5s") {
		t.Errorf("Validate() = %v, want dead after refused", err)
	}
	bad = Config{HeartbeatInterval: -time.Second}.WithDefaults()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "heartbeat interval -1s must be positive") {
		t.Errorf("Validate() = %v, want the heartbeat interval refused", err)
	}
	if _, err := New(Config{}, Deps{}); err == nil {
		t.Error("New without a store succeeded")
	}
}

func TestNotifyConfigDefaultsAndValidate(t *testing.T) {
	c := Config{}.WithDefaults()
	if c.NotifyWorkers != 32 || c.NotifyTries != 5 || c.NotifyBackoff != 4*time.Minute || c.NotificationMaxAge != c.HistoryMaxAge {
		t.Errorf("defaults %d %d %s %s", c.NotifyWorkers, c.NotifyTries, c.NotifyBackoff, c.NotificationMaxAge)
	}
	// Retention like history: kept forever when history is.
	if c := (Config{HistoryMaxAge: -1}).WithDefaults(); c.NotificationMaxAge != -1 {
		t.Errorf("notification max age %s with history kept", c.NotificationMaxAge)
	}
	// The five tries with the defaults span about an hour: 4+8+16+32 min.
	o := &outbox{cfg: c.outbox("test")}
	var total time.Duration
	for try := 1; try < c.NotifyTries; try++ {
		total += o.backoff(try)
	}
	if total != time.Hour {
		t.Errorf("the waits between five tries add up to %s, want 1h", total)
	}
	bad := Config{NotifyWorkers: 5000, NotifyTries: 50, NotifyBackoff: -time.Second}.WithDefaults()
	err := bad.Validate()
	for _, want := range []string{"notify workers 5000", "notify tries 50", "notify backoff -1s"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %q", err, want)
		}
	}
}
