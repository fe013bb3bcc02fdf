package action

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// StorageQueueVersion is the x-ms-version of the Azure Storage REST API
// used for Put Message.
const StorageQueueVersion = "2018-03-28"

// StorageQueueExecutor runs storageQueue actions: Azure Storage Queue REST
// "Put Message" (POST {endpoint}/{queue}/messages?{sasToken}) with the
// message text base64-encoded, as the Azure SDKs write it and the original
// service did. A 2xx (201 Created) is a success. Build it with
// NewDispatcher.
type StorageQueueExecutor struct {
	client   *http.Client
	endpoint string
}

// Execute puts the message of a into its queue.
func (s *StorageQueueExecutor) Execute(ctx context.Context, a *Attempt) Result {
	start := time.Now()
	res := s.execute(ctx, a)
	res.Duration = time.Since(start)
	return res
}

func (s *StorageQueueExecutor) execute(ctx context.Context, a *Attempt) Result {
	q := a.Spec.QueueMessage
	if q == nil {
		return Result{Message: "the action has no queueMessage"}
	}
	ctx, cancel, timeout := attemptContext(ctx, a)
	defer cancel()
	red := &redactor{}
	red.addSASToken(q.SASToken)
	target := endpoint(s.endpoint, "{account}", q.StorageAccount) + "/" + url.PathEscape(q.QueueName) + "/messages"
	if sas := strings.TrimPrefix(strings.TrimSpace(q.SASToken), "?"); sas != "" {
		target += "?" + sas
	}
	body := `<?xml version="1.0" encoding="utf-8"?><QueueMessage><MessageText>` +
		base64.StdEncoding.EncodeToString([]byte(q.Message)) + `</MessageText></QueueMessage>`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return Result{Message: red.apply("invalid storage queue request: " + err.Error())}
	}
	req.Header.Set("x-ms-version", StorageQueueVersion)
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("x-ms-client-request-id", fmt.Sprintf("sked-%d-%d", a.JobID, a.AttemptID))
	req.Header.Set("User-Agent", userAgent)
	return send(ctx, s.client, req, timeout, red)
}
