package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func loadConfig(t *testing.T, args []string, env map[string]string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	load := registerConfigFlags(fs, func(k string) string { return env[k] })
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	return load()
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := loadConfig(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Listen: ":8080", DataDir: "./data", LogLevel: slog.LevelInfo, ShutdownTimeout: 30 * time.Second}
	if cfg.Listen != want.Listen || cfg.DataDir != want.DataDir || cfg.DatabaseURL != "" || cfg.BaseURL != "" ||
		cfg.SessionSecret != "" || cfg.AllowTargets != nil || cfg.LogLevel != want.LogLevel || cfg.ShutdownTimeout != want.ShutdownTimeout {
		t.Errorf("defaults = %+v", cfg)
	}
	if cfg.SecureCookies() {
		t.Error("cookies are Secure without an https base URL")
	}
	if cfg.Workers != 256 || cfg.ClaimOverlap != 2 || cfg.HistoryMaxAge != 60*24*time.Hour || cfg.HistoryPerJob != 1000 || cfg.FinishedJobMaxAge != 60*24*time.Hour {
		t.Errorf("engine defaults = %+v", cfg)
	}
	ec := cfg.Engine()
	if ec.MaxWorkers != 256 || ec.ClaimOverlap != 2 || ec.HistoryMaxAge != 60*24*time.Hour || ec.HistoryPerJob != 1000 || ec.FinishedJobMaxAge != 60*24*time.Hour {
		t.Errorf("engine config = %+v", ec)
	}
	if err := ec.WithDefaults().Validate(); err != nil {
		t.Errorf("the default engine config does not validate: %v", err)
	}
}

func TestConfigSessionsAndProxies(t *testing.T) {
	cfg, err := loadConfig(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SessionIdleTimeout != 12*time.Hour || cfg.SessionMaxAge != 14*24*time.Hour || cfg.TrustedProxies != nil {
		t.Errorf("defaults: idle %v, max age %v, trusted proxies %v", cfg.SessionIdleTimeout, cfg.SessionMaxAge, cfg.TrustedProxies)
	}
	env := map[string]string{"SKED_SESSION_IDLE_TIMEOUT": "30m", "SKED_SESSION_MAX_AGE": "7d", "SKED_TRUSTED_PROXIES": "10.1.2.0/24, 192.0.2.10 ,fd00::/8"}
	cfg, err = loadConfig(t, []string{"--session-max-age", "2d"}, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24"), netip.MustParsePrefix("192.0.2.10/32"), netip.MustParsePrefix("fd00::/8")}
	if cfg.SessionIdleTimeout != 30*time.Minute || cfg.SessionMaxAge != 48*time.Hour || len(cfg.TrustedProxies) != 3 ||
		cfg.TrustedProxies[0] != want[0] || cfg.TrustedProxies[1] != want[1] || cfg.TrustedProxies[2] != want[2] {
		t.Errorf("idle %v, max age %v, trusted proxies %v", cfg.SessionIdleTimeout, cfg.SessionMaxAge, cfg.TrustedProxies)
	}
}

func TestConfigRetentionZeroKeepsEverything(t *testing.T) {
	cfg, err := loadConfig(t, []string{"--history-max-age", "0", "--history-per-job", "0", "--finished-job-max-age", "720h", "--workers", "8", "--claim-overlap", "3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ec := cfg.Engine()
	if ec.HistoryMaxAge >= 0 || ec.HistoryPerJob >= 0 || ec.FinishedJobMaxAge != 720*time.Hour || ec.MaxWorkers != 8 ||
		ec.ClaimOverlap != 3 {
		t.Errorf("engine config = %+v; want history kept, finished jobs 720h, 8 workers, 3 claims at once", ec)
	}
}

// TestConfigMaxClockOffset: the engine's MaxClockOffset follows
// --max-clock-offset (default 5s), and 0 turns the check off (negative
// for the engine).
func TestConfigMaxClockOffset(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want time.Duration
	}{
		{nil, nil, 5 * time.Second},
		{nil, map[string]string{"SKED_MAX_CLOCK_OFFSET": "2s"}, 2 * time.Second},
		{[]string{"--max-clock-offset", "1m"}, map[string]string{"SKED_MAX_CLOCK_OFFSET": "2s"}, time.Minute},
		{[]string{"--max-clock-offset", "0"}, nil, -1},
	} {
		cfg, err := loadConfig(t, tc.args, tc.env)
		if err != nil {
			t.Fatal(err)
		}
		ec := cfg.Engine().WithDefaults()
		if got := ec.MaxClockOffset; got != tc.want {
			t.Errorf("%v %v: engine MaxClockOffset %s, want %s", tc.args, tc.env, got, tc.want)
		}
		if err := ec.Validate(); err != nil {
			t.Errorf("%v %v: %v", tc.args, tc.env, err)
		}
	}
}

func TestConfigFlagsOverrideEnvironment(t *testing.T) {
	env := map[string]string{
		"SKED_LISTEN":         "127.0.0.1:9000",
		"SKED_DATA_DIR":       "/var/lib/sked",
		"SKED_DATABASE_URL":   "postgres://u@db/sked",
		"SKED_BASE_URL":       "https://sked.example.com",
		"SKED_SESSION_SECRET": strings.Repeat("s", 32),
		"SKED_ALLOW_TARGETS":  "10.0.0.0/8, 127.0.0.1 ,::1",
		"SKED_LOG_LEVEL":      "debug",
	}
	cfg, err := loadConfig(t, []string{"--listen", ":7000"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != ":7000" {
		t.Errorf("flag did not win over the environment: listen %q", cfg.Listen)
	}
	if cfg.DataDir != "/var/lib/sked" || cfg.DatabaseURL != "postgres://u@db/sked" || cfg.LogLevel != slog.LevelDebug {
		t.Errorf("environment not used: %+v", cfg)
	}
	if !cfg.SecureCookies() {
		t.Error("an https base URL must make cookies Secure")
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	if len(cfg.AllowTargets) != len(want) {
		t.Fatalf("allow targets %v, want %v", cfg.AllowTargets, want)
	}
	for i := range want {
		if cfg.AllowTargets[i] != want[i] {
			t.Errorf("allow target %d = %v, want %v", i, cfg.AllowTargets[i], want[i])
		}
	}
}

func TestConfigBadValuesNameTheSetting(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--listen", "8080"}, nil, "--listen (SKED_LISTEN)"},
		{nil, map[string]string{"SKED_LISTEN": "localhost:99999"}, "--listen (SKED_LISTEN)"},
		{[]string{"--data-dir", " "}, nil, "--data-dir (SKED_DATA_DIR)"},
		{[]string{"--database-url", "mysql://x"}, nil, "--database-url (SKED_DATABASE_URL)"},
		{nil, map[string]string{"SKED_DATABASE_URL": "just-a-word"}, "--database-url (SKED_DATABASE_URL)"},
		{[]string{"--base-url", "sked.example.com"}, nil, "--base-url (SKED_BASE_URL)"},
		{[]string{"--session-secret", "short"}, nil, "--session-secret (SKED_SESSION_SECRET)"},
		{nil, map[string]string{"SKED_ALLOW_TARGETS": "10.0.0.0/33"}, "--allow-targets (SKED_ALLOW_TARGETS)"},
		{[]string{"--allow-targets", "example.com"}, nil, "--allow-targets (SKED_ALLOW_TARGETS)"},
		{[]string{"--log-level", "loud"}, nil, "--log-level (SKED_LOG_LEVEL)"},
		{[]string{"--shutdown-timeout", "-1s"}, nil, "--shutdown-timeout (SKED_SHUTDOWN_TIMEOUT)"},
		{[]string{"--shutdown-timeout", "soon"}, nil, "--shutdown-timeout (SKED_SHUTDOWN_TIMEOUT)"},
		{[]string{"--max-clock-offset", "-1s"}, nil, "--max-clock-offset (SKED_MAX_CLOCK_OFFSET)"},
		{nil, map[string]string{"SKED_MAX_CLOCK_OFFSET": "a bit"}, "--max-clock-offset (SKED_MAX_CLOCK_OFFSET)"},
		{[]string{"--workers", "0"}, nil, "--workers (SKED_WORKERS)"},
		{nil, map[string]string{"SKED_WORKERS": "many"}, "--workers (SKED_WORKERS)"},
		{[]string{"--claim-overlap", "17"}, nil, "--claim-overlap (SKED_CLAIM_OVERLAP)"},
		{[]string{"--history-max-age", "-1d"}, nil, "--history-max-age (SKED_HISTORY_MAX_AGE)"},
		{[]string{"--history-max-age", "two months"}, nil, "--history-max-age (SKED_HISTORY_MAX_AGE)"},
		{[]string{"--history-per-job", "-5"}, nil, "--history-per-job (SKED_HISTORY_PER_JOB)"},
		{nil, map[string]string{"SKED_FINISHED_JOB_MAX_AGE": "-3h"}, "--finished-job-max-age (SKED_FINISHED_JOB_MAX_AGE)"},
		{[]string{"--secret-key", "abc"}, nil, "--secret-key (SKED_SECRET_KEY)"},
		{nil, map[string]string{"SKED_SECRET_KEY": strings.Repeat("ab", 32) + ",zz"}, "--secret-key (SKED_SECRET_KEY)"},
		{[]string{"--oauth-authority", "login.example.com"}, nil, "--oauth-authority (SKED_OAUTH_AUTHORITY)"},
		{[]string{"--storage-endpoint", "ftp://{account}.example.com"}, nil, "--storage-endpoint (SKED_STORAGE_ENDPOINT)"},
		{nil, map[string]string{"SKED_SERVICEBUS_ENDPOINT": "::"}, "--servicebus-endpoint (SKED_SERVICEBUS_ENDPOINT)"},
		{[]string{"--session-idle-timeout", "0"}, nil, "--session-idle-timeout (SKED_SESSION_IDLE_TIMEOUT)"},
		{nil, map[string]string{"SKED_SESSION_IDLE_TIMEOUT": "30s"}, "--session-idle-timeout (SKED_SESSION_IDLE_TIMEOUT)"},
		{[]string{"--session-max-age", "forever"}, nil, "--session-max-age (SKED_SESSION_MAX_AGE)"},
		{nil, map[string]string{"SKED_TRUSTED_PROXIES": "proxy.internal"}, "--trusted-proxies (SKED_TRUSTED_PROXIES)"},
	}
	for _, tt := range tests {
		_, err := loadConfig(t, tt.args, tt.env)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%v %v: err = %v, want a ConfigError", tt.args, tt.env, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: %q does not name %s", tt.args, tt.env, err, tt.want)
		}
	}
}
