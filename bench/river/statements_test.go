package river

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"sked/scheduler/engine"
)

// statementsWanted reports whether SKED_BENCH_STATEMENTS asks for the
// statements' figures: when set, the cluster preloads pg_stat_statements
// and each run logs the statements of the system's database that took the
// most time (SKED_BENCH_STATEMENTS=calls: that ran most often) (calls, total and mean time, rows, WAL bytes). It is a
// diagnostic for finding where PostgreSQL's CPU goes; the figures of a run
// with it include the extension's small overhead.
func statementsWanted() bool { return os.Getenv("SKED_BENCH_STATEMENTS") != "" }

// explainLog is where SKED_BENCH_EXPLAIN asks the server's log to be
// copied when the cluster stops ("" when not set). With it (and
// SKED_BENCH_STATEMENTS), the cluster also loads auto_explain in every
// session and logs the plan of each statement slower than 14 ms with its
// actual times, buffers and WAL per node and the time of its triggers (foreign-key checks): the way to see which part of
// the engine's batch statements (the attempts, history, jobs) costs what.
func explainLog() string { return os.Getenv("SKED_BENCH_EXPLAIN") }

// benchSQL is SKED_BENCH_SQL: statements prepareSked runs on Sked's
// migrated database before it stores the jobs, to measure a schema change
// (an index dropped, a fillfactor, a column default standing for jobs that
// ran before) without a migration; "" (the default) runs nothing. River's
// database is left as it is.
func benchSQL() string { return os.Getenv("SKED_BENCH_SQL") }

// benchWorkers is SKED_BENCH_WORKERS: the attempts each system runs at once
// (Sked's engine.Config.MaxWorkers, River's default queue's MaxWorkers),
// the same for both; unset (or not a number above 0), Sked's default,
// engine.DefaultMaxWorkers (256). Each claim of Sked's engine takes at
// most the free workers, so this bounds a claim's batch.
func benchWorkers() int { return envCount("SKED_BENCH_WORKERS", engine.DefaultMaxWorkers) }

// benchOverlap is SKED_BENCH_OVERLAP: the claims Sked's engine runs at
// once during a burst (engine.Config.ClaimOverlap); unset (or not a number
// above 0), the engine's default (engine.DefaultClaimOverlap, 2). River
// has no counterpart.
func benchOverlap() int { return envCount("SKED_BENCH_OVERLAP", engine.DefaultClaimOverlap) }

// envCount is the environment variable name as a number above 0, or def
// when it is unset or not one.
func envCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// cpuProfile is SKED_BENCH_CPUPROFILE: the file prefix under which each
// run writes this process's CPU profile of its measured span
// (PREFIX-<system>-<rate>.prof: the engine or River's client, and the
// sink), to read with go tool pprof; "" (the default) writes none.
func cpuProfile() string { return os.Getenv("SKED_BENCH_CPUPROFILE") }

// enableStatements makes the cluster preload pg_stat_statements; the
// caller restarts the server.
func enableStatements(tb testing.TB, admin *sql.DB) {
	tb.Helper()
	// One session: LOAD makes a library's settings known to ALTER SYSTEM
	// in the session that loaded it only.
	conn, err := admin.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	run := func(q string) {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	run(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`)
	if explainLog() != "" {
		run(`ALTER SYSTEM SET session_preload_libraries = 'auto_explain'`)
		run(`LOAD 'auto_explain'`)
		run(`ALTER SYSTEM SET auto_explain.log_min_duration = '14ms'`)
		run(`ALTER SYSTEM SET auto_explain.log_analyze = on`)
		run(`ALTER SYSTEM SET auto_explain.log_buffers = on`)
		run(`ALTER SYSTEM SET auto_explain.log_wal = on`)
		run(`ALTER SYSTEM SET auto_explain.log_triggers = on`)
	}
}

// trackStatements sets, on the restarted cluster (pg_stat_statements'
// settings exist once it is preloaded), the tracking of nested statements
// and of planning time, and reloads the configuration.
func trackStatements(tb testing.TB, admin *sql.DB) {
	tb.Helper()
	for _, q := range []string{`ALTER SYSTEM SET pg_stat_statements.track = 'all'`,
		`ALTER SYSTEM SET pg_stat_statements.track_planning = on`, `SELECT pg_reload_conf()`} {
		if _, err := admin.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// resetStatements creates the extension in database dsn and clears its
// figures and the database's table statistics.
func resetStatements(tb testing.TB, dsn string) {
	tb.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.Exec(`SELECT pg_stat_statements_reset(), pg_stat_reset()`); err != nil {
		tb.Fatal(err)
	}
}

// logStatements logs (through dsn) the 15 statements of database name that
// took the most time since resetStatements (calls, execution and planning
// milliseconds, times planned, rows, WAL, blocks; nested statements such as the
// foreign-key checks included), and its 8 most written tables
// (rows inserted, updated, updated HOT, deleted).
func logStatements(tb testing.TB, dsn, name string) {
	tb.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`
		SELECT s.calls, s.plans, s.total_exec_time, s.total_plan_time, s.rows, s.wal_bytes, s.shared_blks_hit + s.shared_blks_read, left(regexp_replace(s.query, '\s+', ' ', 'g'), 160)
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		WHERE d.datname = $1 ORDER BY CASE WHEN $2 THEN s.calls::float8 ELSE s.total_exec_time END DESC LIMIT 30`, name,
		os.Getenv("SKED_BENCH_STATEMENTS") == "calls")
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "statements of %s:\n%8s %6s %10s %8s %8s %10s %10s  query\n", name, "calls", "plans", "exec ms", "plan ms", "rows", "WAL kB", "blocks")
	for rows.Next() {
		var calls, plans, nrows, blocks int64
		var total, plan float64
		var wal float64
		var q string
		if err := rows.Scan(&calls, &plans, &total, &plan, &nrows, &wal, &blocks, &q); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&b, "%8d %6d %10.1f %8.2f %8d %10.0f %10d  %s\n", calls, plans, total, plan, nrows, wal/1024, blocks, q)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	trows, err := db.Query(`
		SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del
		FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del > 0
		ORDER BY n_tup_ins + n_tup_upd + n_tup_del DESC LIMIT 8`)
	if err != nil {
		tb.Fatal(err)
	}
	defer trows.Close()
	fmt.Fprintf(&b, "tables:\n%-24s %10s %10s %10s %10s\n", "table", "inserted", "updated", "HOT", "deleted")
	for trows.Next() {
		var rel string
		var ins, upd, hot, del int64
		if err := trows.Scan(&rel, &ins, &upd, &hot, &del); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&b, "%-24s %10d %10d %10d %10d\n", rel, ins, upd, hot, del)
	}
	fmt.Fprint(os.Stderr, b.String()) // tb.Log of a benchmark keeps only its first lines
}
