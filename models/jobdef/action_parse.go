package jobdef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

// actionKinds maps lowercase action types to kinds.
var actionKinds = map[string]ActionKind{
	"http": KindHTTP, "https": KindHTTPS, "storagequeue": KindStorageQueue,
	"servicebusqueue": KindServiceBusQueue, "servicebustopic": KindServiceBusTopic,
}

// httpMethods are the methods an http action may use.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

var (
	storageAccountRE = regexp.MustCompile(`^[a-z0-9]{3,24}$`)
	queueNameRE      = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9]|-[a-z0-9]){2,62}$`)
	sbNamespaceRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{4,48}[A-Za-z0-9]$`)
	sbEntityRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,259}$`)
)

// parseActionObject reads one action object at path ("action" or
// "action.errorAction"). main is false for the error action, which may not
// have one of its own.
func parseActionObject(raw json.RawMessage, path string, main bool, ps *problems) *Action {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	a := &Action{RetryPolicy: DefaultRetryPolicy, Timeout: DefaultTimeout}
	t, ok := stringField(o, "type", path+".type", ps)
	switch {
	case ok && strings.TrimSpace(t) != "":
		if k, known := actionKinds[strings.ToLower(strings.TrimSpace(t))]; known {
			a.Type, a.Kind = strings.TrimSpace(t), k
		} else {
			ps.add(path+".type", fmt.Sprintf("%q is not one of http, https, storageQueue, serviceBusQueue, serviceBusTopic", t))
		}
	case ok:
		ps.add(path+".type", "is required")
	default:
		if _, present := o.get("type"); !present {
			ps.add(path+".type", "is required")
		}
	}
	a.Timeout, a.TimeoutText = parseTimeout(o, path+".timeout", ps)

	switch a.Kind {
	case KindHTTP, KindHTTPS:
		if r, ok := o.get("request"); ok {
			a.Request = parseRequest(r, path+".request", a.Kind, ps)
		} else {
			ps.add(path+".request", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	case KindStorageQueue:
		if r, ok := o.get("queueMessage"); ok {
			a.QueueMessage = parseQueueMessage(r, path+".queueMessage", ps)
		} else {
			ps.add(path+".queueMessage", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	case KindServiceBusQueue:
		if r, ok := o.get("serviceBusQueueMessage"); ok {
			a.ServiceBusMessage = parseServiceBusMessage(r, path+".serviceBusQueueMessage", false, ps)
		} else {
			ps.add(path+".serviceBusQueueMessage", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	case KindServiceBusTopic:
		if r, ok := o.get("serviceBusTopicMessage"); ok {
			a.ServiceBusMessage = parseServiceBusMessage(r, path+".serviceBusTopicMessage", true, ps)
		} else {
			ps.add(path+".serviceBusTopicMessage", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	}

	if r, ok := o.get("retryPolicy"); ok {
		a.RetryPolicy, a.HasRetryPolicy = parseRetryPolicy(r, path+".retryPolicy", ps), true
	}
	if r, ok := o.get("errorAction"); ok {
		if main {
			a.ErrorAction = parseActionObject(r, path+".errorAction", false, ps)
		} else {
			ps.add(path+".errorAction", "is not allowed inside an error action")
		}
	}
	return a
}

// requiredString reads a string field that must be present and not blank.
func requiredString(o object, key, path string, ps *problems) string {
	s, ok := stringField(o, key, path, ps)
	if !ok {
		if _, present := o.get(key); !present {
			ps.add(path, "is required")
		}
		return ""
	}
	if strings.TrimSpace(s) == "" {
		ps.add(path, "is required")
		return ""
	}
	return s
}

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

// keyValue is one member of a JSON object.
type keyValue struct {
	key   string
	value json.RawMessage
}

// orderedObject decodes a JSON object keeping the order of its members; a
// key given twice keeps its last value at its first position.
func orderedObject(raw json.RawMessage) ([]keyValue, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []keyValue
	index := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if i, dup := index[k]; dup {
			out[i].value = v
			continue
		}
		index[k] = len(out)
		out = append(out, keyValue{k, v})
	}
	return out, true
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

// parseQueueMessage reads action.queueMessage.
func parseQueueMessage(raw json.RawMessage, path string, ps *problems) *QueueMessage {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	q := &QueueMessage{}
	if s := requiredString(o, "storageAccount", path+".storageAccount", ps); s != "" {
		if storageAccountRE.MatchString(s) {
			q.StorageAccount = s
		} else {
			ps.add(path+".storageAccount", fmt.Sprintf("%q is not a storage account name (3 to 24 lowercase letters and digits)", s))
		}
	}
	if s := requiredString(o, "queueName", path+".queueName", ps); s != "" {
		if queueNameRE.MatchString(s) {
			q.QueueName = s
		} else {
			ps.add(path+".queueName", fmt.Sprintf("%q is not a queue name (3 to 63 lowercase letters, digits and single hyphens)", s))
		}
	}
	q.SASToken = secretField(o, "sasToken", path+".sasToken", "storagequeue", true, ps)
	q.Message, _ = stringField(o, "message", path+".message", ps)
	if n := utf8.RuneCountInString(q.Message); n > MaxBodyChars {
		ps.add(path+".message", fmt.Sprintf("is %d characters long, over the maximum of %d", n, MaxBodyChars))
	}
	return q
}

// parseServiceBusMessage reads a service bus queue or topic message.
func parseServiceBusMessage(raw json.RawMessage, path string, topic bool, ps *problems) *ServiceBusMessage {
	context := "servicebusqueue"
	if topic {
		context = "servicebustopic"
	}
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	m := &ServiceBusMessage{}
	if s := requiredString(o, "namespace", path+".namespace", ps); s != "" {
		if sbNamespaceRE.MatchString(s) {
			m.Namespace = s
		} else {
			ps.add(path+".namespace", fmt.Sprintf("%q is not a Service Bus namespace name (6 to 50 letters, digits and hyphens, starting with a letter)", s))
		}
	}
	entityKey := "queueName"
	if topic {
		entityKey = "topicPath"
	}
	if s := requiredString(o, entityKey, path+"."+entityKey, ps); s != "" {
		if !sbEntityRE.MatchString(s) {
			ps.add(path+"."+entityKey, fmt.Sprintf("%q is not a Service Bus entity name (letters, digits, '.', '_', '-', '/')", s))
		} else if topic {
			m.TopicPath = s
		} else {
			m.QueueName = s
		}
	}
	m.Message, _ = stringField(o, "message", path+".message", ps)
	if n := utf8.RuneCountInString(m.Message); n > MaxBodyChars {
		ps.add(path+".message", fmt.Sprintf("is %d characters long, over the maximum of %d", n, MaxBodyChars))
	}
	if s, ok := stringField(o, "transportType", path+".transportType", ps); ok {
		switch strings.ToLower(s) {
		case "netmessaging":
			m.TransportType = "NetMessaging"
		case "amqp":
			m.TransportType = "AMQP"
		case "notspecified", "":
		default:
			ps.add(path+".transportType", fmt.Sprintf("%q is not one of NetMessaging, AMQP", s))
		}
	}
	if a, ok := o.get("authentication"); ok {
		ao, isObj := decodeObject(a)
		if !isObj {
			ps.add(path+".authentication", "must be an object, not "+article(kindOf(a)))
		} else {
			ap := path + ".authentication"
			if t, ok := stringField(ao, "type", ap+".type", ps); ok && !strings.EqualFold(t, "sharedAccessKey") {
				ps.add(ap+".type", fmt.Sprintf("%q is not sharedAccessKey", t))
			}
			m.SASKeyName = requiredString(ao, "sasKeyName", ap+".sasKeyName", ps)
			m.SASKey = secretField(ao, "sasKey", ap+".sasKey", context, true, ps)
		}
	} else {
		ps.add(path+".authentication", "is required (sasKeyName and sasKey)")
	}
	if b, ok := o.get("brokeredMessageProperties"); ok {
		m.BrokeredProperties = parseBrokered(b, path+".brokeredMessageProperties", ps)
	}
	if c, ok := o.get("customMessageProperties"); ok {
		m.CustomProperties = parseCustomProperties(c, path+".customMessageProperties", ps)
	}
	return m
}

// parseBrokered reads brokeredMessageProperties.
func parseBrokered(raw json.RawMessage, path string, ps *problems) *BrokeredProperties {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	b := &BrokeredProperties{}
	str := func(key string, dst *string) {
		if s, ok := stringField(o, key, path+"."+key, ps); ok {
			*dst = s
		}
	}
	str("contentType", &b.ContentType)
	str("correlationId", &b.CorrelationID)
	str("label", &b.Label)
	str("messageId", &b.MessageID)
	str("partitionKey", &b.PartitionKey)
	str("replyTo", &b.ReplyTo)
	str("replyToSessionId", &b.ReplyToSessionID)
	str("sessionId", &b.SessionID)
	str("to", &b.To)
	str("viaPartitionKey", &b.ViaPartitionKey)
	if v, ok := o.get("forcePersistence"); ok {
		switch string(bytes.TrimSpace(v)) {
		case "true":
			t := true
			b.ForcePersistence = &t
		case "false":
			f := false
			b.ForcePersistence = &f
		default:
			ps.add(path+".forcePersistence", "must be true or false, not "+article(kindOf(v)))
		}
	}
	if s, ok := stringField(o, "scheduledEnqueueTimeUtc", path+".scheduledEnqueueTimeUtc", ps); ok {
		if _, err := ParseDateTime(s, false); err != nil {
			ps.add(path+".scheduledEnqueueTimeUtc", fmt.Sprintf("%q is not an ISO 8601 date-time", s))
		} else {
			b.ScheduledEnqueueTimeUTC = s
		}
	}
	if s, ok := stringField(o, "timeToLive", path+".timeToLive", ps); ok {
		if d, err := parseTimeSpan(s); err != nil || d <= 0 {
			ps.add(path+".timeToLive", fmt.Sprintf("%q is not a positive ISO 8601 duration (e.g. PT1H)", s))
		} else {
			b.TimeToLive, b.TimeToLiveDuration = s, d
		}
	}
	return b
}

// parseCustomProperties reads customMessageProperties: names to string
// values, sent as HTTP headers.
func parseCustomProperties(raw json.RawMessage, path string, ps *problems) []Header {
	if kindOf(raw) != "object" {
		ps.add(path, "must be an object of names and string values, not "+article(kindOf(raw)))
		return nil
	}
	pairs, _ := orderedObject(raw)
	if len(pairs) > MaxHeaders {
		ps.add(path, fmt.Sprintf("%d properties given, over the maximum of %d", len(pairs), MaxHeaders))
		return nil
	}
	var out []Header
	for _, p := range pairs {
		v, ok := decodeString(p.value)
		switch {
		case !ok:
			ps.add(path+"."+p.key, "must be a string, not "+article(kindOf(p.value)))
		case !httpguts.ValidHeaderFieldName(p.key) || reservedProperty(p.key):
			ps.add(path+"."+p.key, fmt.Sprintf("%q cannot be used as a property name", p.key))
		case !httpguts.ValidHeaderFieldValue(v):
			ps.add(path+"."+p.key, "the value contains characters a header cannot carry (such as a line break)")
		default:
			out = append(out, Header{Name: p.key, Value: v})
		}
	}
	return out
}

// reservedProperty reports header names a custom property may not take
// over.
func reservedProperty(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Brokerproperties", "Content-Type", "Content-Length", "Host", "Transfer-Encoding", "Connection":
		return true
	}
	return false
}

// parseRetryPolicy reads retryPolicy: retryType none, fixed or exponential
// (required, SPEC §4 and §13.1), retryInterval 15 s to 18 months (ISO 8601
// or hh:mm:ss, default 30 s), retryCount 0 to 20 (default 4) and, for
// exponential only, maxRetryInterval from retryInterval to 18 months
// (default 1 h).
func parseRetryPolicy(raw json.RawMessage, path string, ps *problems) RetryPolicy {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return DefaultRetryPolicy
	}
	p := DefaultRetryPolicy
	if s, ok := stringField(o, "retryType", path+".retryType", ps); (!ok || strings.TrimSpace(s) == "") && !ps.stored {
		if _, present := o.get("retryType"); !present || ok {
			ps.add(path+".retryType", "is required when retryPolicy is given (none, fixed or exponential)")
		}
	} else if ok {
		switch RetryType(strings.ToLower(strings.TrimSpace(s))) {
		case RetryNone:
			p.Type = RetryNone
		case RetryFixed:
		case RetryExponential:
			p.Type, p.MaxInterval = RetryExponential, DefaultMaxRetryInterval
		default:
			ps.add(path+".retryType", fmt.Sprintf("%q is not one of none, fixed, exponential", s))
		}
	}
	if s, ok := stringField(o, "retryInterval", path+".retryInterval", ps); ok {
		d, err := parseTimeSpan(s)
		switch {
		case err != nil:
			ps.add(path+".retryInterval", fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT30S)", s))
		case d < MinRetryInterval:
			ps.add(path+".retryInterval", fmt.Sprintf("%q is below the minimum of PT15S", s))
		case d > MaxRetryInterval:
			ps.add(path+".retryInterval", fmt.Sprintf("%q is over the maximum of 18 months (P548D)", s))
		default:
			p.Interval, p.IntervalText = d, s
		}
	}
	if v, ok := intField(o, "retryCount", path+".retryCount", 0, ps); ok {
		if v > MaxRetryCount {
			ps.add(path+".retryCount", fmt.Sprintf("%d is over the maximum of %d", v, MaxRetryCount))
		} else {
			p.Count = v
		}
	}
	if s, ok := stringField(o, "maxRetryInterval", path+".maxRetryInterval", ps); ok {
		d, err := parseTimeSpan(s)
		switch {
		case p.Type != RetryExponential:
			ps.add(path+".maxRetryInterval", "is only allowed with retryType exponential")
		case err != nil:
			ps.add(path+".maxRetryInterval", fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT1H)", s))
		case d < p.Interval:
			ps.add(path+".maxRetryInterval", fmt.Sprintf("%q is below retryInterval (%s)", s, FormatISODuration(p.Interval)))
		case d > MaxRetryInterval:
			ps.add(path+".maxRetryInterval", fmt.Sprintf("%q is over the maximum of 18 months (P548D)", s))
		default:
			p.MaxInterval, p.MaxIntervalText = d, s
		}
	}
	if p.Type == RetryNone {
		p.Count = 0
	}
	return p
}
