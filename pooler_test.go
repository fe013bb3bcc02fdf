package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

// pollingLine is what serve logs when it polls instead of listening.
const pollingLine = "the engine polls the database every second"

func TestConfigDatabasePooler(t *testing.T) {
	cfg, err := loadConfig(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DatabasePooler != models.PoolerNone || cfg.ListenDatabaseURL != "" || cfg.Polls() {
		t.Errorf("defaults: pooler %q, listen URL %q, polls %v; want none, empty, false", cfg.DatabasePooler, cfg.ListenDatabaseURL, cfg.Polls())
	}
	if p := cfg.Engine().WithDefaults().SafetyPoll; p != 30*time.Second {
		t.Errorf("safety poll without a pooler = %v, want the engine's default 30s", p)
	}

	env := map[string]string{"SKED_DATABASE_URL": "postgres://sked@pgbouncer:6432/sked", "SKED_DATABASE_POOLER": "transaction"}
	cfg, err = loadConfig(t, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DatabasePooler != models.PoolerTransaction || !cfg.Polls() {
		t.Errorf("behind a pooler without a listen URL: pooler %q, polls %v; want transaction, true", cfg.DatabasePooler, cfg.Polls())
	}
	if p := cfg.Engine().SafetyPoll; p != time.Second {
		t.Errorf("safety poll behind a pooler without a listen URL = %v, want 1s", p)
	}

	cfg, err = loadConfig(t, []string{"--listen-database-url", "postgres://sked@db:5432/sked"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ListenDatabaseURL != "postgres://sked@db:5432/sked" || cfg.Polls() {
		t.Errorf("with a listen URL: %q, polls %v; want it, false", cfg.ListenDatabaseURL, cfg.Polls())
	}
	if p := cfg.Engine().WithDefaults().SafetyPoll; p != 30*time.Second {
		t.Errorf("safety poll with a listen URL = %v, want the engine's default 30s", p)
	}
}

func TestConfigDatabasePoolerBadValuesNameTheSetting(t *testing.T) {
	db := map[string]string{"SKED_DATABASE_URL": "postgres://sked@pgbouncer:6432/sked"}
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--database-pooler", "session"}, db, `invalid --database-pooler (SKED_DATABASE_POOLER): "session" is not a pooler`},
		{nil, map[string]string{"SKED_DATABASE_URL": "postgres://x/y", "SKED_DATABASE_POOLER": "pgbouncer"}, "--database-pooler (SKED_DATABASE_POOLER)"},
		{[]string{"--database-pooler", "transaction"}, nil, "--database-pooler (SKED_DATABASE_POOLER): \"transaction\" needs --database-url"},
		{[]string{"--listen-database-url", "mysql://db/sked"}, db, "--listen-database-url (SKED_LISTEN_DATABASE_URL)"},
		{nil, map[string]string{"SKED_LISTEN_DATABASE_URL": "postgres://db/sked"}, "--listen-database-url (SKED_LISTEN_DATABASE_URL): needs --database-url"},
	}
	for _, tt := range tests {
		_, err := loadConfig(t, tt.args, tt.env)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%v %v: err = %v, want a ConfigError", tt.args, tt.env, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: %q does not say %s", tt.args, tt.env, err, tt.want)
		}
	}
}

// TestServeBehindAPooler runs sked migrate and serve on an empty database
// through PgBouncer in transaction mode: the migration goes through it,
// serve answers ready, and without --listen-database-url it says that its
// engine polls; with one it does not.
func TestServeBehindAPooler(t *testing.T) {
	direct := testdb.EmptyDSN(t)
	pooled := testdb.Pooled(t, direct)
	env := map[string]string{"SKED_DATA_DIR": newDataDir(t), "SKED_DATABASE_URL": pooled, "SKED_DATABASE_POOLER": "transaction"}
	code, stdout, stderr := runForTest([]string{"migrate"}, env, "")
	if code != 0 || !strings.Contains(stdout, "database schema is at version") {
		t.Fatalf("migrate through the pooler: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, listen := range []string{"", direct} {
		base, stop := startSked(t, env["SKED_DATA_DIR"], func(c *Config) {
			c.DatabaseURL, c.DatabasePooler, c.ListenDatabaseURL = pooled, models.PoolerTransaction, listen
		})
		waitReady(t, base)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		logs := serverLogs(t, base)
		if polls := strings.Contains(logs, pollingLine); polls != (listen == "") {
			t.Errorf("listen URL %q: the log says that it polls: %v, want %v\n%s", listen, polls, listen == "", logs)
		}
	}
}

// serverLogs returns what the server at base (started by startSked)
// logged.
func serverLogs(t *testing.T, base string) string {
	t.Helper()
	logs, ok := skedLogs.Load(base)
	if !ok {
		t.Fatalf("no log kept for %s", base)
	}
	return logs.(*syncBuffer).String()
}
