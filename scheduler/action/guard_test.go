package action

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
)

func TestClassify(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "127.1.2.3": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.0.0.1": "private", "172.16.0.1": "private", "172.31.255.255": "private", "192.168.1.1": "private",
		"::ffff:10.0.0.1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local", "fe80::1%eth0": "link-local",
		"0.0.0.0": "unspecified", "0.1.2.3": "unspecified", "::": "unspecified", "fd00::1": "unique-local",
		"fd00:ec2::254": "unique-local", "fc00::1": "unique-local", "fec0::1": "site-local",
		"100.64.0.1": "shared (carrier-grade NAT)", "224.0.0.1": "multicast", "ff02::1": "multicast",
		"255.255.255.255": "broadcast", "240.0.0.1": "reserved", "64:ff9b::a9fe:a9fe": "link-local",
		"::7f00:1": "loopback",
		"8.8.8.8":  "", "172.32.0.1": "", "100.128.0.1": "", "2001:4860:4860::8888": "", "64:ff9b::808:808": "",
	} {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Classify(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestSSRFGuard runs the table of the outbound guard (SPEC §5): each target is refused without an
// allow list, with a history message naming the address and why, and
// allowed with one. Targets a test can listen on (127.0.0.1, ::1,
// localhost, and 0.0.0.0, which Linux connects to the local host) are
// reached for real; for the others the Guard's check on the dialled
// address is asserted to let them through.
func TestSSRFGuard(t *testing.T) {
	listen := func(network, addr string) *httptest.Server {
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
		srv.Listener.Close()
		srv.Listener = l
		srv.Start()
		t.Cleanup(srv.Close)
		return srv
	}
	v4 := listen("tcp4", "127.0.0.1:0")
	v6 := listen("tcp6", "[::1]:0")
	port4 := v4.Listener.Addr().(*net.TCPAddr).Port
	port6 := v6.Listener.Addr().(*net.TCPAddr).Port
	// localhost may resolve to ::1 first: listen on the same port there.
	local := listen("tcp4", "127.0.0.1:0")
	portL := local.Listener.Addr().(*net.TCPAddr).Port
	if l6, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", portL)); err == nil {
		srv6 := httptest.NewUnstartedServer(local.Config.Handler)
		srv6.Listener.Close()
		srv6.Listener = l6
		srv6.Start()
		t.Cleanup(srv6.Close)
	}

	for _, c := range []struct {
		name, url, refusedAt, kind string
		allow                      string
		reachable                  bool
	}{
		{"127.0.0.1", fmt.Sprintf("http://127.0.0.1:%d/", port4), fmt.Sprintf("127.0.0.1:%d", port4), "loopback", "127.0.0.0/8", true},
		{"::1", fmt.Sprintf("http://[::1]:%d/", port6), fmt.Sprintf("[::1]:%d", port6), "loopback", "::1/128", true},
		{"localhost", fmt.Sprintf("http://localhost:%d/", portL), fmt.Sprintf(":%d", portL), "loopback", "127.0.0.0/8,::1/128", true},
		{"0.0.0.0", fmt.Sprintf("http://0.0.0.0:%d/", port4), fmt.Sprintf("0.0.0.0:%d", port4), "unspecified", "0.0.0.0/32,127.0.0.0/8", true},
		{"10.0.0.1", "http://10.0.0.1/", "10.0.0.1:80", "private", "10.0.0.0/8", false},
		{"192.168.1.1", "http://192.168.1.1:8080/", "192.168.1.1:8080", "private", "192.168.0.0/16", false},
		{"169.254.169.254", "http://169.254.169.254/metadata/instance", "169.254.169.254:80", "link-local", "169.254.169.254/32", false},
		{"fd00::1", "https://[fd00::1]/", "[fd00::1]:443", "unique-local", "fd00::/8", false},
		{"::ffff:192.168.1.1", "http://[::ffff:192.168.1.1]/", "192.168.1.1:80", "private", "192.168.1.1/32", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Refused without an allow list: the attempt fails before any
			// connection is made.
			d := newTestDispatcher(t, Config{AllowTargets: []netip.Prefix{}})
			res := d.Execute(context.Background(), attempt(httpAction(c.url, "GET", "", nil), 5*time.Second))
			if res.Succeeded || res.StatusCode != 0 || !strings.HasPrefix(res.Message, "refused to connect to ") ||
				!strings.Contains(res.Message, c.refusedAt+": "+c.kind+" addresses are not allowed (set --allow-targets to allow them)") {
				t.Errorf("without allow list: %+v", res)
			}
			var allow []netip.Prefix
			for _, p := range strings.Split(c.allow, ",") {
				allow = append(allow, netip.MustParsePrefix(p))
			}
			if c.reachable {
				d := newTestDispatcher(t, Config{AllowTargets: allow})
				res := d.Execute(context.Background(), attempt(httpAction(c.url, "GET", "", nil), 5*time.Second))
				if !res.Succeeded || res.Message != "HTTP 200 OK\nreached" {
					t.Errorf("with allow list %s: %+v", c.allow, res)
				}
				return
			}
			addr := c.refusedAt
			if err := NewGuard(allow).Check(addr); err != nil {
				t.Errorf("with allow list %s: %v", c.allow, err)
			}
			if err := NewGuard(nil).Check(addr); err == nil {
				t.Errorf("without allow list, %s passes the guard", addr)
			}
		})
	}
}

// TestSSRFGuardCoversEveryConnection checks that the storage queue and
// Service Bus executors and the OAuth authority dial through the Guard.
func TestSSRFGuardCoversEveryConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	defer srv.Close()
	d := newTestDispatcher(t, Config{AllowTargets: []netip.Prefix{}, OAuthAuthority: srv.URL,
		StorageEndpoint: srv.URL + "/{account}", ServiceBusEndpoint: srv.URL + "/{namespace}"})
	host := strings.TrimPrefix(srv.URL, "http://")
	want := "refused to connect to " + host + ": loopback addresses are not allowed (set --allow-targets to allow them)"
	for name, a := range map[string]*Attempt{
		"storage queue": attempt(storageAction("acct", "jobs", "sv=1&sig=abc", "m"), time.Second),
		"service bus":   attempt(serviceBusAction(false, "namespace1", "orders", "m", "key", "s3cr3t-key", nil, nil), time.Second),
		"oauth authority": attempt(httpAction("https://example.invalid/", "GET", "", &jobdef.Authentication{Kind: jobdef.AuthActiveDirectory,
			Tenant: "t", Audience: "https://api", ClientID: "c", Secret: "s3cr3t"}), time.Second),
	} {
		res := d.Execute(context.Background(), a)
		if res.Succeeded || !strings.Contains(res.Message, want) {
			t.Errorf("%s: %+v, want %q", name, res, want)
		}
	}
}
