package river

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkSideBySide runs Sked and River, one after the other at each
// rate (so both suffer the same load), on one durable cluster: calls due
// at 200, 500, 1,000, 2,000 and 5,000 per second for 10 s, plus 5 s of
// grace. Per
// system and rate it reports executions per second, start lateness at the
// sink (arrival − due; p50, p99, max), duplicates, misses (calls that did
// not arrive by the end of the grace), the server's CPU seconds per 1,000
// executions (postmaster and all its processes, /proc/<pid>/stat utime +
// stime, exited children included) and commits per 1,000 executions
// (pg_stat_database.xact_commit of the system's database: read-only
// transactions count, such as the pool's pings of connections idle for
// over a second) and WAL flushes per 1,000 executions (pg_stat_wal.wal_sync
// of the cluster: the commits that wrote and the WAL writer's flushes),
// from just before the system starts to just after it stopped, this
// process's CPU seconds per 1,000 executions over the same span (the
// engine or River's client, and the sink's handlers: proc), the server's
// and this process's together (total), the connections the system opened
// meanwhile (sessions) and the 1-minute
// load average when the run started.
func BenchmarkSideBySide(b *testing.B) {
	c := startCluster(b)
	for _, rate := range []int{200, 500, 1000, 2000, 5000} {
		for _, sys := range systems {
			b.Run(fmt.Sprintf("rate=%d/system=%s", rate, sys.name), func(b *testing.B) {
				for b.Loop() {
					r := measure(b, c, sys, rate, 10*time.Second)
					b.ReportMetric(r.execPerSec, "exec/s")
					b.ReportMetric(r.p50, "p50-late-ms")
					b.ReportMetric(r.p99, "p99-late-ms")
					b.ReportMetric(r.max, "max-late-ms")
					b.ReportMetric(float64(r.duplicates), "dups")
					b.ReportMetric(float64(r.misses), "misses")
					b.ReportMetric(r.cpuPer1k, "pg-cpu-s/1k")
					b.ReportMetric(r.procPer1k, "proc-cpu-s/1k")
					b.ReportMetric(r.cpuPer1k+r.procPer1k, "total-cpu-s/1k")
					b.ReportMetric(r.backendPer1k, "pg-backend-cpu-s/1k")
					b.ReportMetric(r.autovacuumPer1k, "pg-autovacuum-cpu-s/1k")
					b.ReportMetric(r.commitsPer1k, "commits/1k")
					b.ReportMetric(r.walSyncsPer1k, "wal-syncs/1k")
					b.ReportMetric(r.load1, "load1")
					b.ReportMetric(float64(r.sessions), "sessions")
				}
			})
		}
	}
}

// TestSmoke runs both systems for 2 s at 20 calls per second and checks
// that every call arrived exactly once.
func TestSmoke(t *testing.T) {
	c := startCluster(t)
	for _, sys := range systems {
		t.Run(sys.name, func(t *testing.T) {
			r := measure(t, c, sys, 20, 2*time.Second)
			if r.misses != 0 || r.duplicates != 0 || r.executed != r.n {
				t.Errorf("%s: %d of %d calls arrived, %d duplicates, %d missed", sys.name, r.executed, r.n, r.duplicates, r.misses)
			}
			if r.commitsPer1k <= 0 || r.cpuPer1k <= 0 {
				t.Errorf("%s: commits/1k %.1f, PostgreSQL CPU s/1k %.3f: not measured", sys.name, r.commitsPer1k, r.cpuPer1k)
			}
		})
	}
}
