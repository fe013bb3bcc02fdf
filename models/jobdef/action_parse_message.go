package jobdef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

var (
	storageAccountRE = regexp.MustCompile(`^[a-z0-9]{3,24}$`)
	queueNameRE      = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9]|-[a-z0-9]){2,62}$`)
	sbNamespaceRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{4,48}[A-Za-z0-9]$`)
	sbEntityRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,259}$`)
)

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
