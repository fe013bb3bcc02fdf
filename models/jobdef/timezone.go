package jobdef

import (
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zones must work on machines without system zoneinfo
)

// zoneCache memoises LoadZone: loading a zone parses tzdata, which is far
// slower than the recurrence arithmetic that uses it.
var zoneCache sync.Map // string → *time.Location

// windowsLower is windowsZones keyed by lowercase Windows ID.
var windowsLower = func() map[string]string {
	m := make(map[string]string, len(windowsZones))
	for k, v := range windowsZones {
		m[strings.ToLower(k)] = v
	}
	return m
}()

// LoadZone resolves a time zone name: an IANA name ("Europe/Berlin", "UTC")
// or a Windows time zone ID ("W. Europe Standard Time", case-insensitive).
// The empty name is UTC. "Local" is refused: a job's meaning must not depend
// on the machine that runs it.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if v, ok := zoneCache.Load(name); ok {
		return v.(*time.Location), nil
	}
	iana := name
	if w, ok := windowsLower[strings.ToLower(name)]; ok {
		iana = w
	}
	if strings.EqualFold(iana, "local") || len(iana) > 64 || strings.Contains(iana, "..") {
		return nil, fmt.Errorf("load zone %q: not a known IANA or Windows time zone", name)
	}
	loc, err := time.LoadLocation(iana)
	if err != nil {
		return nil, fmt.Errorf("load zone %q: %w", name, err)
	}
	zoneCache.Store(name, loc)
	return loc, nil
}

// WindowsZoneNames returns the Windows time zone IDs LoadZone knows, mapped
// to their IANA names (a copy; callers may modify it).
func WindowsZoneNames() map[string]string {
	m := make(map[string]string, len(windowsZones))
	for k, v := range windowsZones {
		m[k] = v
	}
	return m
}
