package jobdef

import (
	"encoding/json"
	"unicode/utf8"
)

// The parser reads a job one level at a time: an object's members as raw
// values, each decoded when its field is read. encoding/json does that by
// unmarshalling each level into a map of json.RawMessage, which validates
// and scans the level twice and copies every value, so that a job of
// four levels was scanned about ten times (half of Parse's time). The
// functions here split an object or an array in one validating pass and
// return values that are slices of their input (nothing in this package
// keeps them beyond the parse, nor writes to them). They accept exactly
// what encoding/json accepts and give the same keys and values
// (FuzzSplitObject checks both against encoding/json).

// splitObject splits raw, a JSON object with optional surrounding
// whitespace, into its members; a later duplicate key replaces an earlier
// one, as encoding/json's map does. ok is false when raw is not exactly one
// valid JSON object.
func splitObject(raw []byte) (m map[string]json.RawMessage, ok bool) {
	m = make(map[string]json.RawMessage, 8)
	if !eachMember(raw, func(k string, v json.RawMessage) { m[k] = v }) {
		return nil, false
	}
	return m, true
}

// eachMember calls fn with each member of raw, a JSON object with
// optional surrounding whitespace, in order (its key decoded, its value a
// slice of raw), and reports whether raw is exactly one valid JSON object;
// when it is not, fn may have been called for the members before the
// fault.
func eachMember(raw []byte, fn func(key string, value json.RawMessage)) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	end := scanObject(raw, i, 1, fn)
	return end >= 0 && skipSpace(raw, end) == len(raw)
}

// splitArray splits raw, a JSON array with optional surrounding
// whitespace, into its elements; ok is false when raw is not exactly one
// valid JSON array.
func splitArray(raw []byte) (elems []json.RawMessage, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	elems = []json.RawMessage{}
	end := scanArray(raw, i, 1, func(v json.RawMessage) { elems = append(elems, v) })
	if end < 0 || skipSpace(raw, end) != len(raw) {
		return nil, false
	}
	return elems, true
}

// scanObject returns the end of the JSON object whose opening brace is
// b[i], or -1 when it is not valid. It calls fn, when not nil, with each
// member in order (its key decoded, its value a slice of b); depth is how
// many objects and arrays enclose the members' values, this one included.
func scanObject(b []byte, i, depth int, fn func(key string, value json.RawMessage)) int {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		end, _ := scanString(b, i)
		if end < 0 {
			return -1
		}
		var key string
		if fn != nil {
			key, _ = decodeString(b[i:end]) // a valid string: scanString
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = skipSpace(b, i+1)
		vend := scanValue(b, i, depth)
		if vend < 0 {
			return -1
		}
		if fn != nil {
			fn(key, b[i:vend:vend])
		}
		var done bool
		if i, done = afterItem(b, vend, '}'); i < 0 || done {
			return i
		}
	}
}

// scanArray returns the end of the JSON array whose opening bracket is
// b[i], or -1 when it is not valid. It calls fn, when not nil, with each
// element in order (a slice of b); depth is as for scanObject.
func scanArray(b []byte, i, depth int, fn func(value json.RawMessage)) int {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		end := scanValue(b, i, depth)
		if end < 0 {
			return -1
		}
		if fn != nil {
			fn(b[i:end:end])
		}
		var done bool
		if i, done = afterItem(b, end, ']'); i < 0 || done {
			return i
		}
	}
}

// afterItem reads what follows an object's member or an array's element
// that ends at b[i]: a comma (it returns the start of the next item) or
// closer (it returns the index after it, and done). It returns -1 when
// neither follows.
func afterItem(b []byte, i int, closer byte) (next int, done bool) {
	i = skipSpace(b, i)
	switch {
	case i >= len(b):
		return -1, false
	case b[i] == ',':
		return skipSpace(b, i+1), false
	case b[i] == closer:
		return i + 1, true
	}
	return -1, false
}

// skipSpace returns the index of the first byte from i on that is not
// JSON whitespace (len(b) when there is none).
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// maxDepth is how deeply objects and arrays may nest, as in encoding/json
// (which refuses a document nested deeper).
const maxDepth = 10000

// scanValue returns the end of the JSON value starting at b[i], or -1
// when none is there or it is not valid; depth is how many objects and
// arrays enclose it.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	if (b[i] == '{' || b[i] == '[') && depth >= maxDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := scanString(b, i)
		return end
	case c == '{':
		return scanObject(b, i, depth+1, nil)
	case c == '[':
		return scanArray(b, i, depth+1, nil)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	}
	return -1
}

// scanLiteral returns the end of lit at b[i], or -1.
func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber returns the end of the JSON number at b[i] (-?(0|[1-9]d*)
// (.d+)?([eE][+-]?d+)?), or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

// scanString returns the end of the JSON string whose opening quote is
// b[i] (the index after its closing quote), or -1 when it is not valid;
// plain says it holds no escape and only ASCII, so that its text is the
// bytes between the quotes.
func scanString(b []byte, i int) (end int, plain bool) {
	plain = true
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return -1, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 {
					return -1, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1, false
					}
				}
				i += 4
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return -1, false
}
