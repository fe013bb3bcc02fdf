package web

import "time"

// ImportInstant formats a next run of an import's report, which carries
// the job's offset but not its zone's name: as InstantIn does for UTC
// ("Sun 22 Nov 2026 18:36:00 UTC"), with the offset otherwise.
func ImportInstant(t time.Time) string {
	if _, off := t.Zone(); off == 0 {
		return InstantIn(t, time.UTC, t).Local
	}
	return t.Format("Mon 2 Jan 2006 15:04:05 -07:00")
}
