package jobdef

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// jsonSeeds are inputs for the splitters' tests: objects, arrays and
// strings, valid and not, with escapes, non-ASCII text, invalid UTF-8,
// duplicate keys, nesting and every kind of number and literal.
var jsonSeeds = []string{
	`{}`, ` { } `, `[]`, `[ ]`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"a" : [1, 2.5, -0.1e+3, 1E2] , "b":{"c":null}}`,
	`{"k\u00e9y":"v\"al\\ue","x":"\ud83d\ude00"}`, "{\"\xff\":\"\xfe\"}", `{"é":"ü"}`, `{"a":true,"b":false,"c":null}`,
	`[1,[2,[3,{"d":[]}]],"s"]`, `"plain"`, `"esc\n\t\/"`, `"bad\q"`, `"\u12"`, "\"ctl\x01\"", `"unterminated`,
	`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"a" 1}`, `{"a":1,}`, `{,}`,
	`[1,]`, `[,1]`, `{"a":1}x`, `{"a":1} {}`, `{"a":[1}`, `{"a":{"b":1]}`, `{1:2}`, `{"a":1`, `[`, `{`, ``, ` `,
	`{"a":"b"}` + "\n", "\t[\"x\"]\r\n", `{"a":"\u0000"}`, `{"":""}`, `[[[[[[]]]]]]`, `{"a":-0}`, `{"a":0.0e-0}`,
	`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET","headers":{"X":"1","x":"2"}}}}`,
}

// FuzzSplitObject checks the splitters against encoding/json: splitObject
// and eachMember accept what json.Unmarshal into a map of raw values
// accepts, with the same keys and values, and splitArray and
// decodeString likewise.
func FuzzSplitObject(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSplitters(t, data) })
}

// TestSplittersAgreeWithEncodingJSON runs FuzzSplitObject's checks on its
// seeds.
func TestSplittersAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range jsonSeeds {
		checkSplitters(t, []byte(s))
	}
	// Nesting at encoding/json's limit of 10,000 levels, and beyond it.
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		inner := strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1)
		checkSplitters(t, []byte(`{"a":`+inner+`}`))
		checkSplitters(t, []byte(`[`+inner+`]`))
	}
}

func checkSplitters(t *testing.T, data []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	wantOK := json.Unmarshal(data, &want) == nil && want != nil
	got, ok := splitObject(data)
	if ok != wantOK {
		t.Fatalf("splitObject(%q) ok = %v, encoding/json says %v", data, ok, wantOK)
	}
	if ok && !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Fatalf("splitObject(%q) = %q, encoding/json gives %q", data, got, want)
	}
	var wantArr []json.RawMessage
	wantArrOK := json.Unmarshal(data, &wantArr) == nil && wantArr != nil
	arr, ok := splitArray(data)
	if ok != wantArrOK {
		t.Fatalf("splitArray(%q) ok = %v, encoding/json says %v", data, ok, wantArrOK)
	}
	if ok && !slices.EqualFunc(arr, wantArr, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Fatalf("splitArray(%q) = %q, encoding/json gives %q", data, arr, wantArr)
	}
	var wantStr string
	wantStrOK := kindOf(data) == "string" && json.Unmarshal(data, &wantStr) == nil
	str, ok := decodeString(data)
	if ok != wantStrOK || str != wantStr {
		t.Fatalf("decodeString(%q) = %q, %v; encoding/json gives %q, %v", data, str, ok, wantStr, wantStrOK)
	}
}
