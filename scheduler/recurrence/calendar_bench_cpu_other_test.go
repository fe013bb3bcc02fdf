//go:build !linux

package recurrence

// threadCPUTime reports false: the thread's CPU time is read on Linux only.
func threadCPUTime() (int64, bool) { return 0, false }
