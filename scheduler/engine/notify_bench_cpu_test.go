package engine

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuSample is the CPU time used by this process and by the PostgreSQL
// server at a moment.
type cpuSample struct {
	at    time.Time
	goCPU time.Duration
	pgCPU time.Duration
}

// cpuSampler samples the CPU time of this process and of the PostgreSQL
// server (the postmaster and its children, from /proc) every 20 ms until
// stopped: the trace of BenchmarkNotifyBurst shows from it what the burst
// cost, which depends much less on the machine's other load than the
// burst's duration does.
type cpuSampler struct {
	postmaster int
	samples    []cpuSample
	stop, done chan struct{}
	// waits counts, every 20 ms, the active backends of the database by
	// what they wait for ("CPU" when nothing: running or runnable) and
	// their statement's start.
	db    *sql.DB
	waits map[string]int
}

// startCPUSampler finds db's postmaster (the parent of a backend) and
// starts sampling.
func startCPUSampler(b *testing.B, db *sql.DB) *cpuSampler {
	var backend int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	pm, _ := procTicks(backend)
	s := &cpuSampler{postmaster: pm, stop: make(chan struct{}), done: make(chan struct{}), db: db, waits: map[string]int{}}
	go func() {
		defer close(s.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			s.samples = append(s.samples, s.sample())
			s.sampleWaits()
			select {
			case <-t.C:
			case <-s.stop:
				s.samples = append(s.samples, s.sample())
				return
			}
		}
	}()
	return s
}

// end stops the sampler and returns its samples.
func (s *cpuSampler) end() []cpuSample {
	close(s.stop)
	<-s.done
	return s.samples
}

// sample reads both CPU times now.
func (s *cpuSampler) sample() cpuSample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	c := cpuSample{at: time.Now(), goCPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	_, total := procTicksChildren(s.postmaster, true)
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == s.postmaster {
			continue
		}
		if ppid, t := procTicks(pid); ppid == s.postmaster {
			total += t
		}
	}
	c.pgCPU = time.Duration(total * float64(10*time.Millisecond)) // USER_HZ = 100
	return c
}

// procTicks returns the parent of pid and its CPU ticks (utime, stime).
func procTicks(pid int) (ppid int, ticks float64) { return procTicksChildren(pid, false) }

// procTicksChildren is procTicks, with its exited children's ticks when
// children is set.
func procTicksChildren(pid int, children bool) (ppid int, ticks float64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ppid, _ = strconv.Atoi(f[1])
	for i, use := range []bool{true, true, children, children} { // utime stime cutime cstime
		if use {
			v, _ := strconv.ParseFloat(f[11+i], 64)
			ticks += v
		}
	}
	return ppid, ticks
}

// cpuBetween returns the CPU used by this process and by PostgreSQL
// between from and to, from the samples nearest to them.
func cpuBetween(samples []cpuSample, from, to time.Time) (goCPU, pgCPU time.Duration) {
	at := func(t time.Time) cpuSample {
		for _, s := range samples {
			if !s.at.Before(t) {
				return s
			}
		}
		return samples[len(samples)-1]
	}
	a, z := at(from), at(to)
	return z.goCPU - a.goCPU, z.pgCPU - a.pgCPU
}

// sampleWaits counts the database's active backends by wait event and
// statement.
func (s *cpuSampler) sampleWaits() {
	rows, err := s.db.Query(`SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'),
			left(regexp_replace(query, '\s+', ' ', 'g'), 50)
		FROM pg_stat_activity
		WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var wait, query string
		if rows.Scan(&wait, &query) == nil {
			s.waits[fmt.Sprintf("%-28s %s", wait, query)]++
		}
	}
}
