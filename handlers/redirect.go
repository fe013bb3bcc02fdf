package handlers

import (
	"net/url"
	"strings"
)

// maxRedirectLength bounds a redirect target taken from input.
const maxRedirectLength = 2048

// slashLookAlikes are characters that some software turns into '/' or '\'.
const slashLookAlikes = "\u2044\u2215\u29f8\u29f9\uff0f\uff3c\u2216\ufe68\u3033"

// localRedirectTarget returns raw when it is a path on this site, and "/"
// otherwise. It is the one check of every redirect target built from input
// (the sign-in page's next, HX-Redirect, Location), so that a crafted link
// cannot send a user to another site (SPEC §13.8).
//
// A local path starts with a single '/', holds only printable ASCII (other
// characters must be percent-encoded), no backslash, no scheme, host or
// user, and no dot segments; decoded (up to three times, for
// double-encoding), it still starts with a single '/', holds no control
// character, backslash, "//" or look-alike of a slash.
func localRedirectTarget(raw string) string {
	if raw == "" || len(raw) > maxRedirectLength || raw[0] != '/' {
		return "/"
	}
	for i := 0; i < len(raw); i++ {
		if b := raw[i]; b <= 0x20 || b >= 0x7f || b == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	p := u.EscapedPath()
	for range 3 {
		dec, err := url.PathUnescape(p)
		if err != nil || !safeLocalPath(dec) {
			return "/"
		}
		if dec == p {
			break
		}
		p = dec
	}
	return raw
}

// safeLocalPath reports whether a decoded path is one local path: a single
// leading '/', no empty or dot segments, no control characters, backslashes
// or slash look-alikes.
func safeLocalPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") || strings.ContainsAny(p, "\\"+slashLookAlikes) {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
