package handlers

import (
	"strings"
	"sync"
	"time"
)

// signInThrottle slows down repeated failed sign-ins and wrong setup
// codes. Each user name and each client address has a count of recent
// failures (setup codes a count per address of their own); past a few free
// attempts, the next attempt must wait twice as long as the one before
// (1 s, 2 s, 4 s … up to 15 minutes) after the last failure. Counts are
// kept in memory per instance and forgotten an hour after the last failure.
// It is safe for concurrent use.
type signInThrottle struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[string]*throttleEntry
}

type throttleEntry struct {
	failures int
	last     time.Time
}

const (
	freeUserAttempts = 5
	freeAddrAttempts = 20
	maxThrottleDelay = 15 * time.Minute
	throttleForget   = time.Hour
	maxThrottleKeys  = 10000
)

func newSignInThrottle(now func() time.Time) *signInThrottle {
	return &signInThrottle{now: now, entries: map[string]*throttleEntry{}}
}

func userKey(username string) string { return "u:" + strings.ToLower(username) }
func addrKey(addr string) string     { return "a:" + addr }

// wait returns how long the caller must still wait before trying to sign
// in as username from addr; zero means go ahead.
func (t *signInThrottle) wait(username, addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	w := t.waitFor(userKey(username), freeUserAttempts, now)
	if a := t.waitFor(addrKey(addr), freeAddrAttempts, now); a > w {
		w = a
	}
	return w
}

func (t *signInThrottle) waitFor(key string, free int, now time.Time) time.Duration {
	e, ok := t.entries[key]
	if !ok || e.failures < free {
		return 0
	}
	delay := time.Second << min(e.failures-free, 20)
	if delay > maxThrottleDelay {
		delay = maxThrottleDelay
	}
	if remaining := e.last.Add(delay).Sub(now); remaining > 0 {
		return remaining
	}
	return 0
}

// fail records a failed sign-in as username from addr.
func (t *signInThrottle) fail(username, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.failKeys(now, userKey(username), addrKey(addr))
}

// failKeys counts a failure at now for each key; t.mu is held.
func (t *signInThrottle) failKeys(now time.Time, keys ...string) {
	if len(t.entries) >= maxThrottleKeys {
		for k, e := range t.entries {
			if now.Sub(e.last) > throttleForget {
				delete(t.entries, k)
			}
		}
	}
	for _, key := range keys {
		e, ok := t.entries[key]
		if !ok || now.Sub(e.last) > throttleForget {
			e = &throttleEntry{}
			t.entries[key] = e
		}
		e.failures++
		e.last = now
	}
}

// freeSetupAttempts is how many wrong setup codes one client address may
// send before each further attempt must wait.
const freeSetupAttempts = 5

func setupKey(addr string) string { return "s:" + addr }

// waitSetup returns how long a client at addr must still wait before
// trying a setup code again; zero means go ahead.
func (t *signInThrottle) waitSetup(addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waitFor(setupKey(addr), freeSetupAttempts, t.now())
}

// failSetup records a wrong setup code from addr.
func (t *signInThrottle) failSetup(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failKeys(t.now(), setupKey(addr))
}

// succeed forgets the failures of username after a successful sign-in.
func (t *signInThrottle) succeed(username string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, userKey(username))
}

// waitAddr returns how long a client at addr must still wait before a
// sign-in that names no user yet (OpenID Connect); zero means go ahead. It
// shares the address's count with password sign-ins.
func (t *signInThrottle) waitAddr(addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waitFor(addrKey(addr), freeAddrAttempts, t.now())
}

// failAddr records a failed sign-in from addr that names no user.
func (t *signInThrottle) failAddr(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failKeys(t.now(), addrKey(addr))
}
