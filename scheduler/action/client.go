package action

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"time"
)

// newTransport returns a transport whose every connection goes through
// g's dialer: connections are reused (up to 256 idle per host), no proxy is
// used (a proxy would hide the address actually dialled from the Guard),
// and clientCert, when not nil, is offered to servers that ask for one.
// roots, when not nil, replaces the system's certificate authorities.
func newTransport(g *Guard, roots *x509.CertPool, clientCert *tls.Certificate) *http.Transport {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.Dialer().DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if roots != nil || clientCert != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
		if clientCert != nil {
			tr.TLSClientConfig.Certificates = []tls.Certificate{*clientCert}
		}
	}
	return tr
}

// newClient returns a client on tr that does not follow redirects (the
// 3xx is the result, SPEC §5). Timeouts come from each attempt's context.
func newClient(tr http.RoundTripper) *http.Client {
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// NewHTTPClient returns a client like the one the executors share: every
// connection is checked by g, redirects are not followed and no proxy is
// used.
func NewHTTPClient(g *Guard) *http.Client {
	return newClient(newTransport(g, nil, nil))
}
