package action

import (
	"context"
	"maps"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/action/actiontest"
)

// serviceBusAction returns a serviceBusQueue (or, with topic, a
// serviceBusTopic) action.
func serviceBusAction(topic bool, namespace, entity, message, keyName, key string, props *jobdef.BrokeredProperties, custom []jobdef.Header) *jobdef.Action {
	m := &jobdef.ServiceBusMessage{Namespace: namespace, Message: message, SASKeyName: keyName, SASKey: key,
		BrokeredProperties: props, CustomProperties: custom}
	a := &jobdef.Action{RetryPolicy: jobdef.DefaultRetryPolicy, ServiceBusMessage: m}
	if topic {
		a.Type, a.Kind, m.TopicPath = "ServiceBusTopic", jobdef.KindServiceBusTopic, entity
	} else {
		a.Type, a.Kind, m.QueueName = "ServiceBusQueue", jobdef.KindServiceBusQueue, entity
	}
	return a
}

// TestServiceBusActionsSendSignedMessages sends to a queue and a topic of a
// peer that verifies the SAS signature, the key name, the expiry, the
// BrokerProperties header and the custom properties.
func TestServiceBusActionsSendSignedMessages(t *testing.T) {
	const key = "pV5Lk0zQm3c+Yb0Ygk2Q8kz0yF1Zl9t3o7mKxJ3aBcE="
	peer := actiontest.StartServiceBusPeer(t, "sked-test-ns", "RootManageSharedAccessKey", key, "orders", "events")
	d := newTestDispatcher(t, Config{ServiceBusEndpoint: peer.Endpoint()})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if time.Now().After(now) {
		now = time.Now().Truncate(time.Second)
	}
	d.ServiceBus.now = func() time.Time { return now }

	force := true
	props := &jobdef.BrokeredProperties{ContentType: "application/json", CorrelationID: "corr-1", Label: "greeting",
		MessageID: "msg-1", PartitionKey: "p1", ReplyTo: "replies", ReplyToSessionID: "rs-1", SessionID: "p1",
		To: "someone", ViaPartitionKey: "via", ForcePersistence: &force,
		ScheduledEnqueueTimeUTC: "1994-11-06T08:49:37Z", TimeToLive: "PT1H", TimeToLiveDuration: time.Hour}
	custom := []jobdef.Header{{Name: "Priority", Value: "High"}, {Name: "Customer", Value: `say "hi" <ok>`}}
	res := d.Execute(context.Background(), attempt(serviceBusAction(false, "sked-test-ns", "orders", `{"n":1}`, "RootManageSharedAccessKey", key, props, custom), 5*time.Second))
	if !res.Succeeded || res.StatusCode != 201 || res.Message != "HTTP 201 Created" {
		t.Fatalf("queue: %+v", res)
	}
	res = d.Execute(context.Background(), attempt(serviceBusAction(true, "sked-test-ns", "events", "plain", "RootManageSharedAccessKey", key, nil, nil), 5*time.Second))
	if !res.Succeeded || res.StatusCode != 201 {
		t.Fatalf("topic: %+v", res)
	}

	got := peer.Messages()
	if len(got) != 2 {
		t.Fatalf("peer got %d messages, want 2", len(got))
	}
	q, tp := got[0], got[1]
	if q.Entity != "orders" || q.Body != `{"n":1}` || q.ContentType != "application/json" {
		t.Errorf("queue message %+v", q)
	}
	wantProps := map[string]any{"CorrelationId": "corr-1", "ForcePersistence": true, "Label": "greeting", "MessageId": "msg-1",
		"PartitionKey": "p1", "ReplyTo": "replies", "ReplyToSessionId": "rs-1", "ScheduledEnqueueTimeUtc": "Sun, 06 Nov 1994 08:49:37 GMT",
		"SessionId": "p1", "TimeToLive": 3600.0, "To": "someone", "ViaPartitionKey": "via"}
	if !maps.Equal(q.BrokerProperties, wantProps) {
		t.Errorf("BrokerProperties %v\nwant %v", q.BrokerProperties, wantProps)
	}
	wantCustom := map[string]string{"Priority": `"High"`, "Customer": `"say \"hi\" <ok>"`}
	if !maps.Equal(q.Custom, wantCustom) {
		t.Errorf("custom properties %v, want %v", q.Custom, wantCustom)
	}
	if want := now.Add(15 * time.Minute); !q.Expiry.Equal(want) {
		t.Errorf("token expires %v, want %v", q.Expiry, want)
	}
	if tp.Entity != "events" || tp.Body != "plain" || tp.ContentType != "text/plain; charset=utf-8" || tp.BrokerProperties != nil || len(tp.Custom) != 0 {
		t.Errorf("topic message %+v", tp)
	}

	// Wrong key, wrong key name, unknown entity: the peer's answer is the
	// history message, without the key.
	for _, c := range []struct {
		keyName, key, entity, want string
		status                     int
	}{
		{"RootManageSharedAccessKey", "d3JvbmcgYnV0IHBsYXVzaWJsZSBrZXk=", "orders", "InvalidSignature: The token has an invalid signature.", 401},
		{"SendOnly", key, "orders", "no authorization rule named 'SendOnly'", 401},
		{"RootManageSharedAccessKey", key, "nowhere", "could not be found", 404},
	} {
		res := d.Execute(context.Background(), attempt(serviceBusAction(false, "sked-test-ns", c.entity, "m", c.keyName, c.key, nil, nil), 5*time.Second))
		if res.Succeeded || res.StatusCode != c.status || !strings.Contains(res.Message, c.want) {
			t.Errorf("%s/%s: %+v, want %d %q", c.keyName, c.entity, res, c.status, c.want)
		}
		assertNoSecrets(t, res.Message, c.key, url.QueryEscape(c.key))
	}
	if n := len(peer.Messages()); n != 2 {
		t.Errorf("peer accepted %d messages, want 2", n)
	}
}

// TestServiceBusSASFormat checks the token's shape against the documented
// example form and that the signature covers the encoded resource.
func TestServiceBusSASFormat(t *testing.T) {
	tok := ServiceBusSAS("https://ns.servicebus.windows.net/orders", "my key", "k", time.Unix(1700000000, 0))
	const prefix = "SharedAccessSignature sr=https%3A%2F%2Fns.servicebus.windows.net%2Forders&sig="
	if !strings.HasPrefix(tok, prefix) || !strings.HasSuffix(tok, "&se=1700000000&skn=my+key") {
		t.Fatalf("token %q", tok)
	}
	sig, _ := url.QueryUnescape(strings.TrimPrefix(strings.SplitN(tok, "&se=", 2)[0], prefix))
	if want := ServiceBusSignature("k", "https%3A%2F%2Fns.servicebus.windows.net%2Forders", "1700000000"); sig != want {
		t.Errorf("sig %q, want %q", sig, want)
	}
}
