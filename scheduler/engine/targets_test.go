package engine

import (
	"testing"

	"sked/models/jobdef"
	"sked/scheduler/action"
)

// TestTargetHost: http actions count under their URI's host, storage
// queues under the storage endpoint's host with the account filled in,
// Service Bus under the namespace's host (the configured endpoints, or
// Azure's).
func TestTargetHost(t *testing.T) {
	azurite := action.Config{StorageEndpoint: "http://127.0.0.1:10001/{account}", ServiceBusEndpoint: "https://sb.example.net:5671/{namespace}"}
	for _, tc := range []struct {
		name string
		a    *jobdef.Action
		cfg  action.Config
		want string
	}{
		{"http", &jobdef.Action{Request: &jobdef.HTTPRequest{URI: "https://Api.Example.com:443/x"}}, action.Config{}, "api.example.com"},
		{"queue", &jobdef.Action{QueueMessage: &jobdef.QueueMessage{StorageAccount: "acct"}}, action.Config{}, "acct.queue.core.windows.net"},
		{"queue on azurite", &jobdef.Action{QueueMessage: &jobdef.QueueMessage{StorageAccount: "acct"}}, azurite, "127.0.0.1:10001"},
		{"service bus", &jobdef.Action{ServiceBusMessage: &jobdef.ServiceBusMessage{Namespace: "ns"}}, action.Config{}, "ns.servicebus.windows.net"},
		{"service bus elsewhere", &jobdef.Action{ServiceBusMessage: &jobdef.ServiceBusMessage{Namespace: "ns"}}, azurite, "sb.example.net:5671"},
		{"none", nil, action.Config{}, ""},
	} {
		if got := TargetHost(tc.a, tc.cfg); got != tc.want {
			t.Errorf("%s: TargetHost = %q, want %q", tc.name, got, tc.want)
		}
	}
}
