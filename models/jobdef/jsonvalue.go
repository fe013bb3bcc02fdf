package jobdef

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// kindOf names the JSON type of a raw value for messages: "object", "array",
// "string", "boolean", "null" or "number".
func kindOf(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// isNull reports whether raw is absent or the JSON literal null.
func isNull(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) == 0 || string(b) == "null"
}

// object is a decoded JSON object whose keys are matched case-insensitively
// (exact match first), like encoding/json does for struct fields.
type object map[string]json.RawMessage

// decodeObject decodes raw as a JSON object (splitObject: its values are
// slices of raw).
func decodeObject(raw json.RawMessage) (object, bool) {
	m, ok := splitObject(raw)
	return object(m), ok
}

// get returns the value of key, matched exactly or else case-insensitively,
// and whether it is present and not null.
func (o object) get(key string) (json.RawMessage, bool) {
	if v, ok := o[key]; ok {
		return v, !isNull(v)
	}
	for k, v := range o {
		if strings.EqualFold(k, key) {
			return v, !isNull(v)
		}
	}
	return nil, false
}

// decodeArray decodes raw as a JSON array (splitArray: its elements are
// slices of raw).
func decodeArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	return splitArray(raw)
}

// decodeString decodes raw as a JSON string. One without escapes and in
// ASCII is its bytes between the quotes; others are decoded by
// encoding/json (escapes, invalid UTF-8 replaced).
func decodeString(raw json.RawMessage) (string, bool) {
	if kindOf(raw) != "string" {
		return "", false
	}
	if i := skipSpace(raw, 0); raw[i] == '"' {
		if end, plain := scanString(raw, i); plain && skipSpace(raw, end) == len(raw) {
			return string(raw[i+1 : end-1]), true
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// intResult is the outcome of reading a JSON number as an integer.
type intResult int

const (
	intOK intResult = iota
	intNotNumber
	intNotInteger
	intTooLarge
	intTooSmall
)

// decodeInt reads raw as an integer. Integral floats such as 2.0 or 1e2 are
// accepted; values beyond ±2^31 report intTooLarge or intTooSmall so callers
// can say "is over the maximum" with the number as written (text).
func decodeInt(raw json.RawMessage) (v int, text string, res intResult) {
	text = string(bytes.TrimSpace(raw))
	if kindOf(raw) != "number" {
		return 0, text, intNotNumber
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		switch {
		case n > math.MaxInt32:
			return 0, text, intTooLarge
		case n < math.MinInt32:
			return 0, text, intTooSmall
		}
		return int(n), text, intOK
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if strings.HasPrefix(text, "-") {
			return 0, text, intTooSmall
		}
		return 0, text, intTooLarge
	}
	if f != math.Trunc(f) {
		return 0, text, intNotInteger
	}
	switch {
	case f > math.MaxInt32:
		return 0, text, intTooLarge
	case f < math.MinInt32:
		return 0, text, intTooSmall
	}
	return int(f), text, intOK
}
