package recurrence

import (
	"syscall"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// threadCPUTime returns the CPU time the calling thread has used, in
// nanoseconds, and true (Linux only): unlike the wall clock it does not count
// the time the thread waits for a core, so benchmarks on a shared machine
// can report it (BenchmarkNextCalendar's cpu-ns/op).
func threadCPUTime() (int64, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return ts.Nano(), true
}
