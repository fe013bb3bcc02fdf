package web

import (
	"testing"
	"time"
)

func TestImportInstant(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-22T18:36:00Z":      "Sun 22 Nov 2026 18:36:00 UTC",
		"2026-11-22T18:36:00+00:00": "Sun 22 Nov 2026 18:36:00 UTC",
		"2026-11-22T19:36:00+01:00": "Sun 22 Nov 2026 19:36:00 +01:00",
	} {
		at, err := time.Parse(time.RFC3339, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := ImportInstant(at); got != want {
			t.Errorf("ImportInstant(%s) = %q, want %q", in, got, want)
		}
	}
}
