package action

import (
	"net/url"
	"strings"
)

// redacted replaces a secret in a history message.
const redacted = "[redacted]"

// redactor removes secrets from history messages: a target, an authority
// or an emulator may echo a password, a token or a signature, and an error
// may quote a URL with a SAS token in it. The zero value removes nothing.
type redactor struct {
	secrets []string
}

// add registers secrets (empty ones are ignored).
func (r *redactor) add(secrets ...string) {
	for _, s := range secrets {
		if s != "" {
			r.secrets = append(r.secrets, s)
		}
	}
}

// addEncoded registers s and its URL-encoded forms (query and path
// escaping), for secrets that travel in URLs.
func (r *redactor) addEncoded(s string) {
	r.add(s, url.QueryEscape(s), url.PathEscape(s))
}

// addSASToken registers a SAS token (with or without its leading '?'),
// and its signature both as given and decoded.
func (r *redactor) addSASToken(token string) {
	token = strings.TrimPrefix(strings.TrimSpace(token), "?")
	r.addEncoded(token)
	q, err := url.ParseQuery(token)
	if err != nil {
		return
	}
	for _, sig := range q["sig"] {
		r.addEncoded(sig)
	}
}

// apply returns msg with every registered secret replaced by "[redacted]".
func (r *redactor) apply(msg string) string { return r.applyPrefix(msg, len(msg)) }

// maxLen returns the length of the longest registered secret.
func (r *redactor) maxLen() int {
	n := 0
	for _, s := range r.secrets {
		n = max(n, len(s))
	}
	return n
}

// applyPrefix returns the first keep bytes of text with every registered
// secret found anywhere in text replaced by "[redacted]". A secret that
// straddles the cut is replaced too, so that no part of it is kept: text
// should extend maxLen() bytes beyond keep when there is more.
func (r *redactor) applyPrefix(text string, keep int) string {
	keep = min(keep, len(text))
	if len(r.secrets) == 0 {
		return text[:keep]
	}
	// covered[i] is the end of the secret occurrence covering byte i, or 0.
	covered := make([]int, keep)
	for _, secret := range r.secrets {
		for from := 0; from < keep; {
			i := strings.Index(text[from:], secret)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(secret)
			if start >= keep {
				break
			}
			for j := start; j < min(end, keep); j++ {
				covered[j] = max(covered[j], end)
			}
			from = start + 1
		}
	}
	var b strings.Builder
	for i := 0; i < keep; {
		if covered[i] == 0 {
			b.WriteByte(text[i])
			i++
			continue
		}
		b.WriteString(redacted)
		end := covered[i]
		for i < keep && covered[i] != 0 && i < end {
			end = max(end, covered[i])
			i++
		}
	}
	return b.String()
}
