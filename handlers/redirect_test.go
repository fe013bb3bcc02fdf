package handlers

import "testing"

// TestLocalRedirectTarget checks that hostile redirect targets all end on
// "/" and that local paths are kept as they are.
func TestLocalRedirectTarget(t *testing.T) {
	hostile := []string{
		"", "evil.example", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example",
		"/\t/evil.example/", "/%09/evil", "\t//evil.example", "/\r\n/evil.example", "/%0d%0a/evil", "/x\r\nLocation: https://evil.example/",
		"https://evil.example/", "HTTPS://evil.example", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "/javascript:alert(1)//%0a",
		"data:text/html,<script>alert(1)</script>", "mailto:a@evil.example",
		"/%2F/evil.example", "/%2f%2fevil.example", "%2F%2Fevil.example", "/%252F%252Fevil.example", "/%5Cevil.example", "/%5C%5Cevil.example",
		"／／evil.example", "/／evil.example", "/\u2215evil.example", "/%E2%88%95evil.example", "/\uff3cevil.example",
		"/.//evil.example", "/./evil", "/../evil", "/a/../../evil", "/%2e%2e/evil", "/%2e/%2fevil",
		"/\x00", "/%00", "/\xff", " /x", "/ /x", "/x\x7f", "/" + string(make([]byte, 3000)),
		"//", "/\\", "\\/", "/?next=x\\",
	}
	if len(hostile) < 20 {
		t.Fatalf("only %d hostile values", len(hostile))
	}
	for _, v := range hostile {
		if got := localRedirectTarget(v); got != "/" {
			t.Errorf("%q → %q, want /", v, got)
		}
	}
	for _, v := range []string{"/", "/tokens", "/c/default/rg/jc", "/c/default/rg/jc/jobs/a-b_c?range=7d", "/c/default/rg/jc/jobs/x/history?range=24h&status=Failed#t",
		"/c/default/r%C3%A9/jc", "/import?x=//y", "/user@evil.example"} {
		if got := localRedirectTarget(v); got != v {
			t.Errorf("%q → %q, want it kept", v, got)
		}
	}
}
