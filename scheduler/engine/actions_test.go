package engine

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"sked/scheduler/action"
	"sked/scheduler/action/actiontest"
)

// withActions replaces the env's engine by one whose executors use ac
// (loopback allowed unless ac has an allow list).
func (e *env) withActions(ac action.Config) {
	e.t.Helper()
	eng, err := New(allowLoopback(Config{InstanceID: "actions", MaxWorkers: 4, Action: ac}), Deps{Store: e.store, Clock: e.clock, Logger: quietLogger()})
	if err != nil {
		e.t.Fatal(err)
	}
	e.useEngine(eng)
}

// onlyEntry returns the job's single history entry.
func (e *env) onlyEntry(id int64) (status, message string) {
	e.t.Helper()
	h := e.history(id)
	if len(h) != 1 {
		e.t.Fatalf("job %d has %d history entries, want 1: %v", id, len(h), historyLines(h))
	}
	return string(h[0].Status), h[0].Message
}

func TestEngineRunsStorageQueueJobIntoAzurite(t *testing.T) {
	az := actiontest.StartAzurite(t)
	az.CreateQueue(t, "engine-jobs")
	sas := actiontest.QueueSAS(actiontest.AzuriteAccount, actiontest.AzuriteKey, "engine-jobs", "raup", time.Now().Add(time.Hour))
	e := newEnv(t, nil)
	e.withActions(action.Config{StorageEndpoint: az.Endpoint()})
	id := e.put("queue", fmt.Sprintf(`{"action":{"type":"StorageQueue","queueMessage":{"storageAccount":%q,"queueName":"engine-jobs","sasToken":%q,"message":"from the engine"},"retryPolicy":{"retryType":"none"}}}`,
		actiontest.AzuriteAccount, sas))
	e.drain()
	status, msg := e.onlyEntry(id)
	if status != "Completed" || !strings.HasPrefix(msg, "HTTP 201 Created") || strings.Contains(msg, "sig=") {
		t.Errorf("history %s %q", status, msg)
	}
	if got := az.PeekMessages(t, "engine-jobs", sas); len(got) != 1 || got[0] != "from the engine" {
		t.Errorf("queue holds %q", got)
	}
	e.counters(id, 1, 0, 0)
}

func TestEngineRunsServiceBusJobs(t *testing.T) {
	const key = "c2VydmljZSBidXMga2V5IGZvciB0aGUgZW5naW5l"
	peer := actiontest.StartServiceBusPeer(t, "sked-engine", "SendRule", key, "orders", "events")
	e := newEnv(t, nil)
	e.withActions(action.Config{ServiceBusEndpoint: peer.Endpoint()})
	q := e.put("sbq", `{"action":{"type":"ServiceBusQueue","serviceBusQueueMessage":{"namespace":"sked-engine","queueName":"orders","message":"to the queue",
		"authentication":{"type":"SharedAccessKey","sasKeyName":"SendRule","sasKey":"`+key+`"},
		"brokeredMessageProperties":{"label":"L","timeToLive":"PT30M"},"customMessageProperties":{"Source":"sked"}},"retryPolicy":{"retryType":"none"}}}`)
	tp := e.put("sbt", `{"action":{"type":"serviceBusTopic","serviceBusTopicMessage":{"namespace":"sked-engine","topicPath":"events","message":"to the topic",
		"authentication":{"type":"sharedAccessKey","sasKeyName":"SendRule","sasKey":"`+key+`"}},"retryPolicy":{"retryType":"none"}}}`)
	bad := e.put("sbbad", `{"action":{"type":"serviceBusQueue","serviceBusQueueMessage":{"namespace":"sked-engine","queueName":"orders","message":"never",
		"authentication":{"type":"sharedAccessKey","sasKeyName":"SendRule","sasKey":"bm90IHRoZSBrZXk="}},"retryPolicy":{"retryType":"none"}}}`)
	e.drain()
	for _, id := range []int64{q, tp} {
		if status, msg := e.onlyEntry(id); status != "Completed" || msg != "HTTP 201 Created" {
			t.Errorf("job %d: %s %q", id, status, msg)
		}
	}
	status, msg := e.onlyEntry(bad)
	if status != "Failed" || !strings.Contains(msg, "401") || !strings.Contains(msg, "InvalidSignature") || strings.Contains(msg, "bm90IHRoZSBrZXk") {
		t.Errorf("wrong key: %s %q", status, msg)
	}
	got := peer.Messages()
	if len(got) != 2 {
		t.Fatalf("peer got %d messages, want 2", len(got))
	}
	bodies := map[string]actiontest.SBMessage{got[0].Entity: got[0], got[1].Entity: got[1]}
	if m := bodies["orders"]; m.Body != "to the queue" || m.BrokerProperties["Label"] != "L" || m.BrokerProperties["TimeToLive"] != 1800.0 || m.Custom["Source"] != `"sked"` {
		t.Errorf("queue message %+v", m)
	}
	if m := bodies["events"]; m.Body != "to the topic" {
		t.Errorf("topic message %+v", m)
	}
}

func TestEngineRunsActiveDirectoryOAuthJob(t *testing.T) {
	const secret = "engine~client.secret"
	authority := actiontest.StartTokenAuthority(t, "tenant1", "app1", secret)
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if !authority.Valid(r.Header.Get("Authorization"), "https://api.example") {
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	e.withActions(action.Config{OAuthAuthority: authority.URL})
	job := func(name, secret string) int64 {
		return e.put(name, fmt.Sprintf(`{"action":{"type":"http","request":{"uri":%q,"method":"GET","authentication":{"type":"ActiveDirectoryOAuth","tenant":"tenant1","audience":"https://api.example","clientId":"app1","secret":%q}},"retryPolicy":{"retryType":"none"}}}`,
			e.target.URL+"/"+name, secret))
	}
	good, bad := job("good", secret), job("bad", "an-expired-secret")
	e.drain()
	if status, msg := e.onlyEntry(good); status != "Completed" || !strings.HasPrefix(msg, "HTTP 200 OK") {
		t.Errorf("good secret: %s %q", status, msg)
	}
	status, msg := e.onlyEntry(bad)
	if status != "Failed" || !strings.Contains(msg, "HTTP 401 Unauthorized: invalid_client: AADSTS7000215: Invalid client secret provided.") || strings.Contains(msg, "an-expired-secret") {
		t.Errorf("wrong secret: %s %q", status, msg)
	}
	if n := len(e.target.requests()); n != 1 {
		t.Errorf("target got %d requests, want 1 (none without a token)", n)
	}
}

func TestEngineRefusesLoopbackTargetsUnlessAllowed(t *testing.T) {
	e := newEnv(t, nil)
	e.withActions(action.Config{AllowTargets: []netip.Prefix{}})
	id := e.put("ssrf", `{"action":`+e.action("/x", `"retryPolicy":{"retryType":"none"}`)+`}`)
	e.drain()
	status, msg := e.onlyEntry(id)
	want := "refused to connect to " + strings.TrimPrefix(e.target.URL, "http://") + ": loopback addresses are not allowed (set --allow-targets to allow them)"
	if status != "Failed" || msg != want {
		t.Errorf("history %s %q, want Failed %q", status, msg, want)
	}
	if n := len(e.target.requests()); n != 0 {
		t.Errorf("target got %d requests", n)
	}
	e.counters(id, 1, 1, 1)
}
