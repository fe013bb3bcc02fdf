package jobdef

import (
	"errors"
	"sked/models/problem"
	"strings"
	"testing"
)

// TestRequestAndTextValidation checks that a request URI
// must be an absolute http(s) URI without whitespace, control characters
// or a stray '%' (for the error action too), a retryPolicy needs its retryType, and text that
// PostgreSQL cannot hold is refused naming the job.
func TestRequestAndTextValidation(t *testing.T) {
	action := func(uri, extra string) string {
		return `{"action":{"type":"http","request":{"uri":"` + uri + `","method":"GET"}` + extra + `}}`
	}
	errorAction := func(uri string) string {
		return action("https://example.com/", `,"errorAction":{"type":"http","request":{"uri":"`+uri+`","method":"GET"},"retryPolicy":{"retryType":"none"}}`)
	}
	for _, tc := range []struct {
		name, json string
		want       []string
	}{
		{"space in the URI", action("https://example.com/a b", ""), []string{
			`action.request.uri: "https://example.com/a b" holds a space at character 22, which a URI may not contain (RFC 3986): percent-encode it`}},
		{"space in the host", action("https://exa mple.com/", ""), []string{`action.request.uri: "https://exa mple.com/" holds a space`}},
		{"tab", action(`https://example.com/\t`, ""), []string{`holds the control character U+0009`}},
		{"CR LF", action(`https://example.com/\r\nX: y`, ""), []string{`holds the control character U+000D`}},
		{"no-break space", action("https://example.com/a\u00a0b", ""), []string{`holds the space character U+00A0 at character 22`}},
		{"line separator", action("https://example.com/?a=\u2028", ""), []string{`holds the space character U+2028`}},
		{"space in the query", action("https://example.com/?q=a b", ""), []string{`holds a space at character 25`}},
		{"stray percent", action("https://example.com/100%", ""), []string{`holds a '%' that is not followed by two hex digits`}},
		{"relative", action("/hook", ""), []string{`action.request.uri: "/hook" is not an absolute http or https URL`}},
		{"ftp", action("ftp://example.com/file", ""), []string{`action.request.uri: "ftp://example.com/file" is not an absolute http or https URL`}},
		{"no host", action("https:///path", ""), []string{`action.request.uri: "https:///path" is not an absolute http or https URL`}},
		{"error action's URI", errorAction("https://example.com/a b"), []string{`action.errorAction.request.uri: "https://example.com/a b" holds a space`}},
		{"error action's relative URI", errorAction("hook"), []string{`action.errorAction.request.uri: "hook" is not an absolute http or https URL`}},
		{"empty retryPolicy", action("https://example.com/", `,"retryPolicy":{}`), []string{
			"action.retryPolicy.retryType: is required when retryPolicy is given (none, fixed or exponential)"}},
		{"retryPolicy without retryType", action("https://example.com/", `,"retryPolicy":{"retryCount":2}`), []string{
			"action.retryPolicy.retryType: is required when retryPolicy is given (none, fixed or exponential)"}},
		{"retryType null", action("https://example.com/", `,"retryPolicy":{"retryType":null}`), []string{
			"action.retryPolicy.retryType: is required"}},
		{"retryType blank", action("https://example.com/", `,"retryPolicy":{"retryType":" "}`), []string{
			"action.retryPolicy.retryType: is required"}},
		{"error action's retryPolicy", action("https://example.com/", `,"errorAction":{"type":"http","request":{"uri":"https://example.com/","method":"GET"},"retryPolicy":{}}`), []string{
			"action.errorAction.retryPolicy.retryType: is required"}},
		{"NUL escape in a string", action("https://example.com/", `,"timeout":"PT1M\u0000"`), []string{`job: contains a NUL character (\u0000) (at byte`}},
		{"NUL byte", action("https://example.com/\x00", ""), []string{"job: contains a NUL byte (at byte 63)"}},
		{"invalid UTF-8", action("https://example.com/\xff", ""), []string{"job: is not valid UTF-8 (at byte 63)"}},
		{"overlong UTF-8", action("https://example.com/\xc0\xaf", ""), []string{"job: is not valid UTF-8"}},
		{"lone surrogate", action("https://example.com/", `,"timeout":"\ud800"`), []string{"half a surrogate pair"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := Parse([]byte(tc.json))
			ve := problem.As(err)
			if ve == nil {
				t.Fatalf("not refused with a *problem.List: %v %+v", err, job)
			}
			for _, w := range tc.want {
				if !strings.Contains(ve.Error(), w) {
					t.Errorf("\n got: %s\nwant: %s", ve.Error(), w)
				}
			}
		})
	}
}

// TestRequestAndTextValidationAccepts checks what those checks let through.
func TestRequestAndTextValidationAccepts(t *testing.T) {
	for _, js := range []string{
		`{"action":{"type":"http","request":{"uri":"https://example.com/a%20b?x=1&y=[2]#f","method":"GET"},"retryPolicy":{"retryType":"none"}}}`,
		`{"action":{"type":"http","request":{"uri":"http://user:pw@[::1]:8080/p;q=1/~x!$'()*+,=","method":"GET"},"retryPolicy":{"retryType":"Fixed","retryCount":1}}}`,
		`{"action":{"type":"http","request":{"uri":"https://example.com/","method":"POST","body":"caf\u00e9 \ud83d\ude00 ü \\u0000"}}}`,
		`{"action":{"type":"http","request":{"uri":"https://example.com/café?a=1&b=<2>&c=\"{|}\"","method":"GET"}}}`,
	} {
		if _, err := Parse([]byte(js)); err != nil {
			t.Errorf("%s: %v", js, err)
		}
	}
}

// TestStoredDefinitionsKeepParsing checks that a definition an older Sked
// stored (retryPolicy without retryType, a URI with a space) still parses
// with Options.Stored, with the default retry type.
func TestStoredDefinitionsKeepParsing(t *testing.T) {
	def := `{"action":{"type":"http","request":{"uri":"https://example.com/a b","method":"GET"},"retryPolicy":{"retryCount":2}}}`
	if _, err := Parse([]byte(def)); err == nil {
		t.Fatal("Parse accepted it")
	}
	job, err := ParseWith([]byte(def), Options{Stored: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := job.Action.RetryPolicy; p.Type != RetryFixed || p.Count != 2 {
		t.Errorf("retry policy %+v", p)
	}
}

// TestTextScannerPieces feeds texts byte by byte and whole: both find the
// same first problem at the same offset.
func TestTextScannerPieces(t *testing.T) {
	for _, tc := range []struct {
		text   string
		offset int64 // -1: no problem
	}{
		{`{"a":"é😀"}`, -1},
		{`{"a":"\\u0000"}`, -1},
		{`{"a":"\ud83d\ude00"}`, -1},
		{`{"a":"\u0000"}`, 11},
		{`{"a":"\u0041\u0000"}`, 17},
		{"{\"a\":\"\xe2\x82\"}", 6},
		{"{\"a\":\"\xed\xa0\x80\"}", 6}, // an encoded surrogate
		{"{\"a\":\"x\"}\x00", 9},
		{`{"a":"\ude00"}`, 11},
		{`{"a":"\ud83dx"}`, 12},
		{`{"a":"\ud83d\n"}`, 13},
		{"{\"a\":\"\xe2\x82", 6},
	} {
		whole := CheckText([]byte(tc.text))
		var s TextScanner
		var piece error
		for i := 0; i < len(tc.text) && piece == nil; i++ {
			_, piece = s.Write([]byte{tc.text[i]})
		}
		if piece == nil {
			piece = s.Close()
		}
		for _, err := range []error{whole, piece} {
			var te *TextError
			switch {
			case tc.offset < 0 && err != nil:
				t.Errorf("%q: %v", tc.text, err)
			case tc.offset >= 0 && (!errors.As(err, &te) || te.Offset != tc.offset):
				t.Errorf("%q: %v, want a problem at byte %d", tc.text, err, tc.offset)
			}
		}
	}
}
