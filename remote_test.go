package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// remoteSked serves a real Sked (serve, on t's test database, the engine
// allowed to call loopback targets) and returns the environment of the
// commands that talk to it: SKED_SERVER and SKED_TOKEN (an owner's token
// of ada, an administrator and member of "default").
func remoteSked(t *testing.T) map[string]string {
	t.Helper()
	env := dbEnv(t)
	env["SKED_ALLOW_TARGETS"] = "127.0.0.0/8"
	cfg, _, err := parseFlags("serve", stdio{err: io.Discard, getenv: func(k string) string { return env[k] }},
		[]string{"--listen", "127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	addrs, done := make(chan net.Addr, 1), make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)), func(a net.Addr) { addrs <- a })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sked stopped with %v\nlogs:\n%s", err, logs)
		}
	})
	var base string
	select {
	case a := <-addrs:
		base = "http://" + a.String()
	case err := <-done:
		t.Fatalf("sked did not start: %v\nlogs:\n%s", err, logs)
	}
	code, token, stderr := runForTest([]string{"token", "add", "ada", "--name", "ci"}, env, "")
	if code != 0 {
		t.Fatalf("token add: exit %d: %s", code, stderr)
	}
	return map[string]string{"SKED_SERVER": base, "SKED_TOKEN": strings.TrimSpace(token)}
}

// apiDo sends a request with body (none when empty) to path on the
// server of env with its token, and returns the answer, which must be a
// 200.
func apiDo(t *testing.T, env map[string]string, method, path, body string) string {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, env["SKED_SERVER"]+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+env["SKED_TOKEN"])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d\n%s", method, path, resp.StatusCode, answer)
	}
	return string(answer)
}
