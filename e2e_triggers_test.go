package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserJobRunsAfter builds, through the job form, a job that runs
// after another ("After other jobs", upstream typed as rg/jc/job), and
// sees the chain on both job pages, at desktop and phone width.
func TestBrowserJobRunsAfter(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)
	selectValue := func(id, v string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`(function(){var e=document.getElementById("`+id+`");e.value="`+v+
				`";e.dispatchEvent(new Event("change",{bubbles:true}));return true})()`)(ctx, t)
			return err
		})
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/collections/new"),
		chromedp.WaitVisible(chromedp.ID("collection-form")),
		chromedp.SendKeys(chromedp.ID("collection_name"), "finance"),
		chromedp.SetValue(chromedp.ID("resource_group"), "prod"),
		chromedp.Click(chromedp.ID("create-collection")),
		chromedp.WaitNotPresent(chromedp.ID("collection-form")),
		// The upstream: every day.
		chromedp.Navigate(base+"/c/default/prod/finance/jobs/new"),
		chromedp.WaitVisible(chromedp.ID("job-form")),
		chromedp.SendKeys(chromedp.ID("name"), "extract"),
		chromedp.SendKeys(chromedp.ID("uri"), "https://example.com/extract"),
		selectValue("frequency", "day"),
		chromedp.Click(chromedp.ID("save-job")),
		chromedp.WaitNotPresent(chromedp.ID("job-form")),
		// The job that runs after it.
		chromedp.Navigate(base+"/c/default/prod/finance/jobs/new"),
		chromedp.WaitVisible(chromedp.ID("job-form")),
		chromedp.SendKeys(chromedp.ID("name"), "report"),
		chromedp.SendKeys(chromedp.ID("uri"), "https://example.com/report"),
		selectValue("frequency", "after"),
		chromedp.WaitVisible(chromedp.ID("trigger_after")),
		chromedp.SendKeys(chromedp.ID("trigger_after"), "prod/finance/nope"),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The keys reach the field before the click (a loaded machine may
	// take a while): wait up to 2 s for its value.
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("trigger_after").value`))
		if err != nil {
			t.Fatal(err)
		}
		if v == "prod/finance/nope" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream field holds %q", v)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("save-job"))); err != nil {
		t.Fatal(err)
	}
	// The refusal replaces the form: wait up to 10 s for the message
	// under the field. The live preview's answer may show another one
	// first (the one for the draft as it was when "After other jobs" was
	// chosen: no upstream yet), so the wait is for this message.
	const want = "Runs after: there is no job prod/finance/nope in this workspace"
	var msg string
	for deadline := time.Now().Add(10 * time.Second); msg != want && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if msg, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("err-trigger_after") || {}).textContent || ""`)); err != nil {
			t.Fatal(err)
		}
	}
	if msg != want {
		t.Fatalf("error under the field %q, want %q", msg, want)
	}
	screenshot(t, ctx, "80-job-form-runs-after-error")
	err = chromedp.Do(ctx,
		chromedp.Clear(chromedp.ID("trigger_after")),
		chromedp.SendKeys(chromedp.ID("trigger_after"), "prod/finance/extract"),
		chromedp.Click(chromedp.ID("save-job")),
		chromedp.WaitVisible(chromedp.ID("job-runs-after")),
	)
	if err != nil {
		t.Fatal(err)
	}
	texts := func(sel string) string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("`+sel+`")).map(e => e.textContent.trim()).join("|")`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := texts("#job-runs-after a"); got != "prod/finance/extract" {
		t.Errorf("runs after %q", got)
	}
	if got := texts("#job-description"); got != "Runs after prod/finance/extract succeeds" {
		t.Errorf("description %q", got)
	}
	screenshot(t, ctx, "81-job-runs-after")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#job-runs-after a")),
		chromedp.WaitVisible(chromedp.ID("job-triggers")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts("#job-triggers a"); got != "prod/finance/report" {
		t.Errorf("triggers %q", got)
	}
	screenshot(t, ctx, "82-job-triggers")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(phoneWidth, 800), chromedp.Navigate(base+"/c/default/prod/finance/jobs/report"),
		chromedp.WaitVisible(chromedp.ID("job-runs-after"))); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	if err != nil || wide {
		t.Errorf("the job page scrolls sideways at phone width (%v)", err)
	}
	screenshot(t, ctx, "83-job-runs-after-phone")
	if !strings.Contains(texts("#job-chain-heading"), "Chain") {
		t.Error("no chain heading at phone width")
	}
}
