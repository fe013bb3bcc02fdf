package action

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sked/models"
)

// masked replaces a secret value in a stored request or response (the
// execution detail page).
const masked = "[masked]"

// secretHeaderWords are parts of header names whose values are secrets:
// Authorization and Proxy-Authorization, cookies, API keys, tokens,
// signatures (the Standard Webhooks ones included), passwords.
var secretHeaderWords = []string{"auth", "cookie", "token", "secret", "key", "password", "passwd", "signature",
	"credential", "session", "sas"}

// publicHeaders are the headers whose names contain such a word but whose
// values are no secret: the ones Sked adds to every request.
var publicHeaders = []string{HeaderIdempotencyKey, HeaderJobID, HeaderExpectedTime, HeaderExecutionTag, "webhook-id",
	"webhook-timestamp"}

// secretQueryWords are parts of query parameter names whose values are
// secrets: a SAS token's signature (sig), API keys, tokens, codes.
var secretQueryWords = []string{"sig", "signature", "token", "key", "secret", "password", "pwd", "code", "auth",
	"credential", "sas"}

// secretHeader reports whether the value of header name is a secret.
func secretHeader(name string) bool {
	if slices.ContainsFunc(publicHeaders, func(p string) bool { return strings.EqualFold(p, name) }) {
		return false
	}
	return containsWord(name, secretHeaderWords)
}

// containsWord reports whether name, in lower case, contains one of words.
func containsWord(name string, words []string) bool {
	n := strings.ToLower(name)
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(n, w) })
}

// maskHeaderValue masks the value v of a secret header, keeping the
// authentication scheme of an Authorization header ("Basic [masked]").
func maskHeaderValue(name, v string) string {
	if strings.Contains(strings.ToLower(name), "authorization") {
		if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok && scheme != "" && len(scheme) <= 32 {
			return scheme + " " + masked
		}
	}
	return masked
}

// captureHeaders returns h sorted by name, secret values masked and the
// others with red's secrets removed, within MaxDetailHeaders bytes; it
// reports whether the cap cut some. Each name is put in lower case once,
// for the sort and the secret test.
func captureHeaders(h http.Header, red *redactor) ([]models.HeaderField, bool) {
	type header struct{ name, lower string }
	names := make([]header, 0, len(h))
	for k := range h {
		names = append(names, header{k, strings.ToLower(k)})
	}
	slices.SortFunc(names, func(a, b header) int { return strings.Compare(a.lower, b.lower) })
	var out []models.HeaderField
	size := 0
	for _, k := range names {
		secret := secretHeader(k.lower)
		for _, v := range h[k.name] {
			if secret {
				v = maskHeaderValue(k.name, v)
			} else {
				v = red.apply(v)
			}
			size += len(k.name) + len(v)
			if size > models.MaxDetailHeaders {
				return out, true
			}
			out = append(out, models.HeaderField{Name: k.name, Value: v})
		}
	}
	return out, false
}

// maskURL returns u as text with its secrets masked: the password of its
// user info, the values of query parameters whose names look secret, and
// anything red knows; cut to MaxDetailURL bytes.
func maskURL(u *url.URL, red *redactor) string {
	c := *u
	if c.User != nil {
		if _, has := c.User.Password(); has {
			c.User = url.UserPassword(c.User.Username(), "masked")
		}
	}
	if c.RawQuery != "" {
		parts := strings.Split(c.RawQuery, "&")
		for i, p := range parts {
			name, _, hasValue := strings.Cut(p, "=")
			if dec, err := url.QueryUnescape(name); err == nil {
				name = dec
			}
			if hasValue && containsWord(name, secretQueryWords) {
				k, _, _ := strings.Cut(p, "=")
				parts[i] = k + "=" + url.QueryEscape(masked)
			}
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	s, _ := cutText(red.apply(c.String()), models.MaxDetailURL)
	return s
}

// captureRequest records req as sent, before it is sent: method, masked
// URL, headers and body (with red's secrets removed, cut to
// MaxDetailRequestBody bytes).
func captureRequest(req *http.Request, red *redactor) *models.Exchange {
	x := &models.Exchange{SentAt: time.Now(), IdempotencyKey: req.Header.Get(HeaderIdempotencyKey)}
	r := &x.Request
	r.Method, r.URL = req.Method, maskURL(req.URL, red)
	h := req.Header.Clone()
	if req.Host != "" && req.Host != req.URL.Host {
		h.Set("Host", req.Host)
	}
	r.Headers, r.HeadersTruncated = captureHeaders(h, red)
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			buf, _ := io.ReadAll(io.LimitReader(body, int64(models.MaxDetailRequestBody+red.maxLen()+1)))
			_ = body.Close()
			r.Body = red.applyPrefix(string(buf), models.MaxDetailRequestBody)
			r.Body, r.BodyTruncated = cutText(r.Body, models.MaxDetailRequestBody)
			r.BodyTruncated = r.BodyTruncated || len(buf) > models.MaxDetailRequestBody
		}
	}
	return x
}

// captureResponse records resp, whose body starts with body (already
// read, with red's secrets removed and cut to MaxBodyKept bytes); more
// says the body went on beyond what was read.
func captureResponse(resp *http.Response, body string, more bool, red *redactor) *models.ExchangeResponse {
	out := &models.ExchangeResponse{Status: resp.StatusCode, StatusText: red.apply(resp.Status), Body: body, BodyTruncated: more}
	out.Headers, out.HeadersTruncated = captureHeaders(resp.Header, red)
	return out
}

// cutText returns s cut to at most n bytes on a UTF-8 boundary, and
// whether it cut.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// MaskHeader returns the value v of header name as Sked records it: masked
// when the header's value is a secret (Authorization, cookies, API keys,
// tokens, signatures, passwords: see secretHeaderWords), as it is
// otherwise.
func MaskHeader(name, v string) string {
	if secretHeader(name) {
		return maskHeaderValue(name, v)
	}
	return v
}
