package action

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"sked/models/jobdef"
)

// sasLifetime is how long the SAS token of a Service Bus request is valid:
// longer than the longest attempt (10 min).
const sasLifetime = 15 * time.Minute

// defaultMessageContentType is the Content-Type of a Service Bus message
// whose brokered properties do not set contentType.
const defaultMessageContentType = "text/plain; charset=utf-8"

// ServiceBusExecutor runs serviceBusQueue and serviceBusTopic actions:
// Service Bus REST "Send Message" (POST {endpoint}/{entity}/messages) with a
// SAS token (see ServiceBusSAS) whose resource is the entity's URL, the
// brokered properties in the BrokerProperties header (contentType as
// Content-Type) and each custom property as a header whose value is a
// quoted JSON string. A 2xx (201 Created) is a success. Build it with
// NewDispatcher.
type ServiceBusExecutor struct {
	client   *http.Client
	endpoint string
	now      func() time.Time
}

// Execute sends the message of a to its queue or topic.
func (s *ServiceBusExecutor) Execute(ctx context.Context, a *Attempt) Result {
	start := time.Now()
	res := s.execute(ctx, a)
	res.Duration = time.Since(start)
	return res
}

func (s *ServiceBusExecutor) execute(ctx context.Context, a *Attempt) Result {
	m := a.Spec.ServiceBusMessage
	if m == nil {
		return Result{Message: "the action has no Service Bus message"}
	}
	ctx, cancel, timeout := attemptContext(ctx, a)
	defer cancel()
	red := &redactor{}
	red.add(m.SASKey)
	red.addEncoded(m.SASKey)
	entity := m.QueueName
	if entity == "" {
		entity = m.TopicPath
	}
	resource := endpoint(s.endpoint, "{namespace}", m.Namespace) + "/" + escapePath(entity)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, resource+"/messages", strings.NewReader(m.Message))
	if err != nil {
		return Result{Message: red.apply("invalid Service Bus request: " + err.Error())}
	}
	auth := ServiceBusSAS(resource, m.SASKeyName, m.SASKey, s.now().Add(sasLifetime))
	red.add(auth)
	if q, err := url.ParseQuery(strings.TrimPrefix(auth, "SharedAccessSignature ")); err == nil {
		red.addEncoded(q.Get("sig"))
	}
	req.Header.Set("Authorization", auth)
	contentType := defaultMessageContentType
	if b := m.BrokeredProperties; b != nil {
		if b.ContentType != "" {
			contentType = b.ContentType
		}
		props, err := brokerPropertiesHeader(b)
		if err != nil {
			return Result{Message: "brokeredMessageProperties: " + err.Error()}
		}
		if props != "" {
			req.Header.Set("BrokerProperties", props)
		}
	}
	req.Header.Set("Content-Type", contentType)
	for _, p := range m.CustomProperties {
		// Kept as given: Service Bus names the property after the header.
		req.Header[p.Name] = []string{jsonString(p.Value)}
	}
	req.Header.Set("User-Agent", userAgent)
	return send(ctx, s.client, req, timeout, red)
}

// brokerProperties are the BrokerProperties header's members, with the
// names of the Service Bus REST API.
type brokerProperties struct {
	CorrelationId           string   `json:",omitempty"`
	ForcePersistence        *bool    `json:",omitempty"`
	Label                   string   `json:",omitempty"`
	MessageId               string   `json:",omitempty"`
	PartitionKey            string   `json:",omitempty"`
	ReplyTo                 string   `json:",omitempty"`
	ReplyToSessionId        string   `json:",omitempty"`
	ScheduledEnqueueTimeUtc string   `json:",omitempty"`
	SessionId               string   `json:",omitempty"`
	TimeToLive              *float64 `json:",omitempty"`
	To                      string   `json:",omitempty"`
	ViaPartitionKey         string   `json:",omitempty"`
}

// brokerPropertiesHeader returns the BrokerProperties header of b, "" when
// b sets nothing but (perhaps) the content type. ScheduledEnqueueTimeUtc
// is written in RFC 1123 form (a time without offset is UTC), TimeToLive in
// seconds.
func brokerPropertiesHeader(b *jobdef.BrokeredProperties) (string, error) {
	p := brokerProperties{
		CorrelationId: b.CorrelationID, ForcePersistence: b.ForcePersistence, Label: b.Label,
		MessageId: b.MessageID, PartitionKey: b.PartitionKey, ReplyTo: b.ReplyTo,
		ReplyToSessionId: b.ReplyToSessionID, SessionId: b.SessionID, To: b.To, ViaPartitionKey: b.ViaPartitionKey,
	}
	if b.ScheduledEnqueueTimeUTC != "" {
		dt, err := jobdef.ParseDateTime(b.ScheduledEnqueueTimeUTC, false)
		if err != nil {
			return "", err
		}
		p.ScheduledEnqueueTimeUtc = dt.Time.UTC().Format(http.TimeFormat)
	}
	if b.TimeToLiveDuration > 0 {
		ttl := b.TimeToLiveDuration.Seconds()
		p.TimeToLive = &ttl
	}
	if p == (brokerProperties{}) {
		return "", nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return "", err
	}
	return strings.TrimSpace(buf.String()), nil
}

// jsonString returns s as a quoted JSON string.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(buf.String())
}

// escapePath escapes each '/'-separated segment of an entity path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
