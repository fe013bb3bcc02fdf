package engine

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// burstTrace is the diagnostic side of BenchmarkNotifyBurst, on when
// SKED_BENCH_TRACE is set: the timeline of one run in 100 ms steps from
// the jobs' due time (attempts started, results recorded, notifications
// stored, sent and received, the engine's claims with their duration)
// and, when the server preloads pg_stat_statements (for example a cluster
// of one's own named by TEST_DATABASE_URL), the statements that took the
// most time during the burst. The zero burstTrace (off) does nothing.
type burstTrace struct {
	on bool
	mu sync.Mutex
	// claims are the engine's claims, from its debug log.
	claims []claimLine
	// recorded are the result batches' commit times and sizes.
	recorded []stamp
	// received are the receiver's receipt times.
	received []time.Time
	stmts    bool
	cpu      *cpuSampler
}

// claimLine is one "engine: claim" debug record.
type claimLine struct {
	at                    time.Time
	free, started, ms, lt int64
}

// stamp is a moment and how many things happened at it.
type stamp struct {
	at time.Time
	n  int
}

func newBurstTrace() *burstTrace { return &burstTrace{on: os.Getenv("SKED_BENCH_TRACE") != ""} }

// logger returns the engine's logger: the claims' debug records go to
// the trace, nothing else is printed.
func (bt *burstTrace) logger() *slog.Logger {
	if !bt.on {
		return quietLogger()
	}
	return slog.New(&traceHandler{bt: bt})
}

// traceHandler keeps the "engine: claim" records of a burstTrace.
type traceHandler struct{ bt *burstTrace }

func (h *traceHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *traceHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *traceHandler) WithGroup(string) slog.Handler            { return h }
func (h *traceHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "engine: claim" {
		return nil
	}
	c := claimLine{at: r.Time}
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "free":
			c.free = a.Value.Int64()
		case "started":
			c.started = a.Value.Int64()
		case "claim_ms":
			c.ms = a.Value.Int64()
		case "late_ms":
			c.lt = a.Value.Int64()
		}
		return true
	})
	h.bt.mu.Lock()
	h.bt.claims = append(h.bt.claims, c)
	h.bt.mu.Unlock()
	return nil
}

// batch notes a result batch of n committed now.
func (bt *burstTrace) batch(now time.Time, n int) {
	if !bt.on {
		return
	}
	bt.mu.Lock()
	bt.recorded = append(bt.recorded, stamp{at: now, n: n})
	bt.mu.Unlock()
}

// start starts sampling the CPU time and clears pg_stat_statements'
// figures when the server has the extension loaded.
func (bt *burstTrace) start(b *testing.B, db *sql.DB) {
	if !bt.on {
		return
	}
	bt.cpu = startCPUSampler(b, db)
	var loaded bool
	if err := db.QueryRow(`SELECT 'pg_stat_statements' = ANY(string_to_array(current_setting('shared_preload_libraries'), ','))`).Scan(&loaded); err != nil || !loaded {
		b.Log("trace: pg_stat_statements is not preloaded: no statements")
		return
	}
	if _, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`SELECT pg_stat_statements_reset()`); err != nil {
		b.Fatal(err)
	}
	bt.stmts = true
}

// report logs the timeline and the statements.
func (bt *burstTrace) report(b *testing.B, db *sql.DB, t0 time.Time, collID int64) {
	if !bt.on {
		return
	}
	const step = 100 * time.Millisecond
	const steps = 40
	samples := bt.cpu.end()
	type row struct {
		started, recorded, stored, sent, received, claims, claimMs int
		goCPU, pgCPU                                               time.Duration
	}
	var rows [steps]row
	slot := func(t time.Time) int {
		i := int(t.Sub(t0) / step)
		return min(max(i, 0), steps-1)
	}
	q := func(query string, args []any, add func(r *row)) {
		rs, err := db.Query(query, args...)
		if err != nil {
			b.Fatal(err)
		}
		defer rs.Close()
		for rs.Next() {
			var at time.Time
			if err := rs.Scan(&at); err != nil {
				b.Fatal(err)
			}
			add(&rows[slot(at)])
		}
	}
	q(`SELECT h.start_time FROM job_history h JOIN jobs j ON j.id = h.job_id WHERE j.job_collection_id = $1`,
		[]any{collID}, func(r *row) { r.started++ })
	var last time.Time
	if err := db.QueryRow(`SELECT max(h.start_time) FROM job_history h JOIN jobs j ON j.id = h.job_id
		WHERE j.job_collection_id = $1`, collID).Scan(&last); err != nil {
		b.Fatal(err)
	}
	goCPU, pgCPU := cpuBetween(samples, t0, last)
	b.ReportMetric(float64(goCPU.Milliseconds()), "burst-go-cpu-ms")
	b.ReportMetric(float64(pgCPU.Milliseconds()), "burst-pg-cpu-ms")
	for i := range rows {
		from := t0.Add(time.Duration(i) * step)
		rows[i].goCPU, rows[i].pgCPU = cpuBetween(samples, from, from.Add(step))
	}
	q(`SELECT created_at FROM notifications`, nil, func(r *row) { r.stored++ })
	q(`SELECT finished_at FROM notifications WHERE finished_at IS NOT NULL`, nil, func(r *row) { r.sent++ })
	bt.mu.Lock()
	for _, s := range bt.recorded {
		rows[slot(s.at)].recorded += s.n
	}
	for _, at := range bt.received {
		rows[slot(at)].received++
	}
	var claims strings.Builder
	for _, c := range bt.claims {
		if c.at.Before(t0.Add(-time.Second)) || c.at.After(t0.Add(steps*step)) {
			continue
		}
		r := &rows[slot(c.at)]
		r.claims++
		r.claimMs += int(c.ms)
		fmt.Fprintf(&claims, "  claim at %+5d ms: free %d, started %d, late %d ms, took %d ms\n",
			c.at.Sub(t0).Milliseconds(), c.free, c.started, c.lt, c.ms)
	}
	bt.mu.Unlock()
	var out strings.Builder
	fmt.Fprintf(&out, "timeline from the due time (100 ms steps; burst until %d ms: CPU %d ms here, %d ms PostgreSQL):\n"+
		"%6s %8s %8s %8s %8s %8s %7s %8s %7s %7s\n", last.Sub(t0).Milliseconds(), goCPU.Milliseconds(),
		pgCPU.Milliseconds(), "ms", "started", "recorded", "stored", "sent", "received", "claims", "claim ms", "go cpu", "pg cpu")
	end := 0
	for i, r := range rows {
		if r.started+r.recorded+r.stored+r.sent+r.received+r.claims > 0 {
			end = i
		}
	}
	for i, r := range rows[:end+1] {
		fmt.Fprintf(&out, "%6d %8d %8d %8d %8d %8d %7d %8d %7d %7d\n", i*100, r.started, r.recorded, r.stored, r.sent,
			r.received, r.claims, r.claimMs, r.goCPU.Milliseconds(), r.pgCPU.Milliseconds())
	}
	b.Log(out.String() + claims.String() + bt.waits())
	if bt.stmts {
		bt.statements(b, db)
	}
}

// statements logs the 20 statements of the benchmark's database that
// took the most time since startStatements.
func (bt *burstTrace) statements(b *testing.B, db *sql.DB) {
	rs, err := db.Query(`
		SELECT s.calls, s.total_exec_time, s.mean_exec_time, s.rows, left(regexp_replace(s.query, '\s+', ' ', 'g'), 140)
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		WHERE d.datname = current_database() ORDER BY s.total_exec_time DESC LIMIT 20`)
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
	var out strings.Builder
	fmt.Fprintf(&out, "statements:\n%7s %9s %8s %7s  query\n", "calls", "total ms", "mean ms", "rows")
	for rs.Next() {
		var calls, n int64
		var total, mean float64
		var query string
		if err := rs.Scan(&calls, &total, &mean, &n, &query); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&out, "%7d %9.1f %8.2f %7d  %s\n", calls, total, mean, n, query)
	}
	b.Log(out.String())
}

// waits lists the sampled wait events of the active backends, most
// frequent first.
func (bt *burstTrace) waits() string {
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range bt.cpu.waits {
		all = append(all, kv{k, n})
	}
	slices.SortFunc(all, func(a, b kv) int { return b.n - a.n })
	var out strings.Builder
	out.WriteString("active backends sampled every 20 ms, by wait event and statement:\n")
	for _, e := range all[:min(len(all), 15)] {
		fmt.Fprintf(&out, "%6d  %s\n", e.n, e.k)
	}
	return out.String()
}
