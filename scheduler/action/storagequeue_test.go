package action

import (
	"context"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/action/actiontest"
)

// storageAction returns a storageQueue action.
func storageAction(account, queue, sas, message string) *jobdef.Action {
	return &jobdef.Action{Type: "StorageQueue", Kind: jobdef.KindStorageQueue, RetryPolicy: jobdef.DefaultRetryPolicy,
		QueueMessage: &jobdef.QueueMessage{StorageAccount: account, QueueName: queue, SASToken: sas, Message: message}}
}

// TestStorageQueueActionPutsMessageIntoAzurite sends messages to a queue of
// the real Azurite emulator with a queue SAS token and reads them back.
func TestStorageQueueActionPutsMessageIntoAzurite(t *testing.T) {
	az := actiontest.StartAzurite(t)
	az.CreateQueue(t, "jobs")
	sas := actiontest.QueueSAS(actiontest.AzuriteAccount, actiontest.AzuriteKey, "jobs", "raup", time.Now().Add(time.Hour))
	d := newTestDispatcher(t, Config{StorageEndpoint: az.Endpoint()})

	msg := `<order id="1"> & "ünïcode" ✓`
	res := d.Execute(context.Background(), attempt(storageAction(actiontest.AzuriteAccount, "jobs", sas, msg), 10*time.Second))
	if !res.Succeeded || res.StatusCode != 201 || !strings.HasPrefix(res.Message, "HTTP 201 Created") {
		t.Fatalf("put message: %+v", res)
	}
	// A token given with its leading '?', as the portal copies it.
	res = d.Execute(context.Background(), attempt(storageAction(actiontest.AzuriteAccount, "jobs", "?"+sas, "second"), 10*time.Second))
	if !res.Succeeded {
		t.Fatalf("put message with '?' token: %+v", res)
	}
	got := az.PeekMessages(t, "jobs", sas)
	if len(got) != 2 || got[0] != msg || got[1] != "second" {
		t.Errorf("queue holds %q, want [%q second]", got, msg)
	}

	// A token signed with another key: Azurite refuses it, the attempt
	// fails with its answer, and the token stays out of the message.
	bad := actiontest.QueueSAS(actiontest.AzuriteAccount, "b3RoZXIga2V5", "jobs", "raup", time.Now().Add(time.Hour))
	res = d.Execute(context.Background(), attempt(storageAction(actiontest.AzuriteAccount, "jobs", bad, "nope"), 10*time.Second))
	if res.Succeeded || res.StatusCode != 403 || !strings.Contains(res.Message, "AuthenticationFailed") {
		t.Errorf("wrong signature: %+v", res)
	}
	sig := strings.SplitN(strings.SplitN(bad, "sig=", 2)[1], "&", 2)[0]
	assertNoSecrets(t, res.Message, bad, sig)
	// A queue that does not exist.
	res = d.Execute(context.Background(), attempt(storageAction(actiontest.AzuriteAccount, "missing",
		actiontest.QueueSAS(actiontest.AzuriteAccount, actiontest.AzuriteKey, "missing", "a", time.Now().Add(time.Hour)), "x"), 10*time.Second))
	if res.Succeeded || res.StatusCode != 404 || !strings.Contains(res.Message, "QueueNotFound") {
		t.Errorf("missing queue: %+v", res)
	}
	if n := len(az.PeekMessages(t, "jobs", sas)); n != 2 {
		t.Errorf("queue holds %d messages after the failures, want 2", n)
	}
}
