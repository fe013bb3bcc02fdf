package action

import (
	"net/netip"
	"strings"
	"testing"
)

func TestCheckLiteralTarget(t *testing.T) {
	allowAll := []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	for _, c := range []struct {
		uri, want string
	}{
		{"http://127.0.0.1:8080/x", "127.0.0.1 is a loopback address"},
		{"http://[::1]/", "::1 is a loopback address"},
		{"https://10.0.0.1/", "10.0.0.1 is a private address"},
		{"http://192.168.1.1/", "192.168.1.1 is a private address"},
		{"http://169.254.169.254/metadata", "169.254.169.254 is a link-local address"},
		{"http://0.0.0.0:80/", "0.0.0.0 is an unspecified address"},
		{"http://[fd00::1]/", "fd00::1 is a unique-local address"},
		{"http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is a loopback address"},
		{"http://localhost:8080/", "localhost is a loopback address"},
		{"http://LOCALHOST./", "LOCALHOST. is a loopback address"},
		{"http://api.localhost/", "api.localhost is a loopback address"},
		{"https://example.com/", ""},
		{"https://8.8.8.8/", ""},
		{"http://10.example.com/", ""},
		{"not a url", ""},
	} {
		got := CheckLiteralTarget(c.uri, nil)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("CheckLiteralTarget(%q) = %q, want %q…", c.uri, got, c.want)
		}
		if c.want != "" && !strings.Contains(got, "--allow-targets") {
			t.Errorf("%q: the warning does not say how to allow it: %q", c.uri, got)
		}
		if got := CheckLiteralTarget(c.uri, allowAll); got != "" {
			t.Errorf("CheckLiteralTarget(%q, everything allowed) = %q", c.uri, got)
		}
	}
	if got := CheckLiteralTarget("http://localhost/", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}); got == "" {
		t.Error("localhost with only 127.0.0.0/8 allowed: no warning, but it may resolve to ::1")
	}
}
