package action

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Guard is the outbound safety check of SPEC §5: it refuses connections to
// loopback, link-local (169.254.169.254 included), private, unique-local,
// shared (CGNAT), unspecified, multicast and broadcast addresses, in IPv4,
// IPv6 and IPv4-mapped IPv6 form, unless an address lies in one of the
// allowed networks. It checks the address actually dialled, after DNS
// resolution, so a name that resolves (or rebinds) to a forbidden address
// is refused too. The zero value allows nothing forbidden.
type Guard struct {
	allow []netip.Prefix
}

// NewGuard returns a Guard that lets the networks in allow through.
func NewGuard(allow []netip.Prefix) *Guard {
	return &Guard{allow: append([]netip.Prefix(nil), allow...)}
}

// RefusedError is the error of a connection the Guard refused.
type RefusedError struct {
	// Address is the address that was about to be dialled ("ip:port").
	Address string
	// Reason names the kind of address, for example "loopback".
	Reason string
}

// Error reads "refused to connect to 127.0.0.1:8080: loopback addresses are
// not allowed (set --allow-targets to allow them)".
func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s: %s addresses are not allowed (set --allow-targets to allow them)", e.Address, e.Reason)
}

// forbidden are the address ranges refused by default, with the name of
// their kind, in the order they are checked.
var forbidden = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("fc00::/7"), "unique-local"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

// embeddedIPv4 are IPv6 ranges whose last 32 bits are an IPv4 address that
// the network may route to (IPv4-compatible addresses and NAT64).
var embeddedIPv4 = []netip.Prefix{
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// Classify returns the kind of a forbidden address ("loopback",
// "private", …), or "" when addr is an ordinary public address. An
// IPv4-mapped, IPv4-compatible or NAT64 IPv6 address is judged by the IPv4
// address it carries.
func Classify(addr netip.Addr) string {
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return Classify(addr.Unmap())
	}
	for _, f := range forbidden {
		if f.prefix.Contains(addr) {
			return f.kind
		}
	}
	if addr.Is6() {
		for _, p := range embeddedIPv4 {
			if p.Contains(addr) {
				b := addr.As16()
				return Classify(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
			}
		}
	}
	return ""
}

// allowed reports whether addr (or the IPv4 address it maps) is in the
// allow list.
func (g *Guard) allowed(addr netip.Addr) bool {
	addr = addr.WithZone("")
	for _, p := range g.allow {
		if p.Contains(addr) || (addr.Is4In6() && p.Contains(addr.Unmap())) {
			return true
		}
	}
	return false
}

// Check returns a *RefusedError when address ("ip:port", as given to a
// dialer's Control function) may not be reached, and nil otherwise. An
// address that is not a literal IP is refused: the dialer always passes
// resolved addresses.
func (g *Guard) Check(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		host, _, splitErr := net.SplitHostPort(address)
		if splitErr != nil {
			host = address
		}
		addr, perr := netip.ParseAddr(host)
		if perr != nil {
			return &RefusedError{Address: address, Reason: "unresolved"}
		}
		ap = netip.AddrPortFrom(addr, 0)
	}
	kind := Classify(ap.Addr())
	if kind == "" || g.allowed(ap.Addr()) {
		return nil
	}
	return &RefusedError{Address: address, Reason: kind}
}

// Control is a net.Dialer Control function that applies Check to the
// address being dialled.
func (g *Guard) Control(_, address string, _ syscall.RawConn) error {
	return g.Check(address)
}

// Dialer returns the dialer every executor uses: Control is the Guard,
// connections time out after 30 s and are kept alive.
func (g *Guard) Dialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: g.Control}
}

// asRefused returns the *RefusedError in err's chain, or nil.
func asRefused(err error) *RefusedError {
	var r *RefusedError
	if errors.As(err, &r) {
		return r
	}
	return nil
}
