package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestChannelCommands adds, lists, tests and deletes channels with sked
// channel: the webhook's secret is printed once, bad input is a usage
// error naming the field with nothing stored.
func TestChannelCommands(t *testing.T) {
	env := dbEnv(t)
	env["SKED_ALLOW_TARGETS"] = "127.0.0.0/8"
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		_, _ = io.WriteString(w, "thanks")
	}))
	defer srv.Close()
	run := func(stdin string, args ...string) (int, string, string) { return runForTest(args, env, stdin) }

	code, out, errOut := run("", "channel", "add", "ops-hook", "--type", "webhook", "--url", srv.URL+"/in", "--description", "On call")
	if code != 0 || !strings.Contains(out, "created channel ops-hook (webhook)") || !strings.Contains(out, "signing secret (shown once): whsec_") {
		t.Fatalf("channel add: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("smtp-password\n", "channel", "add", "mail", "--type", "email", "--host", "smtp.example.com",
		"--smtp-user", "sked", "--from", "sked@example.com", "--to", "a@example.com", "--to", "b@example.com")
	if code != 0 || strings.Contains(out, "secret") {
		t.Fatalf("email channel add: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run("", "channel", "add", "s", "--type", "slack", "--url", "http://hooks.slack.com/x"); code != 2 ||
		!strings.Contains(errOut, "properties.url") {
		t.Errorf("an http Slack URL: exit %d %s", code, errOut)
	}
	if code, _, errOut := run("", "channel", "add", "ops-hook", "--type", "webhook", "--url", "https://example.com"); code != 2 ||
		!strings.Contains(errOut, "exists already") {
		t.Errorf("a taken name: exit %d %s", code, errOut)
	}
	code, out, _ = run("", "channel", "list")
	if code != 0 || !strings.Contains(out, "ops-hook") || !strings.Contains(out, `"passwordSet":true`) || strings.Contains(out, "smtp-password") ||
		strings.Contains(out, "whsec_") || strings.Contains(out, "\ns ") {
		t.Errorf("channel list: exit %d\n%s", code, out)
	}
	code, out, errOut = run("", "channel", "test", "ops-hook")
	if code != 0 || !strings.Contains(out, "delivered: HTTP 200") {
		t.Errorf("channel test: exit %d\n%s%s", code, out, errOut)
	}
	if h := <-got; h.Get("webhook-signature") == "" {
		t.Error("the test event is not signed")
	}

	if code, out, _ := run("", "channel", "delete", "ops-hook"); code != 0 || !strings.Contains(out, "deleted channel ops-hook") {
		t.Errorf("channel delete: exit %d %s", code, out)
	}
	if code, _, _ := run("", "channel", "frobnicate"); code != 2 {
		t.Errorf("an unknown subcommand: exit %d", code)
	}
}
