package jobdef

import "strings"

// Final reports whether s is completed or faulted: final states that only
// allow deletion.
func (s State) Final() bool { return s == Completed || s == Faulted }

// Label is the state as a page shows it: capitalised ("Enabled").
func (s State) Label() string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(string(s[:1])) + string(s[1:])
}
