package handlers

import (
	"slices"
	"sync"

	"sked/models/jobdef"
)

// The time zones the forms offer (the job form, "All jobs").

var (
	zonesOnce sync.Once
	zones     []string
)

// zoneNames lists the IANA zone names the form offers: UTC and every zone
// that a Windows zone name maps to, sorted.
func zoneNames() []string {
	zonesOnce.Do(func() {
		seen := map[string]bool{"UTC": true}
		zones = []string{"UTC"}
		for _, iana := range jobdef.WindowsZoneNames() {
			if !seen[iana] {
				seen[iana] = true
				zones = append(zones, iana)
			}
		}
		slices.Sort(zones[1:])
	})
	return zones
}
