package notifydef

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
)

// namePattern is the shape of a channel's or a rule's name, as a
// calendar's: it appears in URLs.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidName reports whether s may name a channel or an alert rule: a
// letter or digit, then up to 63 letters, digits, '-', '_' or '.'.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// object decodes raw as a JSON object; ok is false for anything else
// (null included).
func object(raw []byte) (map[string]json.RawMessage, bool) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		return nil, false
	}
	return o, true
}

// sortedKeys returns o's keys in order, so that problems come in a stable
// order.
func sortedKeys(o map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(o))
}

// str decodes raw as a string.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", false
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
