package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// cspReporter runs in every document of a watched tab before the page's
// own scripts: it records each Content Security Policy violation in
// window.__skedCSP and writes it to the console.
const cspReporter = `(() => {
  if (window.__skedCSP) return;
  window.__skedCSP = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    const m = 'Content Security Policy violation on ' + e.documentURI + ': ' + e.effectiveDirective +
      ' blocked ' + (e.blockedURI || 'inline') + ' at ' + (e.sourceFile || '?') + ':' + e.lineNumber +
      (e.sample ? ' (' + e.sample + ')' : '');
    window.__skedCSP.push(m);
    console.error(m);
  });
})()`

// cspWatch collects the Content Security Policy violations of one tab: the
// browser's own console messages about them and the reporter's.
type cspWatch struct {
	mu   sync.Mutex
	seen []string
	set  map[string]bool
}

func (w *cspWatch) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.set[msg] {
		w.set[msg] = true
		w.seen = append(w.seen, msg)
	}
}

// take returns the violations seen so far and forgets them.
func (w *cspWatch) take(ctx context.Context) []string {
	if list, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("window.__skedCSP || []")); err == nil {
		for _, m := range list {
			w.add(m)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// cspKey finds a tab's cspWatch in its context.
type cspKey struct{}

// watchCSP makes t fail, at its end, with the text of every Content Security
// Policy violation that any page of ctx's tab reported, and of every
// uncaught exception of its scripts. newBrowser calls it, so that every
// browser test fails on a violation or a script error. (Console errors
// are not all failures: htmx logs the 4xx answers that some tests ask
// for; the tests that expect none check them with consoleErrors.)
func watchCSP(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	w := &cspWatch{set: map[string]bool{}}
	exceptions := &cspWatch{set: map[string]bool{}}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspReporter}); err != nil {
		t.Fatalf("watch CSP violations: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if strings.Contains(m.Text, "Content Security Policy") || strings.Contains(m.Text, "Content-Security-Policy") {
				w.add(fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line))
			}
			if m.IsException() {
				exceptions.add(fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line))
			}
		}
	}()
	t.Cleanup(func() {
		if v := w.take(ctx); len(v) > 0 {
			t.Errorf("%d Content Security Policy violations:\n%s", len(v), strings.Join(v, "\n"))
		}
		exceptions.mu.Lock()
		defer exceptions.mu.Unlock()
		if len(exceptions.seen) > 0 {
			t.Errorf("%d uncaught script exceptions:\n%s", len(exceptions.seen), strings.Join(exceptions.seen, "\n"))
		}
	})
	return context.WithValue(ctx, cspKey{}, w)
}

// TestBrowserCatchesCSPViolations checks the watch itself: a page with
// Sked's policy and an inline script, an inline style and an event handler
// attribute is caught, with the violations named.
func TestBrowserCatchesCSPViolations(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>t</title><p style="color:red" id="p">x</p>`+
			`<script>document.title = 'inline ran'</script><img src="/nope.png" onerror="document.title='handler ran'">`)
	}))
	defer srv.Close()
	ctx := newBrowser(t)
	w := ctx.Value(cspKey{}).(*cspWatch)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		"new Promise((done) => { const f = () => window.__skedCSP.length >= 3 ? done(true) : requestAnimationFrame(f); f(); })",
		chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || title != "t" {
		t.Errorf("title %q (%v): the inline script or handler ran", title, err)
	}
	got := strings.Join(w.take(ctx), "\n")
	t.Logf("caught:\n%s", got)
	for _, want := range []string{"script-src", "style-src"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s violation in:\n%s", want, got)
		}
	}
}
