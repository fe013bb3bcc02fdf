package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestBrowserChannelsAndBell creates a webhook channel on the Channels
// page and sees its signing secret once, sends a test event to a local
// receiver and sees the answer in place and in the delivery log (the
// receiver verifies the signature with the secret shown), rings the job
// page's bell and sees the rule listed, makes the job fail and sees the
// delivery of occurrenceFaulted in the log, and makes a collection signing
// secret; at 1280 and 375 px.
func TestBrowserChannelsAndBell(t *testing.T) {
	type received struct {
		header http.Header
		body   []byte
	}
	got := make(chan received, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" { // the job's target: always down
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), b}
		_, _ = io.WriteString(w, "received, thanks")
	}))
	defer receiver.Close()

	dataDir := newDataDir(t)
	base := startSkedAllowing(t, dataDir, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ctx := newBrowser(t)
	acceptDialogs(ctx)
	setupAndSignIn(t, ctx, base)
	token := adminToken(t, dataDir, "e2e-notify")
	const arm = "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/nightly"
	const v = "?api-version=2016-03-01"
	apiCall(t, http.MethodPut, base+arm+v, token, `{"location":"West Europe","properties":{"sku":{"name":"Standard"}}}`, http.StatusCreated)
	apiCall(t, http.MethodPut, base+arm+"/jobs/report"+v, token, `{"properties":{"startTime":"2026-01-01T00:00:00",
		"action":{"type":"http","request":{"uri":"https://example.com/report","method":"POST","body":"ping"}},
		"recurrence":{"frequency":"day","interval":1,"schedule":{"hours":[3],"minutes":[0]},"timeZone":"Europe/Berlin"}}}`, http.StatusCreated)

	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+"`"+sel+"`"+`) || {}).textContent || ""`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The empty Channels page, from the navigation.
	waitDo(t, ctx, "open the Channels page",
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.ID("nav-channels")),
		chromedp.WaitVisible(chromedp.ID("channels-empty")),
	)
	screenshot(t, ctx, "notify-01-channels-empty-1280")

	// Create a webhook channel: the secret is shown once.
	waitDo(t, ctx, "create a webhook channel",
		chromedp.Click(chromedp.CSS("#channel-form-webhook summary")),
		chromedp.WaitVisible(chromedp.ID("webhook-name")),
		chromedp.SendKeys(chromedp.ID("webhook-name"), "ops-hook"),
		chromedp.SendKeys(chromedp.ID("webhook-url"), receiver.URL+"/sked"),
		chromedp.SendKeys(chromedp.ID("webhook-description"), "The on-call receiver"),
		chromedp.Click(chromedp.ID("webhook-create")),
		chromedp.WaitVisible(chromedp.ID("new-secret-value")),
	)
	secret := text("#new-secret-value")
	if !strings.HasPrefix(secret, "whsec_") || count("#channel-ops-hook") != 1 {
		t.Fatalf("after create: secret %q, rows %d", secret, count("#channel-ops-hook"))
	}
	if count("#alert-form #alert-channel") != 1 {
		t.Error("the workspace's add-alert form did not appear with the new channel")
	}
	screenshot(t, ctx, "notify-02-channel-created-secret-once-1280")

	// Send a test event: the answer shows in place, the receiver verifies
	// it with the secret shown, the delivery log lists it.
	waitDo(t, ctx, "send a test event",
		chromedp.Click(chromedp.CSS(`#channel-ops-hook form[action$="/test"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#channel-ops-hook .channel-test-answer")),
		chromedp.WaitVisible(chromedp.CSS("#delivery-log tbody tr")),
	)
	if a := text("#channel-ops-hook .channel-test-answer"); !strings.Contains(a, "Delivered") || !strings.Contains(a, "HTTP 200") {
		t.Errorf("test answer %q", a)
	}
	select {
	case r := <-got:
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(r.body, r.header); err != nil || !strings.Contains(string(r.body), `"type":"test"`) {
			t.Errorf("the receiver cannot verify the test event with the secret shown: %v\n%s", err, r.body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver got nothing")
	}
	if row := text("#delivery-log tbody tr"); !strings.Contains(row, "Delivered") || !strings.Contains(row, "ops-hook") || !strings.Contains(row, "test") {
		t.Errorf("delivery log row %q", row)
	}
	screenshot(t, ctx, "notify-03-test-event-answer-1280")

	// Shown once: not after a reload.
	waitDo(t, ctx, "reload", chromedp.Navigate(base+"/w/default/channels"), chromedp.WaitVisible(chromedp.ID("channel-ops-hook")))
	if count("#new-secret-value") != 0 || strings.Contains(text("body"), secret) {
		t.Error("the secret is shown again")
	}

	// The bell on the job page: one click, and the rule is listed.
	job := base + "/c/default/ops/nightly/jobs/report"
	waitDo(t, ctx, "ring the bell",
		chromedp.Navigate(job),
		chromedp.WaitVisible(chromedp.CSS("button#job-bell")),
		chromedp.Click(chromedp.CSS("button#job-bell")),
		chromedp.WaitVisible(chromedp.CSS("span#job-bell")),
	)
	if s := text("#alert-list .alert-summary"); s != "Alerts: faulted, recovered → #ops-hook" {
		t.Errorf("rule after the bell %q", s)
	}
	screenshot(t, ctx, "notify-04-job-bell-rule-1280")

	// Make the job fail: its target answers 503, without retries. The
	// engine sends occurrenceFaulted to the bell's channel; the receiver
	// verifies it and the delivery log lists it as delivered.
	apiCall(t, http.MethodPatch, base+arm+"/jobs/report"+v, token, `{"properties":{"action":{"type":"http",
		"request":{"uri":"`+receiver.URL+`/fail","method":"POST","body":"ping"},"retryPolicy":{"retryType":"none"}}}}`, http.StatusOK)
	waitDo(t, ctx, "run the failing job", chromedp.Navigate(job), chromedp.WaitVisible(chromedp.ID("job-run")), chromedp.Click(chromedp.ID("job-run")))
	select {
	case r := <-got:
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(r.body, r.header); err != nil || !strings.Contains(string(r.body), `"type":"occurrenceFaulted"`) ||
			!strings.Contains(string(r.body), `"report"`) {
			t.Errorf("the job's failure did not arrive as a verified occurrenceFaulted event: %v\n%s", err, r.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notification of the job's failure reached the receiver")
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		waitDo(t, ctx, "the delivery log", chromedp.Navigate(base+"/w/default/channels?event=occurrenceFaulted"), chromedp.WaitVisible(chromedp.ID("delivery-log")))
		row := text("#delivery-log tbody tr")
		if strings.Contains(row, "Delivered") && strings.Contains(row, "ops-hook") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log shows no delivered occurrenceFaulted notification: %q", row)
		}
		time.Sleep(500 * time.Millisecond)
	}
	screenshot(t, ctx, "notify-09-failure-delivered-1280")

	// The collection: its alerts and a signing secret, shown once.
	waitDo(t, ctx, "make a signing secret",
		chromedp.Navigate(base+"/c/default/ops/nightly"),
		chromedp.WaitVisible(chromedp.ID("signing-generate")),
		chromedp.Click(chromedp.ID("signing-generate")),
		chromedp.WaitVisible(chromedp.ID("signing-secret-value")),
	)
	if s := text("#signing-secret-value"); !strings.HasPrefix(s, "whsec_") || count("#alert-list > li") != 1 {
		t.Errorf("signing secret %q, %d rules on the collection page", s, count("#alert-list > li"))
	}
	screenshot(t, ctx, "notify-05-collection-signing-1280")

	// The same pages at 375 px.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 900)); err != nil {
		t.Fatal(err)
	}
	waitDo(t, ctx, "channels at 375", chromedp.Navigate(base+"/w/default/channels"), chromedp.WaitVisible(chromedp.ID("delivery-log")))
	noSidewaysScroll(t, ctx, "/w/default/channels at 375 px")
	screenshot(t, ctx, "notify-06-channels-375")
	checkInside(t, ctx, "#delivery-log table", "#delivery-log", "the delivery log at 375 px")
	waitDo(t, ctx, "job at 375", chromedp.Navigate(job), chromedp.WaitVisible(chromedp.ID("alerts")))
	noSidewaysScroll(t, ctx, "the job page at 375 px")
	screenshot(t, ctx, "notify-07-job-alerts-375")
	waitDo(t, ctx, "collection at 375", chromedp.Navigate(base+"/c/default/ops/nightly"), chromedp.WaitVisible(chromedp.ID("collection-signing")))
	noSidewaysScroll(t, ctx, "the collection page at 375 px")
	screenshot(t, ctx, "notify-08-collection-375")
}
