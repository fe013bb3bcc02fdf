package handlers

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientIPExtractor(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::1/128")}
	for _, tc := range []struct {
		name     string
		trusted  []netip.Prefix
		peer     string
		xff      []string
		realIP   string
		wantAddr string
	}{
		{"no proxies: the peer", nil, "203.0.113.5:4000", []string{"198.51.100.1"}, "198.51.100.2", "203.0.113.5"},
		{"no proxies: loopback peer is not trusted", nil, "127.0.0.1:4000", []string{"198.51.100.1"}, "", "127.0.0.1"},
		{"untrusted peer: XFF ignored", proxies, "203.0.113.5:4000", []string{"198.51.100.1"}, "", "203.0.113.5"},
		{"private peer not listed: XFF ignored", proxies, "192.168.1.1:4000", []string{"198.51.100.1"}, "", "192.168.1.1"},
		{"loopback peer not listed: X-Real-IP ignored", proxies, "127.0.0.1:4000", nil, "198.51.100.2", "127.0.0.1"},
		{"trusted peer: the forwarded client", proxies, "10.1.2.3:4000", []string{"198.51.100.1"}, "", "198.51.100.1"},
		{"trusted chain: the nearest untrusted hop", proxies, "10.1.2.3:4000", []string{"192.0.2.66, 198.51.100.1, 10.9.9.9"}, "", "198.51.100.1"},
		{"trusted peer, spoofed first hop: not believed", proxies, "10.1.2.3:4000", []string{"1.2.3.4", "198.51.100.1"}, "", "198.51.100.1"},
		{"trusted peer, garbage XFF: the peer", proxies, "10.1.2.3:4000", []string{"not-an-address"}, "", "10.1.2.3"},
		{"trusted peer, X-Real-IP only", proxies, "10.1.2.3:4000", nil, "198.51.100.2", "198.51.100.2"},
		{"trusted IPv6 peer", proxies, "[2001:db8::1]:4000", []string{"2001:db8:ffff::7"}, "", "2001:db8:ffff::7"},
		{"trusted peer, no header: the peer", proxies, "10.1.2.3:4000", nil, "", "10.1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if tc.realIP != "" {
				r.Header.Set("X-Real-IP", tc.realIP)
			}
			if got := clientIPExtractor(tc.trusted)(r); got != tc.wantAddr {
				t.Errorf("client %q, want %q", got, tc.wantAddr)
			}
		})
	}
}
