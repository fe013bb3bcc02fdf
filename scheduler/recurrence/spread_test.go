package recurrence

import (
	"strings"
	"testing"
	"time"

	"sked/models/problem"
)

func TestSpreadOffset(t *testing.T) {
	at := mustTime(t, "2026-01-01T00:00:00Z")
	rows := []struct {
		name   string
		window time.Duration
		key    uint64
	}{
		{"no window", 0, 1},
		{"under a second", 900 * time.Millisecond, 1},
		{"one second", time.Second, 1},
		{"five minutes", 5 * time.Minute, 1},
		{"an hour", time.Hour, 7},
		{"key zero", 30 * time.Second, 0},
		{"large key", 30 * time.Second, 1 << 62},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			sp := Spread{Window: r.window, Key: r.key}
			off := sp.Offset(at)
			if off != sp.Offset(at) || off != (Spread{Window: r.window, Key: r.key}).Offset(at.In(time.FixedZone("X", 3600))) {
				t.Fatalf("offset not stable: %v", off)
			}
			if r.window < 2*time.Second {
				if off != 0 || !sp.Due(at).Equal(at) {
					t.Fatalf("window %v: offset %v, due %v; want none", r.window, off, sp.Due(at))
				}
				return
			}
			if off < 0 || off >= r.window || off%time.Second != 0 {
				t.Fatalf("offset %v outside [0, %v) or not whole seconds", off, r.window)
			}
			if !sp.Due(at).Equal(at.Add(off)) {
				t.Fatalf("due %v, want %v", sp.Due(at), at.Add(off))
			}
		})
	}
	// The offsets of one job differ between occurrences, and those of two
	// jobs at one occurrence differ: the hash takes both.
	sp := Spread{Window: time.Hour, Key: 1}
	same := 0
	for i := 0; i < 100; i++ {
		if sp.Offset(at.Add(time.Duration(i)*time.Hour)) == sp.Offset(at) {
			same++
		}
	}
	if same > 3 {
		t.Errorf("%d of 100 occurrences share the first one's offset", same)
	}
}

// TestSpreadUniform spreads 5,000 jobs (consecutive ids, and ids with
// gaps) of one occurrence over PT5M: no second of the window holds more
// than twice its share nor less than half of it, at several occurrences.
func TestSpreadUniform(t *testing.T) {
	const jobs = 5000
	window := 5 * time.Minute
	for _, r := range []struct {
		first, step uint64
		at          string
	}{
		{1, 1, "2026-01-01T00:00:00Z"},
		{1, 1, "2026-01-02T00:00:00Z"},
		{123_456, 1, "2026-03-29T01:00:00Z"},
		{10, 3, "2026-01-01T00:00:00Z"},
		{7, 17, "2026-06-01T12:00:00Z"},
	} {
		at := mustTime(t, r.at)
		var buckets [300]int
		for i := uint64(0); i < jobs; i++ {
			sp := Spread{Window: window, Key: r.first + i*r.step}
			buckets[sp.Offset(at)/time.Second]++
		}
		share := float64(jobs) / float64(len(buckets))
		for s, n := range buckets {
			if float64(n) > 2*share || float64(n) < share/2 {
				t.Errorf("ids %d+%d·i at %s: second %d holds %d starts, share %.1f", r.first, r.step, r.at, s, n, share)
			}
		}
	}
}

func TestSpreadNominal(t *testing.T) {
	rule := compileAt(t, jobJSON("2026-01-01T00:00:00Z", `{"frequency":"minute","interval":10,"window":"PT9M"}`), "2026-01-01T00:00:00Z")
	sp := Spread{Window: 9 * time.Minute, Key: 3}
	for _, nominal := range rule.Take(50) {
		due := sp.Due(nominal)
		if got := sp.Nominal(rule, due); !got.Equal(nominal) {
			t.Fatalf("Nominal(%v) = %v, want %v", due, got, nominal)
		}
	}
	// A due time that is no occurrence's (a window changed since) stands
	// for itself.
	odd := mustTime(t, "2026-01-01T00:03:17Z")
	if got := sp.Nominal(rule, odd); !got.Equal(odd) && !sp.Due(got).Equal(odd) {
		t.Fatalf("Nominal(%v) = %v", odd, got)
	}
	if got := (Spread{}).Nominal(rule, odd); !got.Equal(odd) {
		t.Fatalf("no window: Nominal(%v) = %v", odd, got)
	}
}

func TestCheckWindow(t *testing.T) {
	rows := []struct {
		rec  string
		want string // "" = accepted; else part of the problem
	}{
		{`{"frequency":"minute","interval":10,"window":"PT9M59S"}`, ""},
		{`{"frequency":"minute","interval":10,"window":"PT10M"}`, "not shorter than the shortest gap between two occurrences (10 minutes)"},
		{`{"frequency":"hour","interval":1,"window":"PT1H"}`, "not shorter than the shortest gap between two occurrences (1 hour)"},
		{`{"frequency":"day","schedule":{"hours":[9],"minutes":[0,15]},"window":"PT15M"}`, "(15 minutes)"},
		{`{"frequency":"day","schedule":{"hours":[9],"minutes":[0,15]},"window":"PT14M"}`, ""},
		{`{"frequency":"day","window":"PT1H"}`, ""},
		{`{"frequency":"day","count":1,"window":"PT1H"}`, ""},
		{`{"frequency":"minute","window":"PT0S"}`, ""},
	}
	for _, r := range rows {
		t.Run(r.rec, func(t *testing.T) {
			rule := compileAt(t, jobJSON("2026-01-01T00:00:00Z", r.rec), "2026-01-01T00:00:00Z")
			err := rule.CheckWindow(mustTime(t, "2026-01-01T00:00:00Z"))
			if r.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			ve := problem.As(err)
			if ve == nil || len(ve.Problems) != 1 || ve.Problems[0].Path != "recurrence.window" || !strings.Contains(ve.Problems[0].Message, r.want) {
				t.Fatalf("got %v, want recurrence.window: …%s", err, r.want)
			}
		})
	}
}

// TestPreviewSpread: a keyed preview shows when each occurrence is due,
// an unkeyed one the nominal times and a warning; the description names
// the window; a window too long is a problem of the preview.
func TestPreviewSpread(t *testing.T) {
	js := jobJSON("2026-01-01T00:00:00Z", `{"frequency":"hour","window":"PT5M"}`)
	now := mustTime(t, "2026-01-01T00:00:00Z")
	plain, err := PreviewWith(mustParse(t, js), now, 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := uint64(42)
	keyed, err := PreviewWith(mustParse(t, js), now, 5, Options{SpreadKey: key, Keyed: true})
	if err != nil {
		t.Fatal(err)
	}
	sp := Spread{Window: 5 * time.Minute, Key: key}
	for i, at := range plain.Occurrences {
		if at.Minute() != 0 || at.Second() != 0 {
			t.Errorf("unkeyed occurrence %d = %v, want the nominal time", i, at)
		}
		if !keyed.Occurrences[i].Equal(sp.Due(at)) {
			t.Errorf("keyed occurrence %d = %v, want %v", i, keyed.Occurrences[i], sp.Due(at))
		}
	}
	if !strings.Contains(strings.Join(plain.Warnings, "|"), "within 5 minutes after the times shown") {
		t.Errorf("unkeyed warnings %q lack the window", plain.Warnings)
	}
	if strings.Contains(strings.Join(keyed.Warnings, "|"), "within 5 minutes") {
		t.Errorf("keyed warnings %q", keyed.Warnings)
	}
	if want := "Every hour, spread over 5 minutes"; keyed.Description != want {
		t.Errorf("description %q, want %q", keyed.Description, want)
	}
	_, err = PreviewWith(mustParse(t, jobJSON("", `{"frequency":"minute","interval":5,"window":"PT5M"}`)), now, 5, Options{})
	if ve := problem.As(err); ve == nil || ve.Problems[0].Path != "recurrence.window" {
		t.Errorf("a window as long as the interval: %v", err)
	}
}

// compileAt compiles a job JSON created at now.
func compileAt(t *testing.T, js, now string) *Rule {
	t.Helper()
	r, err := Compile(mustParse(t, js), mustTime(t, now))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
