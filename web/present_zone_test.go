package web

import (
	"testing"
	"time"
)

func TestZoneCaption(t *testing.T) {
	for zone, want := range map[string]string{
		"UTC":           "in UTC",
		"":              "in UTC",
		"Europe/Berlin": "in Europe/Berlin, UTC alongside",
	} {
		if got := ZoneCaption(zone); got != want {
			t.Errorf("ZoneCaption(%q) = %q, want %q", zone, got, want)
		}
	}
}

func TestPreviewOccurrencesUTC(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	at := []time.Time{time.Date(2026, 11, 22, 18, 36, 0, 0, time.UTC)}
	if got := PreviewOccurrences(at, time.UTC)[0]; got.UTC != "" || got.Local != "Sun 22 Nov 2026 18:36 UTC" {
		t.Errorf("UTC: %+v, want no UTC alongside", got)
	}
	if got := PreviewOccurrences(at, berlin)[0]; got.UTC != "22 Nov 18:36 UTC" {
		t.Errorf("Berlin: %+v, want UTC alongside", got)
	}
}
