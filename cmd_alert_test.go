package main

import (
	"strings"
	"testing"
)

// TestAlertCommands adds, lists and deletes alert rules with sked alert:
// bad input is a usage error naming the field with nothing stored, and a
// channel a rule sends to cannot be deleted.
func TestAlertCommands(t *testing.T) {
	env := dbEnv(t)
	run := func(stdin string, args ...string) (int, string, string) { return runForTest(args, env, stdin) }
	if code, _, errOut := run("", "channel", "add", "ops-hook", "--type", "webhook", "--url", "https://example.com/in"); code != 0 {
		t.Fatalf("channel add: exit %d %s", code, errOut)
	}

	code, out, errOut := run("", "alert", "add", "faults", "--channel", "ops-hook", "--event", "occurrenceFaulted", "--event", "recovered",
		"--resource-group", "rg", "--collection", "jc", "--min-interval", "PT15M")
	if code != 0 || !strings.Contains(out, "created alert rule faults → ops-hook") {
		t.Fatalf("alert add: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run("", "alert", "add", "bad", "--channel", "ops-hook", "--event", "exploded"); code != 2 || !strings.Contains(errOut, "events[0]") {
		t.Errorf("an unknown event: exit %d %s", code, errOut)
	}
	if code, _, errOut := run("", "alert", "add", "bad", "--channel", "nowhere", "--event", "missed"); code != 2 || !strings.Contains(errOut, "channel") {
		t.Errorf("an unknown channel: exit %d %s", code, errOut)
	}
	code, out, _ = run("", "alert", "list")
	if code != 0 || !strings.Contains(out, "faults") || !strings.Contains(out, "rg/jc") || strings.Contains(out, "bad") {
		t.Errorf("alert list: exit %d\n%s", code, out)
	}
	if code, _, errOut := run("", "channel", "delete", "ops-hook"); code != 2 || !strings.Contains(errOut, "faults") {
		t.Errorf("deleting a channel in use: exit %d %s", code, errOut)
	}
	if code, out, _ := run("", "alert", "delete", "faults"); code != 0 || !strings.Contains(out, "deleted alert rule faults") {
		t.Errorf("alert delete: exit %d %s", code, out)
	}
	if code, _, errOut := run("", "alert", "delete", "faults"); code != 2 || !strings.Contains(errOut, "no such alert rule") {
		t.Errorf("alert delete again: exit %d %s", code, errOut)
	}
	if code, _, _ := run("", "alert", "frobnicate"); code != 2 {
		t.Errorf("an unknown subcommand: exit %d", code)
	}
}

// TestAlertCommandDeadlineEvents adds a rule for one job with the
// deadline events (SPEC §17.2) and lists it with them.
func TestAlertCommandDeadlineEvents(t *testing.T) {
	env := dbEnv(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	if code, _, errOut := run("channel", "add", "ops-hook", "--type", "webhook", "--url", "https://example.com/in"); code != 0 {
		t.Fatalf("channel add: exit %d %s", code, errOut)
	}
	code, out, errOut := run("alert", "add", "late", "--channel", "ops-hook", "--event", "deadlineMissed", "--event", "slowRun",
		"--resource-group", "rg", "--collection", "jc", "--job", "nightly")
	if code != 0 || !strings.Contains(out, "created alert rule late") {
		t.Fatalf("alert add: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run("alert", "list")
	if code != 0 || !strings.Contains(out, "deadlineMissed") || !strings.Contains(out, "slowRun") || !strings.Contains(out, "rg/jc/nightly") {
		t.Errorf("alert list: exit %d\n%s", code, out)
	}
}

// TestAlertCommandMonitorScope adds a rule scoped to a heartbeat monitor
// (--monitor) and lists it; a monitor with a job scope, or a job's event
// for a monitor, is a usage error naming the field with nothing stored.
func TestAlertCommandMonitorScope(t *testing.T) {
	env := dbEnv(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	if code, _, errOut := run("channel", "add", "ops-hook", "--type", "webhook", "--url", "https://example.com/in"); code != 0 {
		t.Fatalf("channel add: exit %d %s", code, errOut)
	}
	code, out, errOut := run("alert", "add", "backup-down", "--channel", "ops-hook", "--monitor", "backup",
		"--event", "monitorMissed", "--event", "slowRun", "--min-interval", "PT1H")
	if code != 0 || !strings.Contains(out, "created alert rule backup-down") {
		t.Fatalf("alert add: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run("alert", "add", "bad", "--channel", "ops-hook", "--monitor", "backup", "--resource-group", "rg",
		"--event", "monitorMissed"); code != 2 || !strings.Contains(errOut, "scope.monitor") {
		t.Errorf("a monitor with a resource group: exit %d %s", code, errOut)
	}
	if code, _, errOut := run("alert", "add", "bad", "--channel", "ops-hook", "--monitor", "backup",
		"--event", "attemptFailed"); code != 2 || !strings.Contains(errOut, "events[0]") {
		t.Errorf("a job's event for a monitor: exit %d %s", code, errOut)
	}
	code, out, _ = run("alert", "list")
	if code != 0 || !strings.Contains(out, "monitor backup") || !strings.Contains(out, "monitorMissed") || strings.Contains(out, "bad") {
		t.Errorf("alert list: exit %d\n%s", code, out)
	}
}
