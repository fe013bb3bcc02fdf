package action

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"sked/models/jobdef"
	"sked/scheduler/action/actiontest"
	"sked/scheduler/clocktest"
)

func TestBasicAuthentication(t *testing.T) {
	const user, password = "alice", "correct horse battery staple"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != user || p != password {
			w.WriteHeader(http.StatusUnauthorized)
		}
		// A careless target echoes the credentials.
		fmt.Fprintf(w, "you sent %s (%s:%s)", r.Header.Get("Authorization"), u, p)
	}))
	defer srv.Close()
	d := newTestDispatcher(t, Config{})
	auth := &jobdef.Authentication{Kind: jobdef.AuthBasic, Username: user, Password: password}
	// The action's own Authorization header is replaced.
	res := d.Execute(context.Background(), attempt(httpAction(srv.URL, "GET", "", auth, jobdef.Header{Name: "Authorization", Value: "Bearer other"}), 5*time.Second))
	if !res.Succeeded || !strings.HasPrefix(res.Message, "HTTP 200 OK\nyou sent Basic [redacted] (alice:[redacted])") {
		t.Errorf("basic: %+v", res)
	}
	assertNoSecrets(t, res.Message, password, base64.StdEncoding.EncodeToString([]byte(user+":"+password)))
	wrong := &jobdef.Authentication{Kind: jobdef.AuthBasic, Username: user, Password: "Tr0ub4dor&3"}
	res = d.Execute(context.Background(), attempt(httpAction(srv.URL, "GET", "", wrong), 5*time.Second))
	if res.Succeeded || res.StatusCode != 401 {
		t.Errorf("wrong password: %+v", res)
	}
	assertNoSecrets(t, res.Message, "Tr0ub4dor&3")
}

// newPfx returns a base64 PKCS#12 archive holding a new self-signed client
// certificate for cn, locked with password, and the certificate.
func newPfx(t *testing.T, cn, password string) (string, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pfx, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pfx), cert
}

func thumbprint(c *x509.Certificate) string {
	sum := sha1.Sum(c.Raw)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// TestClientCertificateAuthentication calls a TLS server that requires a
// client certificate from its list, with two certificates in turn: each
// request presents its own (no connection made with one certificate is
// reused for the other).
func TestClientCertificateAuthentication(t *testing.T) {
	pfxA, certA := newPfx(t, "job-a", "pw-a-123")
	pfxB, certB := newPfx(t, "job-b", "")
	clients := x509.NewCertPool()
	clients.AddCert(certA)
	clients.AddCert(certB)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, thumbprint(r.TLS.PeerCertificates[0]))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake without a certificate
	srv.StartTLS()
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	d := newTestDispatcher(t, Config{RootCAs: roots})

	for _, c := range []struct {
		pfx, password string
		cert          *x509.Certificate
	}{{pfxA, "pw-a-123", certA}, {pfxB, "", certB}, {pfxA, "pw-a-123", certA}} {
		auth := &jobdef.Authentication{Kind: jobdef.AuthClientCertificate, Pfx: c.pfx, Password: c.password}
		res := d.Execute(context.Background(), attempt(httpAction(srv.URL+"/", "GET", "", auth), 5*time.Second))
		if !res.Succeeded || res.Message != "HTTP 200 OK\n"+thumbprint(c.cert) {
			t.Errorf("certificate %s: %+v", c.cert.Subject.CommonName, res)
		}
	}
	if n := len(d.HTTP.certs.clients); n != 2 {
		t.Errorf("%d certificate clients cached, want 2", n)
	}

	// No certificate: the server ends the handshake.
	res := d.Execute(context.Background(), attempt(httpAction(srv.URL+"/", "GET", "", nil), 5*time.Second))
	if res.Succeeded || res.StatusCode != 0 || !strings.HasPrefix(res.Message, "request failed: ") {
		t.Errorf("without certificate: %+v", res)
	}
	// A wrong password (possible when the stored secret cannot be opened
	// any more): a failed attempt naming the problem, without the secrets.
	bad := &jobdef.Authentication{Kind: jobdef.AuthClientCertificate, Pfx: pfxA, Password: "not-it"}
	res = d.Execute(context.Background(), attempt(httpAction(srv.URL+"/", "GET", "", bad), 5*time.Second))
	if res.Succeeded || res.Message != "clientCertificate: the pfx cannot be opened with the given password" {
		t.Errorf("wrong password: %+v", res)
	}
	assertNoSecrets(t, res.Message, pfxA, "not-it")
}

// TestActiveDirectoryOAuth gets tokens from a client-credentials authority,
// reuses a token until 5 minutes before it expires, and turns the
// authority's refusal into a failed attempt with its message.
func TestActiveDirectoryOAuth(t *testing.T) {
	const tenant, clientID, secret, audience = "contoso.onmicrosoft.com", "11111111-2222-3333-4444-555555555555", "s3cr3t~Value.With+Signs", "https://api.contoso.example"
	authority := actiontest.StartTokenAuthority(t, tenant, clientID, secret)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authority.Valid(r.Header.Get("Authorization"), audience) {
			w.WriteHeader(http.StatusUnauthorized)
		}
		fmt.Fprint(w, r.Header.Get("Authorization"))
	}))
	defer target.Close()
	d := newTestDispatcher(t, Config{OAuthAuthority: authority.URL})
	clock := clocktest.New(time.Now())
	d.HTTP.tokens.now = clock.Now
	auth := &jobdef.Authentication{Kind: jobdef.AuthActiveDirectory, Tenant: tenant, Audience: audience, ClientID: clientID, Secret: secret}
	run := func(a *jobdef.Authentication) Result {
		return d.Execute(context.Background(), attempt(httpAction(target.URL, "POST", "x", a), 5*time.Second))
	}

	first := run(auth)
	if !first.Succeeded || !strings.HasPrefix(first.Message, "HTTP 200 OK\nBearer [redacted]") {
		t.Fatalf("first: %+v", first)
	}
	clock.Add(54 * time.Minute) // the token (1 h) is still good for 6 minutes
	if res := run(auth); !res.Succeeded || authority.Requests() != 1 {
		t.Errorf("within the hour: %+v after %d token requests, want the cached token", res, authority.Requests())
	}
	clock.Add(2 * time.Minute) // 4 minutes left: replaced
	if res := run(auth); !res.Succeeded || authority.Requests() != 2 {
		t.Errorf("5 minutes before expiry: %+v after %d token requests, want a new token", res, authority.Requests())
	}
	// Another audience is another token.
	other := *auth
	other.Audience = "https://other.example"
	if res := run(&other); res.StatusCode != 401 || authority.Requests() != 3 {
		t.Errorf("other audience: %+v after %d token requests", res, authority.Requests())
	}

	// A wrong (or expired) secret: the authority's status and description.
	wrong := *auth
	wrong.Secret = "expired-s3cr3t-value"
	res := run(&wrong)
	if res.Succeeded || res.StatusCode != 0 ||
		!strings.HasPrefix(res.Message, "activeDirectoryOAuth: the token authority answered HTTP 401 Unauthorized: invalid_client: AADSTS7000215: Invalid client secret provided.") {
		t.Errorf("wrong secret: %+v", res)
	}
	assertNoSecrets(t, res.Message, "expired-s3cr3t-value", secret)
	// An unknown tenant.
	lost := *auth
	lost.Tenant = "nowhere.example"
	if res := run(&lost); res.Succeeded || !strings.Contains(res.Message, "HTTP 400 Bad Request: invalid_request: AADSTS90002: Tenant 'nowhere.example' not found.") {
		t.Errorf("unknown tenant: %+v", res)
	}
	// A short-lived token is used once and not cached.
	authority.SetLifetime(4 * time.Minute)
	short := *auth
	short.Audience = "https://short.example"
	before := authority.Requests()
	run(&short)
	run(&short)
	if got := authority.Requests() - before; got != 2 {
		t.Errorf("short-lived token fetched %d times for 2 attempts, want 2", got)
	}
}

func TestJSONSeconds(t *testing.T) {
	for raw, want := range map[string]int64{`"3599"`: 3599, `3599`: 3599, `"1700000000"`: 1700000000, `3599.0`: 3599, `""`: 0, `null`: 0, `"x"`: 0, `-5`: 0} {
		got, ok := jsonSeconds([]byte(raw))
		if got != want || ok != (want > 0) {
			t.Errorf("jsonSeconds(%s) = %d, %v; want %d", raw, got, ok, want)
		}
	}
}
