package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestTargetsCommandsAgainstAServer sets, lists and deletes a target limit
// through a real server, and shows that bad input is refused with the
// field named and nothing changed.
func TestTargetsCommandsAgainstAServer(t *testing.T) {
	env := remoteSked(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }

	code, out, errOut := run("targets", "set", "API.Partner.example:443", "--max-concurrent", "5", "--max-per-second", "20")
	if code != 0 || out != "limit of api.partner.example in workspace default: max concurrent 5, max per second 20\n" {
		t.Fatalf("targets set: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = run("targets", "set", "slow.example", "--max-concurrent", "1"); code != 0 ||
		out != "limit of slow.example in workspace default: max concurrent 1, max per second none\n" {
		t.Fatalf("targets set of one limit: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("targets", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^HOST +MAX CONCURRENT +MAX PER SECOND +IN FLIGHT +WAITING +LONGEST WAIT$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^api\.partner\.example +5 +20 +0 +0 +-$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^slow\.example +1 +- +0 +0 +-$`).MatchString(out) {
		t.Fatalf("targets list: exit %d\n%s%s", code, out, errOut)
	}

	// Refusals: the server's 400 names the field; the CLI's own checks
	// name the flag. Nothing changes.
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"targets", "set", "api.partner.example", "--max-concurrent", "100001"}, exitError, "maxConcurrent"},
		{[]string{"targets", "set", "http://x/y", "--max-concurrent", "1"}, exitError, "host"},
		{[]string{"targets", "set", "api.partner.example"}, exitUsage, "give --max-concurrent N, --max-per-second N or both"},
		{[]string{"targets", "set", "api.partner.example", "--max-per-second", "-1"}, exitUsage, "a limit is 1 or more"},
		{[]string{"targets", "set"}, exitUsage, "usage: sked targets set HOST"},
		{[]string{"targets", "delete", "nowhere.example"}, exitError, "404"},
		{[]string{"targets", "list", "--workspace", "nope"}, exitError, "403 AuthorizationFailed"},
	} {
		code, _, errOut := run(bad.args...)
		if code != bad.code || !strings.Contains(errOut, bad.want) {
			t.Errorf("%v: exit %d, want %d and an error containing %q:\n%s", bad.args, code, bad.code, bad.want, errOut)
		}
	}
	if _, out, _ := run("targets", "list", "--output", "json"); !strings.Contains(out, `"maxConcurrent": 5`) ||
		!strings.Contains(out, `"maxPerSecond": 20`) || strings.Count(out, `"host"`) != 2 {
		t.Fatalf("targets list --output json after the refusals:\n%s", out)
	}

	if code, out, errOut = run("targets", "delete", "slow.example"); code != 0 || out != "deleted the limit of slow.example in workspace default\n" {
		t.Fatalf("targets delete: exit %d\n%s%s", code, out, errOut)
	}
	if _, out, _ := run("targets", "list"); strings.Contains(out, "slow.example") || !strings.Contains(out, "api.partner.example") {
		t.Fatalf("targets list after the delete:\n%s", out)
	}
	if code, _, errOut := runForTest([]string{"targets", "list"}, map[string]string{"SKED_SERVER": env["SKED_SERVER"]}, ""); code != exitUsage ||
		!strings.Contains(errOut, "missing an API token") {
		t.Errorf("targets list without a token: exit %d %s", code, errOut)
	}
}
