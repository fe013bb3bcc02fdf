package models

import (
	"context"
	"runtime"
)

// writeLimit bounds how many of the catalog's write transactions
// (AuditedThen) run at once in one Store: a write waits for a slot before
// its transaction begins and frees it when the transaction ends (each try
// of a retried one takes its own).
//
// On a few cores, many concurrent write transactions make every one of
// them slower: their statements take turns for the CPU, and the row
// locks they hold (a job's, its collection's counts) are held as long as
// the slowest round trip, so that the writers queued behind a busy row
// wait longer still. A few at a time, each finishes and releases its
// locks sooner; the writes beyond the limit wait in the process, holding
// neither a connection nor a lock (BenchmarkConcurrentWrites, 20 clients
// on 2 cores: the p99 falls by a quarter to a half, the throughput stays;
// see BENCHMARKS.md).
type writeLimit chan struct{}

// defaultWriteLimit is Options.MaxConcurrentWrites' default: twice the
// CPUs Go may use, and at least 4.
func defaultWriteLimit() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// newWriteLimit returns a writeLimit of n slots; n below zero means no
// limit (nil), zero the default (defaultWriteLimit).
func newWriteLimit(n int) writeLimit {
	switch {
	case n < 0:
		return nil
	case n == 0:
		n = defaultWriteLimit()
	}
	return make(writeLimit, n)
}

// acquire waits for a slot, or for ctx to end (its error). A nil
// writeLimit has a slot for everyone.
func (l writeLimit) acquire(ctx context.Context) error {
	if l == nil {
		return nil
	}
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release frees the slot acquire took.
func (l writeLimit) release() {
	if l != nil {
		<-l
	}
}
