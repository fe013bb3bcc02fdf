package jobdef

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

// httpMethods are the methods an http action may use.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// parseRequest reads action.request.
func parseRequest(raw json.RawMessage, path string, kind ActionKind, ps *problems) *HTTPRequest {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	r := &HTTPRequest{}
	if u := requiredString(o, "uri", path+".uri", ps); u != "" {
		r.URI = u
		checkURI(u, path+".uri", kind, ps)
	}
	if m := requiredString(o, "method", path+".method", ps); m != "" {
		up := strings.ToUpper(strings.TrimSpace(m))
		known := false
		for _, v := range httpMethods {
			known = known || v == up
		}
		if known {
			r.Method = up
		} else {
			ps.add(path+".method", fmt.Sprintf("%q is not one of %s", m, strings.Join(httpMethods, ", ")))
		}
	}
	if h, ok := o.get("headers"); ok {
		r.Headers = parseHeaders(h, path+".headers", ps)
	}
	if b, ok := stringField(o, "body", path+".body", ps); ok {
		if n := utf8.RuneCountInString(b); n > MaxBodyChars {
			ps.add(path+".body", fmt.Sprintf("is %d characters long, over the maximum of %d", n, MaxBodyChars))
		}
		r.Body = b
	}
	if a, ok := o.get("authentication"); ok {
		r.Authentication = parseAuthentication(a, path+".authentication", ps)
	}
	return r
}

// checkURI checks that u is an absolute http(s) URL within the length limit
// whose scheme fits the action type.
func checkURI(u, path string, kind ActionKind, ps *problems) {
	if n := utf8.RuneCountInString(u); n > MaxURILength {
		ps.add(path, fmt.Sprintf("is %d characters long, over the maximum of %d", n, MaxURILength))
		return
	}
	if !ps.stored {
		if i, r, bad := uriForbidden(u); bad {
			ps.add(path, fmt.Sprintf("%q holds %s at character %d, which a URI may not contain (RFC 3986): percent-encode it", u, describeRune(r), i+1))
			return
		}
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" || (pu.Scheme != "http" && pu.Scheme != "https") {
		ps.add(path, fmt.Sprintf("%q is not an absolute http or https URL", u))
		return
	}
	if kind == KindHTTPS && pu.Scheme != "https" {
		ps.add(path, fmt.Sprintf("%q must use https for an action of type https", u))
	}
}

// uriForbidden returns the first character of u that no URI may hold and
// that would break the HTTP request line (RFC 3986 allows no whitespace or
// control character anywhere; an unescaped one in the query is sent as it
// is and splits the request line), or a '%' not followed by two hex digits,
// with its index in characters, and whether there is one. Other characters
// RFC 3986 leaves out ('<', '"', non-ASCII …) were always accepted: the
// engine's client percent-encodes them in the path, and servers take them
// in the query.
func uriForbidden(u string) (int, rune, bool) {
	i := 0
	for pos, r := range u {
		switch {
		case r == '%':
			if pos+2 >= len(u) || !isHex(u[pos+1]) || !isHex(u[pos+2]) {
				return i, r, true
			}
		case r <= 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.IsSpace(r) || r == utf8.RuneError:
			return i, r, true
		}
		i++
	}
	return 0, 0, false
}

func isHex(b byte) bool {
	return ('0' <= b && b <= '9') || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F')
}

// describeRune names a character for a message: "a space", a control
// character by its code, others quoted.
func describeRune(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == '%':
		return "a '%' that is not followed by two hex digits"
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return fmt.Sprintf("the control character %U", r)
	case unicode.IsSpace(r):
		return fmt.Sprintf("the space character %U", r)
	}
	return fmt.Sprintf("%q", r)
}

// parseHeaders reads a headers object of string values, in the order
// given, within the limits of SPEC §1.
func parseHeaders(raw json.RawMessage, path string, ps *problems) []Header {
	if kindOf(raw) != "object" {
		ps.add(path, "must be an object of header names and string values, not "+article(kindOf(raw)))
		return nil
	}
	pairs, ok := orderedObject(raw)
	if !ok {
		ps.add(path, "must be an object of header names and string values")
		return nil
	}
	if len(pairs) > MaxHeaders {
		ps.add(path, fmt.Sprintf("%d headers given, over the maximum of %d", len(pairs), MaxHeaders))
		return nil
	}
	var out []Header
	total := 0
	for _, p := range pairs {
		hp := path + "." + p.key
		v, ok := decodeString(p.value)
		if !ok {
			ps.add(hp, "must be a string, not "+article(kindOf(p.value)))
			continue
		}
		if !httpguts.ValidHeaderFieldName(p.key) {
			ps.add(hp, fmt.Sprintf("%q is not a valid header name", p.key))
			continue
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			ps.add(hp, "the value contains characters a header cannot carry (such as a line break)")
			continue
		}
		total += utf8.RuneCountInString(p.key) + utf8.RuneCountInString(v)
		out = append(out, Header{Name: p.key, Value: v})
	}
	if total > MaxHeaderChars {
		ps.add(path, fmt.Sprintf("the headers are %d characters long in total, over the maximum of %d", total, MaxHeaderChars))
	}
	return out
}

// authKinds maps lowercase authentication types to kinds; notspecified
// means none.
var authKinds = map[string]AuthKind{
	"basic": AuthBasic, "clientcertificate": AuthClientCertificate, "activedirectoryoauth": AuthActiveDirectory,
	"notspecified": "",
}

// parseAuthentication reads request.authentication; it returns nil for
// type notSpecified.
func parseAuthentication(raw json.RawMessage, path string, ps *problems) *Authentication {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object or null, not "+article(kindOf(raw)))
		return nil
	}
	t := requiredString(o, "type", path+".type", ps)
	if t == "" {
		return nil
	}
	kind, known := authKinds[strings.ToLower(strings.TrimSpace(t))]
	if !known {
		ps.add(path+".type", fmt.Sprintf("%q is not one of basic, clientCertificate, activeDirectoryOAuth", t))
		return nil
	}
	a := &Authentication{Kind: kind}
	switch kind {
	case "":
		return nil
	case AuthBasic:
		a.Username = requiredString(o, "username", path+".username", ps)
		a.Password = secretField(o, "password", path+".password", "basic", true, ps)
	case AuthClientCertificate:
		a.Pfx = secretField(o, "pfx", path+".pfx", "clientcertificate", true, ps)
		a.Password = secretField(o, "password", path+".password", "clientcertificate", false, ps)
		if a.Pfx != "" {
			readCertificate(a, path, ps)
		} else if ps.secretsOptional {
			a.CertificateThumbprint = optString(o, "certificateThumbprint")
			a.CertificateSubjectName = optString(o, "certificateSubjectName")
			if dt, err := ParseDateTime(optString(o, "certificateExpirationDate"), false); err == nil && dt.HasOffset {
				a.CertificateExpiration = dt.Time.UTC()
			}
		}
	case AuthActiveDirectory:
		a.Tenant = requiredString(o, "tenant", path+".tenant", ps)
		a.Audience = requiredString(o, "audience", path+".audience", ps)
		a.ClientID = requiredString(o, "clientId", path+".clientId", ps)
		a.Secret = secretField(o, "secret", path+".secret", "activedirectoryoauth", true, ps)
	}
	return a
}
