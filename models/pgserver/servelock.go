package pgserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// serveLockName is the lock file of "sked serve" in a data directory.
const serveLockName = "serve.lock"

// ServeLock is the exclusive "one sked serve per data directory" lock, an
// flock on <data dir>/serve.lock that the operating system releases when
// the process exits, however it exits. It is held from LockServe until
// Release.
type ServeLock struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// LockServe takes the serve lock of dataDir (created, mode 0755, if
// missing) without waiting and writes this process's pid into the lock
// file. If another process, or another LockServe in this process, holds
// it, LockServe returns an error wrapping ErrServeRunning that names the
// data directory and the holder's pid, such as: another "sked serve" is
// already running on data directory /x (pid 1234).
func LockServe(dataDir string) (*ServeLock, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("pgserver: serve lock: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("pgserver: serve lock: %w", err)
	}
	path := filepath.Join(abs, serveLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pgserver: serve lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid := "pid unknown"
			if b, err := os.ReadFile(path); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
					pid = "pid " + strconv.Itoa(n)
				}
			}
			return nil, fmt.Errorf("%w on data directory %s (%s)", ErrServeRunning, abs, pid)
		}
		return nil, fmt.Errorf("pgserver: serve lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &ServeLock{f: f, path: path}, nil
}

// Release gives the lock up. The lock file stays (removing it would let two
// processes lock different files). It is safe to call more than once.
func (l *ServeLock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := l.f.Close() // closing releases the flock
	l.f = nil
	if err != nil {
		return fmt.Errorf("pgserver: release serve lock: %w", err)
	}
	return nil
}
