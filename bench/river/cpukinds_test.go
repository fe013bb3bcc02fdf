package river

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// cpuKinds samples, every 50 ms while a run lasts, the CPU ticks of the
// server's child processes by kind (backends, autovacuum, the others: WAL
// writer, checkpointer, background writer…), so that a run's CPU figure
// can be told apart: the statements' cost (backends) from deferred
// cleanup (autovacuum) that may fall in one system's run or the next's.
// A process that exits between two samples loses at most its last 50 ms.
// The zero value is not usable: use startCPUKinds; stop ends it.
type cpuKinds struct {
	stopc chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	first map[int]float64 // ticks at the first sample (processes present at the start)
	last  map[int]float64
	kind  map[int]string
}

// startCPUKinds starts sampling the children of the cluster's postmaster.
func startCPUKinds(tb testing.TB, c *cluster) *cpuKinds {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(c.pg.ClusterDir(), "postmaster.pid"))
	if err != nil {
		tb.Fatal(err)
	}
	pm, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	k := &cpuKinds{stopc: make(chan struct{}), done: make(chan struct{}),
		first: map[int]float64{}, last: map[int]float64{}, kind: map[int]string{}}
	k.sample(pm, true)
	go func() {
		defer close(k.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-k.stopc:
				k.sample(pm, false)
				return
			case <-t.C:
				k.sample(pm, false)
			}
		}
	}()
	return k
}

// children returns the pids of pm's children: from the kernel's list
// (/proc/PID/task/PID/children, which the postmaster's one thread holds),
// or, where the kernel has none, every process (sample then keeps pm's
// children by their parent). The list keeps the sampler's own CPU, which
// counts in the run's process figure for both systems, to a few file
// reads: reading every process's stat every 50 ms cost about 5 % of a
// core.
func children(pm int) []int {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pm, pm)); err == nil {
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	procs, _ := os.ReadDir("/proc")
	var pids []int
	for _, p := range procs {
		if pid, err := strconv.Atoi(p.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sample reads the ticks of pm's children.
func (k *cpuKinds) sample(pm int, initial bool) {
	pids := children(pm)
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, pid := range pids {
		s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(s)[strings.LastIndexByte(string(s), ')')+2:])
		if ppid, _ := strconv.Atoi(f[1]); ppid != pm {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		if _, ok := k.kind[pid]; !ok {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			k.kind[pid] = processKind(string(cmd))
			if initial {
				k.first[pid] = u + st
			}
		}
		k.last[pid] = u + st
	}
}

// processKind classifies a server process by its title: "autovacuum",
// "backend" (a client's session) or "other".
func processKind(title string) string {
	t := strings.TrimPrefix(strings.TrimSpace(strings.ReplaceAll(title, "\x00", " ")), "postgres: ")
	switch {
	case strings.HasPrefix(t, "autovacuum"):
		return "autovacuum"
	case strings.HasPrefix(t, "walwriter"), strings.HasPrefix(t, "checkpointer"),
		strings.HasPrefix(t, "background writer"), strings.HasPrefix(t, "logical replication"),
		strings.HasPrefix(t, "archiver"), strings.HasPrefix(t, "stats"), strings.HasPrefix(t, "startup"):
		return "other"
	default:
		return "backend"
	}
}

// stop ends the sampling and returns the CPU seconds used during it per
// kind.
func (k *cpuKinds) stop() map[string]float64 {
	close(k.stopc)
	<-k.done
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]float64{}
	for pid, t := range k.last {
		out[k.kind[pid]] += (t - k.first[pid]) / 100
	}
	return out
}
