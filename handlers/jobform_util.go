package handlers

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"sked/models/jobdef"
	"sked/models/problem"
)

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

// onlyActionProblems reports whether every problem is in the action.
func onlyActionProblems(ve *problem.List) bool {
	for _, p := range ve.Problems {
		if p.Path != "action" && !strings.HasPrefix(p.Path, "action.") {
			return false
		}
	}
	return true
}

// withPlaceholderAction returns the job JSON with its action replaced by a
// valid placeholder, to preview the schedule of a job whose action is not
// complete yet.
func withPlaceholderAction(body []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return body
	}
	placeholder := json.RawMessage(`{"type":"http","request":{"uri":"https://placeholder.invalid/","method":"GET"}}`)
	if props, ok := top["properties"]; ok {
		var p map[string]json.RawMessage
		if json.Unmarshal(props, &p) != nil {
			return body
		}
		p["action"] = placeholder
		top["properties"], _ = json.Marshal(p)
	} else {
		top["action"] = placeholder
	}
	out, _ := json.Marshal(top)
	return out
}
