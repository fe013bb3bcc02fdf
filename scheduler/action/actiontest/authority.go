package actiontest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TokenAuthority is an HTTP server speaking the OAuth 2.0 client-credentials
// grant of the Microsoft identity platform's v1 endpoint (POST
// /{tenant}/oauth2/token, form grant_type, client_id, client_secret,
// resource), for one tenant and one application. It answers errors as that
// endpoint does (AADSTS codes in error_description) and issues random
// opaque tokens (see SetLifetime).
type TokenAuthority struct {
	*httptest.Server
	Tenant, ClientID, Secret string

	mu       sync.Mutex
	lifetime time.Duration
	issued   map[string]string // token → resource
	requests int
}

// StartTokenAuthority starts an authority for tenant that knows the
// application clientID with secret, and closes it when the test ends.
func StartTokenAuthority(t testing.TB, tenant, clientID, secret string) *TokenAuthority {
	a := &TokenAuthority{Tenant: tenant, ClientID: clientID, Secret: secret, lifetime: time.Hour, issued: map[string]string{}}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

// SetLifetime sets how long the tokens issued from now on are valid
// (default one hour).
func (a *TokenAuthority) SetLifetime(d time.Duration) {
	a.mu.Lock()
	a.lifetime = d
	a.mu.Unlock()
}

// Requests returns how many token requests the authority answered.
func (a *TokenAuthority) Requests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests
}

// Valid reports whether header is "Bearer <token>" with a token this
// authority issued for resource.
func (a *TokenAuthority) Valid(header, resource string) bool {
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.issued[token]
	return ok && r == resource
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": code, "error_description": description + "\r\nTrace ID: 0\r\nCorrelation ID: 0\r\nTimestamp: " + time.Now().UTC().Format("2006-01-02 15:04:05Z"),
		"error_codes": []int{}, "timestamp": time.Now().UTC().Format("2006-01-02 15:04:05Z"),
	})
}

func (a *TokenAuthority) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.requests++
	a.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/"+a.Tenant+"/oauth2/token" {
		oauthError(w, http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("AADSTS90002: Tenant '%s' not found.", strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0]))
		return
	}
	if err := r.ParseForm(); err != nil || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "AADSTS900144: The request body must contain the following parameter: 'grant_type'.")
		return
	}
	switch {
	case r.PostForm.Get("grant_type") != "client_credentials":
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
		return
	case r.PostForm.Get("client_id") != a.ClientID:
		oauthError(w, http.StatusBadRequest, "unauthorized_client",
			fmt.Sprintf("AADSTS700016: Application with identifier '%s' was not found in the directory.", r.PostForm.Get("client_id")))
		return
	case r.PostForm.Get("client_secret") != a.Secret:
		oauthError(w, http.StatusUnauthorized, "invalid_client", "AADSTS7000215: Invalid client secret provided.")
		return
	case r.PostForm.Get("resource") == "":
		oauthError(w, http.StatusBadRequest, "invalid_resource", "AADSTS500011: The resource principal was not found.")
		return
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := "tok-" + hex.EncodeToString(b)
	a.mu.Lock()
	a.issued[token] = r.PostForm.Get("resource")
	lifetime := a.lifetime
	a.mu.Unlock()
	now := time.Now()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	secs := int64(lifetime / time.Second)
	_ = json.NewEncoder(w).Encode(map[string]string{
		"token_type": "Bearer", "expires_in": fmt.Sprint(secs), "ext_expires_in": fmt.Sprint(secs),
		"expires_on": fmt.Sprint(now.Unix() + secs), "not_before": fmt.Sprint(now.Unix()),
		"resource": r.PostForm.Get("resource"), "access_token": token,
	})
}
