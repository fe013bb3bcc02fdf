package river

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"sked/models/pgserver"
)

// cluster is one throwaway PostgreSQL cluster with production durability
// (the embedded cluster's defaults: fsync, full_page_writes and
// synchronous_commit on) and an admin connection to it.
type cluster struct {
	pg    *pgserver.Embedded
	admin *sql.DB
	seq   int
}

// startCluster starts a cluster in a temporary directory, stopped and
// removed when tb ends.
func startCluster(tb testing.TB) *cluster {
	tb.Helper()
	dir, err := os.MkdirTemp("", "sked-river-")
	if err != nil {
		tb.Fatal(err)
	}
	os.Chmod(dir, 0o755) // the server may run as another user
	pg, err := pgserver.OpenEmbedded(context.Background(), dir, quiet())
	if err != nil {
		os.RemoveAll(dir)
		tb.Fatal(err)
	}
	admin, err := sql.Open("pgx", pg.DSN())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if dst := explainLog(); dst != "" {
			if b, err := os.ReadFile(pg.LogFile()); err == nil {
				os.WriteFile(dst, b, 0o644)
			}
		}
		admin.Close()
		if err := pg.Close(context.Background()); err != nil {
			tb.Error(err)
		}
		os.RemoveAll(dir)
	})
	if statementsWanted() {
		enableStatements(tb, admin)
		admin.Close()
		if err := pg.Close(context.Background()); err != nil {
			tb.Fatal(err)
		}
		if pg, err = pgserver.OpenEmbedded(context.Background(), dir, quiet()); err != nil {
			tb.Fatal(err)
		}
		if admin, err = sql.Open("pgx", pg.DSN()); err != nil {
			tb.Fatal(err)
		}
		trackStatements(tb, admin)
	}
	var fsync, syncCommit string
	admin.QueryRow(`SELECT current_setting('fsync'), current_setting('synchronous_commit')`).Scan(&fsync, &syncCommit)
	if fsync != "on" || syncCommit != "on" {
		tb.Fatalf("cluster durability: fsync=%s synchronous_commit=%s, want on", fsync, syncCommit)
	}
	return &cluster{pg: pg, admin: admin}
}

// database creates a new empty database and returns its name and DSN.
func (c *cluster) database(tb testing.TB, prefix string) (name, dsn string) {
	tb.Helper()
	c.seq++
	name = fmt.Sprintf("%s_%d", prefix, c.seq)
	if _, err := c.admin.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatal(err)
	}
	return name, strings.Replace(c.pg.DSN(), "dbname=sked", "dbname="+name, 1)
}

// cpuSeconds returns the CPU time used so far by the whole server: the
// postmaster, its live children (backends, WAL writer, checkpointer,
// autovacuum…) and its children that already exited (cutime, cstime), read
// from /proc/<pid>/stat.
func (c *cluster) cpuSeconds(tb testing.TB) float64 {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(c.pg.ClusterDir(), "postmaster.pid"))
	if err != nil {
		tb.Fatal(err)
	}
	pm, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	ticks := func(pid int, children bool) (ppid int, t float64) {
		s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, 0
		}
		f := strings.Fields(string(s)[strings.LastIndexByte(string(s), ')')+2:])
		ppid, _ = strconv.Atoi(f[1])
		for i, use := range []bool{true, true, children, children} { // utime stime cutime cstime
			if use {
				v, _ := strconv.ParseFloat(f[11+i], 64)
				t += v
			}
		}
		return ppid, t
	}
	_, total := ticks(pm, true)
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == pm {
			continue
		}
		if ppid, t := ticks(pid, false); ppid == pm {
			total += t
		}
	}
	return total / 100 // clock ticks (USER_HZ = 100)
}

// counter returns the one int64 that query (a statistics view's column)
// reads with args.
func (c *cluster) counter(tb testing.TB, query string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := c.admin.QueryRow(query, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// commits returns pg_stat_database.xact_commit of database name.
func (c *cluster) commits(tb testing.TB, name string) int64 {
	return c.counter(tb, `SELECT xact_commit FROM pg_stat_database WHERE datname = $1`, name)
}

// walSyncs returns pg_stat_wal.wal_sync: how often the cluster flushed
// its WAL to disk so far (commits that wrote, the WAL writer's flushes),
// whatever the database.
func (c *cluster) walSyncs(tb testing.TB) int64 {
	return c.counter(tb, `SELECT wal_sync FROM pg_stat_wal`)
}

// sessions returns pg_stat_database.sessions of database name: how many
// connections were opened to it so far.
func (c *cluster) sessions(tb testing.TB, name string) int64 {
	return c.counter(tb, `SELECT sessions FROM pg_stat_database WHERE datname = $1`, name)
}

// sink is the loopback HTTP target of both systems: call i of a run is
// GET /?k=i. The first warm calls are the warm-up, due at t0 + i/rate
// seconds (whole seconds); the measured ones follow a gap later (due).
// It records when each call first arrived and how often.
type sink struct {
	srv   *httptest.Server
	t0    time.Time
	rate  int
	warm  int
	gap   time.Duration
	mu    sync.Mutex
	first []time.Time
	count []int
}

// newSink returns the sink of warm warm-up calls and n measured ones
// at rate per second; t0 is set by the caller.
func newSink(tb testing.TB, warm, n, rate int, gap time.Duration) *sink {
	s := &sink{rate: rate, warm: warm, gap: gap, first: make([]time.Time, warm+n), count: make([]int, warm+n)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		k, err := strconv.Atoi(r.URL.Query().Get("k"))
		if err == nil && k >= 0 && k < len(s.count) {
			s.mu.Lock()
			if s.count[k] == 0 {
				s.first[k] = now
			}
			s.count[k]++
			s.mu.Unlock()
		}
		io.WriteString(w, "ok")
	}))
	tb.Cleanup(s.srv.Close)
	return s
}

// due is when call i is due: t0 + i/rate whole seconds, plus the gap
// for a measured call.
func (s *sink) due(i int) time.Time {
	d := s.t0.Add(time.Duration(i/s.rate) * time.Second)
	if i >= s.warm {
		d = d.Add(s.gap)
	}
	return d
}

// result is one system's figures for one run.
type result struct {
	n, executed, duplicates, misses int
	execPerSec                      float64
	p50, p99, max                   float64 // lateness, ms
	cpuPer1k, commitsPer1k          float64
	// backendPer1k and autovacuumPer1k are the part of cpuPer1k spent by
	// the sessions and by autovacuum (cpuKinds).
	backendPer1k, autovacuumPer1k float64
	load1                         float64
	// sessions counts the connections the system opened during the run;
	// walSyncsPer1k the cluster's WAL flushes per 1,000 executions.
	sessions      int64
	walSyncsPer1k float64
	// procPer1k is this process's CPU seconds per 1,000 executions
	// during the run (processCPUSeconds): the engine or River's client,
	// and the sink.
	procPer1k float64
}

// summarise computes a run's figures from the sink; cpu and commits are
// the server's CPU seconds and the database's commits during the run.
func (s *sink) summarise(cpu float64, commits int64) result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := result{n: len(s.first) - s.warm}
	late := make([]float64, 0, r.n)
	var last time.Time
	for i, c := range s.count {
		if c > 1 {
			r.duplicates += c - 1 // a warm-up call's too
		}
		if i < s.warm {
			continue
		}
		if c == 0 {
			r.misses++
			continue
		}
		r.executed++
		late = append(late, float64(s.first[i].Sub(s.due(i)).Microseconds())/1000)
		if s.first[i].After(last) {
			last = s.first[i]
		}
	}
	if len(late) > 0 {
		slices.Sort(late)
		pct := func(p float64) float64 { return late[min(len(late)-1, int(p*float64(len(late))))] }
		r.p50, r.p99, r.max = pct(0.5), pct(0.99), late[len(late)-1]
		span := max(last.Sub(s.due(s.warm)).Seconds(), float64(r.n/s.rate))
		r.execPerSec = float64(r.executed) / span
		r.cpuPer1k = cpu * 1000 / float64(r.executed)
		r.commitsPer1k = float64(commits) * 1000 / float64(r.executed)
	}
	return r
}

// loadavg returns the 1-minute load average (uptime's first figure).
func loadavg() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
