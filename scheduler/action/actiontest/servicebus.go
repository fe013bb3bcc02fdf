package actiontest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// SBMessage is one message a ServiceBusPeer accepted.
type SBMessage struct {
	// Entity is the queue or topic path.
	Entity string
	Body   string
	// ContentType is the Content-Type header.
	ContentType string
	// BrokerProperties is the BrokerProperties header, decoded; nil when
	// absent.
	BrokerProperties map[string]any
	// Custom are the other headers (custom properties), by canonical name,
	// with their raw values.
	Custom map[string]string
	// Expiry is the SAS token's se.
	Expiry time.Time
}

// ServiceBusPeer is an HTTP server speaking the Service Bus REST "Send
// Message" API for one namespace, as the endpoint
// "{peer URL}/{namespace}" (see Endpoint). It checks every request as the
// service would: the SAS token's key name, that its resource is the
// entity's URL, its expiry (in the future, at most a day ahead), its
// signature (recomputed with the key), and that BrokerProperties is a JSON
// object. A bad token is a 401 with a Service Bus style error; an unknown
// entity a 404; a good message a 201.
type ServiceBusPeer struct {
	*httptest.Server
	Namespace, KeyName, Key string

	mu       sync.Mutex
	entities map[string]bool
	messages []SBMessage
}

// StartServiceBusPeer starts a peer for namespace that accepts messages to
// entities signed with keyName and key, and closes it when the test ends.
func StartServiceBusPeer(t testing.TB, namespace, keyName, key string, entities ...string) *ServiceBusPeer {
	p := &ServiceBusPeer{Namespace: namespace, KeyName: keyName, Key: key, entities: map[string]bool{}}
	for _, e := range entities {
		p.entities[strings.ToLower(e)] = true
	}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

// Endpoint returns the endpoint template for action.Config:
// "{URL}/{namespace}".
func (p *ServiceBusPeer) Endpoint() string { return p.URL + "/{namespace}" }

// Messages returns the messages accepted so far.
func (p *ServiceBusPeer) Messages() []SBMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]SBMessage(nil), p.messages...)
}

func sbError(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<Error><Code>%d</Code><Detail>%s TrackingId:00000000-0000-0000-0000-000000000000</Detail></Error>", status, detail)
}

func (p *ServiceBusPeer) serve(w http.ResponseWriter, r *http.Request) {
	prefix := "/" + p.Namespace + "/"
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, prefix) || !strings.HasSuffix(r.URL.Path, "/messages") {
		sbError(w, http.StatusBadRequest, "Only POST {entity}/messages is served.")
		return
	}
	entity := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, prefix), "/messages")
	expiry, problem := p.checkToken(r.Header.Get("Authorization"), p.URL+prefix+entity)
	if problem != "" {
		sbError(w, http.StatusUnauthorized, problem)
		return
	}
	p.mu.Lock()
	known := p.entities[strings.ToLower(entity)]
	p.mu.Unlock()
	if !known {
		sbError(w, http.StatusNotFound, "The messaging entity '"+entity+"' could not be found.")
		return
	}
	body, _ := io.ReadAll(r.Body)
	m := SBMessage{Entity: entity, Body: string(body), ContentType: r.Header.Get("Content-Type"), Custom: map[string]string{}, Expiry: expiry}
	if bp := r.Header.Get("BrokerProperties"); bp != "" {
		if err := json.Unmarshal([]byte(bp), &m.BrokerProperties); err != nil {
			sbError(w, http.StatusBadRequest, "The BrokerProperties header is not a JSON object: "+err.Error())
			return
		}
	}
	for name, vs := range r.Header {
		switch name {
		case "Authorization", "Brokerproperties", "Content-Type", "Content-Length", "User-Agent", "Accept-Encoding":
			continue
		}
		m.Custom[name] = strings.Join(vs, ",")
	}
	p.mu.Lock()
	p.messages = append(p.messages, m)
	p.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}

// checkToken verifies a "SharedAccessSignature sr=…&sig=…&se=…&skn=…"
// header for the resource URI; it returns the expiry, or why the token is
// refused.
func (p *ServiceBusPeer) checkToken(header, resource string) (time.Time, string) {
	raw, ok := strings.CutPrefix(header, "SharedAccessSignature ")
	if !ok {
		return time.Time{}, "MalformedToken: the Authorization header is not a SharedAccessSignature."
	}
	// The signature covers sr as sent (still URL-encoded): keep raw values.
	fields := map[string]string{}
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		fields[k] = v
	}
	sr, errSR := url.QueryUnescape(fields["sr"])
	sig, errSig := url.QueryUnescape(fields["sig"])
	skn, errSkn := url.QueryUnescape(fields["skn"])
	if errSR != nil || errSig != nil || errSkn != nil || sr == "" || sig == "" || fields["se"] == "" {
		return time.Time{}, "MalformedToken: sr, sig, se and skn are required."
	}
	if skn != p.KeyName {
		return time.Time{}, fmt.Sprintf("InvalidSignature: no authorization rule named '%s'.", skn)
	}
	if !strings.EqualFold(sr, resource) {
		return time.Time{}, fmt.Sprintf("InvalidAudience: the token's audience '%s' is not '%s'.", sr, resource)
	}
	se, err := strconv.ParseInt(fields["se"], 10, 64)
	if err != nil {
		return time.Time{}, "MalformedToken: se is not a number."
	}
	expiry := time.Unix(se, 0)
	if !expiry.After(time.Now()) {
		return time.Time{}, "ExpiredToken: the token has expired."
	}
	if expiry.After(time.Now().Add(24 * time.Hour)) {
		return time.Time{}, "InvalidToken: the token expires more than a day from now."
	}
	mac := hmac.New(sha256.New, []byte(p.Key))
	mac.Write([]byte(fields["sr"] + "\n" + fields["se"]))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return time.Time{}, "InvalidSignature: The token has an invalid signature."
	}
	return expiry, ""
}
