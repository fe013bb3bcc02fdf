package action

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"sked/models/jobdef"
)

// tokenRefreshMargin is how long before its expiry a cached token is
// replaced.
const tokenRefreshMargin = 5 * time.Minute

// maxTokens bounds the cached tokens; when full, the cache is emptied.
const maxTokens = 4096

// tokenKey identifies a cached token. The client secret is kept only as a
// hash, so a changed secret gets a new token.
type tokenKey struct {
	authority, tenant, clientID, audience string
	secret                                [32]byte
}

type cachedToken struct {
	value     string
	refreshAt time.Time
}

// tokenSource gets activeDirectoryOAuth access tokens with the OAuth 2.0
// client-credentials grant from the v1 token endpoint of the authority
// (POST {authority}/{tenant}/oauth2/token with grant_type, client_id,
// client_secret and resource), as the original service did, and caches
// each until tokenRefreshMargin before it expires. Safe for concurrent use.
type tokenSource struct {
	authority string
	client    *http.Client
	now       func() time.Time

	mu    sync.Mutex
	cache map[tokenKey]cachedToken
}

func newTokenSource(authority string, client *http.Client, now func() time.Time) *tokenSource {
	return &tokenSource{authority: strings.TrimRight(authority, "/"), client: client, now: now, cache: map[tokenKey]cachedToken{}}
}

// TokenError is a failure to get an access token: the authority's answer
// (Status is its HTTP status, Code and Description its error and
// error_description) or the reason there was none (Status 0).
type TokenError struct {
	Status            string
	Code, Description string
	// Detail is a request error, or the start of an answer that was not
	// the expected JSON.
	Detail string
}

// Error reads, for example, "activeDirectoryOAuth: the token authority
// answered HTTP 401 Unauthorized: invalid_client: AADSTS7000215: Invalid
// client secret provided."
func (e *TokenError) Error() string {
	var b strings.Builder
	b.WriteString("activeDirectoryOAuth: ")
	if e.Status == "" {
		b.WriteString("could not get a token from the token authority")
	} else {
		b.WriteString("the token authority answered HTTP " + e.Status)
	}
	for _, s := range []string{e.Code, e.Description, e.Detail} {
		if s != "" {
			b.WriteString(": " + s)
		}
	}
	return b.String()
}

// tokenResponse is the authority's answer; expires_in and expires_on are
// numbers or strings (the v1 endpoint sends strings).
type tokenResponse struct {
	AccessToken      string          `json:"access_token"`
	ExpiresIn        json.RawMessage `json:"expires_in"`
	ExpiresOn        json.RawMessage `json:"expires_on"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

// token returns an access token for a, from the cache or from the
// authority. timeout is the attempt's, for error messages.
func (s *tokenSource) token(ctx context.Context, a *jobdef.Authentication, timeout time.Duration) (string, error) {
	key := tokenKey{authority: s.authority, tenant: a.Tenant, clientID: a.ClientID, audience: a.Audience,
		secret: sha256.Sum256([]byte(a.Secret))}
	s.mu.Lock()
	c, ok := s.cache[key]
	s.mu.Unlock()
	if ok && s.now().Before(c.refreshAt) {
		return c.value, nil
	}
	value, expires, err := s.fetch(ctx, a, timeout)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !expires.IsZero() && s.now().Before(expires.Add(-tokenRefreshMargin)) {
		if len(s.cache) >= maxTokens {
			clear(s.cache)
		}
		s.cache[key] = cachedToken{value: value, refreshAt: expires.Add(-tokenRefreshMargin)}
	} else {
		delete(s.cache, key)
	}
	return value, nil
}

// fetch asks the authority for a token; it returns the token and when it
// expires (zero when the answer does not say).
func (s *tokenSource) fetch(ctx context.Context, a *jobdef.Authentication, timeout time.Duration) (string, time.Time, error) {
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {a.ClientID},
		"client_secret": {a.Secret},
		"resource":      {a.Audience},
	}
	endpoint := s.authority + "/" + url.PathEscape(a.Tenant) + "/oauth2/token"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", time.Time{}, &TokenError{Detail: "invalid token endpoint: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	start := s.now()
	resp, err := s.client.Do(req)
	if err != nil {
		return "", time.Time{}, &TokenError{Detail: describeError(ctx, err, timeout)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", time.Time{}, &TokenError{Status: resp.Status, Detail: "reading the answer: " + describeError(ctx, err, timeout)}
	}
	var tr tokenResponse
	jsonErr := json.Unmarshal(body, &tr)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || tr.Error != "" {
		e := &TokenError{Status: resp.Status, Code: tr.Error, Description: tr.ErrorDescription}
		if jsonErr != nil || (tr.Error == "" && tr.ErrorDescription == "") {
			e.Detail = firstBytes(body, 512)
		}
		return "", time.Time{}, e
	}
	if jsonErr != nil || tr.AccessToken == "" {
		return "", time.Time{}, &TokenError{Status: resp.Status, Detail: "the answer has no access_token"}
	}
	var expires time.Time
	if sec, ok := jsonSeconds(tr.ExpiresOn); ok {
		expires = time.Unix(sec, 0)
	} else if sec, ok := jsonSeconds(tr.ExpiresIn); ok {
		expires = start.Add(time.Duration(sec) * time.Second)
	}
	return tr.AccessToken, expires, nil
}

// jsonSeconds reads a whole number of seconds given as a JSON number or
// string.
func jsonSeconds(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(raw)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if ferr != nil {
			return 0, false
		}
		n = int64(f)
	}
	if n <= 0 {
		return 0, false
	}
	return n, true
}

// firstBytes returns the first n bytes of b as text.
func firstBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.TrimSpace(string(b))
}
