package handlers

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPingLimiter(t *testing.T) {
	l := newPingLimiter()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		if ok, _ := l.allow("a", t0); !ok {
			t.Fatalf("ping %d refused", i+1)
		}
	}
	ok, wait := l.allow("a", t0)
	if ok || wait != 100*time.Millisecond {
		t.Errorf("11th ping: %v, wait %v", ok, wait)
	}
	if ok, _ := l.allow("b", t0); !ok {
		t.Error("another token is limited by the first")
	}
	if ok, _ := l.allow("a", t0.Add(100*time.Millisecond)); !ok {
		t.Error("no ping allowed 100 ms later")
	}
	// Idle buckets go at the next sweep.
	later := t0.Add(2 * time.Minute)
	for i := range pingSweepEvery {
		l.allow(fmt.Sprint("k", i), later)
	}
	if _, kept := l.buckets["a"]; kept {
		t.Error("an idle bucket survived the sweep")
	}
}

func TestCutMessage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"short", 5},
		{strings.Repeat("x", 20000), 10240},
		{strings.Repeat("é", 6000), 10240},              // 2-byte characters: 5,120 whole ones
		{"x" + strings.Repeat("€", 4000), 10240 - 0},    // 1 + 3·3413 = 10,240
		{"xy" + strings.Repeat("€", 4000), 10240 - 2},   // the cut splits a € : dropped
		{"bad \xff\x00 bytes", len("bad \uFFFD bytes")}, // invalid UTF-8 replaced, NUL dropped
	} {
		got := cutMessage([]byte(tc.in))
		if len(got) != tc.want || !utf8.ValidString(got) {
			t.Errorf("cutMessage(%.20q…) is %d bytes (valid %v), want %d", tc.in, len(got), utf8.ValidString(got), tc.want)
		}
	}
}
