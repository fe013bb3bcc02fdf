package action

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// CheckLiteralTarget returns a warning when the host of uri is a literal
// address the Guard refuses (such as 127.0.0.1, [::1] or 169.254.169.254)
// or the name localhost (or a name under .localhost), and allow does not
// let it through; "" otherwise, also for URLs it cannot read. It looks at
// the text only and resolves nothing: the engine's check on the address
// actually dialled is the one that counts. For previews when a job is
// saved.
func CheckLiteralTarget(uri string, allow []netip.Prefix) string {
	u, err := url.Parse(strings.TrimSpace(uri))
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	g := NewGuard(allow)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		for _, a := range []string{"127.0.0.1", "::1"} {
			if !g.allowed(netip.MustParseAddr(a)) {
				return fmt.Sprintf("%s is a loopback address: the engine will refuse to connect to it unless --allow-targets allows it", u.Hostname())
			}
		}
		return ""
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return ""
	}
	kind := Classify(addr)
	if kind == "" || g.allowed(addr) {
		return ""
	}
	return fmt.Sprintf("%s is %s %s address: the engine will refuse to connect to it unless --allow-targets allows it", addr.WithZone(""), article(kind), kind)
}

// article returns "a" or "an" for one of the address kinds ("an
// unspecified", "a unique-local").
func article(word string) string {
	if word != "" && (strings.ContainsRune("aeio", rune(word[0])) || (strings.HasPrefix(word, "un") && !strings.HasPrefix(word, "uni"))) {
		return "an"
	}
	return "a"
}
