package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The browser tests (e2e_NAME_test.go, one file per page or feature, tests
// named TestBrowser…) run the real server in this process (serve, with the
// embedded PostgreSQL in a fresh data directory) and drive it with a
// headless Chromium. They live in package main because they call serve
// and the commands (runForTest) directly. This file is their harness: the
// server, the browser, waits and screenshots, sign-in, REST API calls and
// checks shared by several pages.

// newDataDir returns a fresh data directory that the postgres user can
// enter (t.TempDir's parent is private to root).
func newDataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sked-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startSked runs the real server (serve) with the embedded PostgreSQL in
// dataDir and returns its base URL and a function that stops it and
// reports serve's error. Each of opts may change the configuration.
func startSked(t *testing.T, dataDir string, opts ...func(*Config)) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	cfg := Config{Listen: "127.0.0.1:0", DataDir: dataDir, LogLevel: slog.LevelInfo, ShutdownTimeout: 10 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	addrs := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)), func(a net.Addr) { addrs <- a })
	}()
	var stopped bool
	var stopErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			stopErr = <-done
		}
		return stopErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("sked stopped with %v\nlogs:\n%s", err, logs)
		}
	})
	select {
	case a := <-addrs:
		skedLogs.Store("http://"+a.String(), logs)
		return "http://" + a.String(), stop
	case err := <-done:
		stopped = true
		t.Fatalf("sked did not start: %v\nlogs:\n%s", err, logs)
	case <-time.After(90 * time.Second):
		t.Fatalf("sked did not start within 90 s\nlogs:\n%s", logs)
	}
	return "", nil
}

// waitReady waits until the server at base answers /readyz with 200: a
// server answers 503 from its start until its engine has written its first
// heartbeat. It fails the test with the last answer after 30 s.
func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz not 200 within 30 s: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// artifactsDir is where browser screenshots go: $SKED_ARTIFACTS_DIR or
// test-artifacts/ in the repository.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("SKED_ARTIFACTS_DIR")
	if dir == "" {
		dir = "test-artifacts"
	}
	dir = filepath.Join(dir, "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// chromiumPath finds Debian's Chromium; the browser tests fail without it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("Chromium is not installed: run `make deps-test` (apt-get install chromium)")
	return ""
}

// newBrowser starts a headless Chromium for t; a Content Security Policy
// violation on any of its pages fails t (watchCSP).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return watchCSP(t, ctx)
}

// waitDo runs actions in the browser ctx within 30 s; a failure or a
// timeout fails t, naming what was being done.
func waitDo(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	waitWithin(t, ctx, 30*time.Second, what, actions...)
}

// waitWithin is waitDo within d.
func waitWithin(t *testing.T, ctx context.Context, d time.Duration, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// screenshot saves a full-page PNG of the browser ctx as name.png in
// artifactsDir.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	// A page still loading after a navigation (a form's save redirects)
	// has no layout yet: Chromium refuses a screenshot of 0 width until
	// the new page is laid out. That refusal is retried for up to 2 s.
	var png []byte
	var err error
	for try := 0; ; try++ {
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
		if err == nil || !strings.Contains(err.Error(), "0 width") || try == 20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(artifactsDir(t), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// startSkedAllowing is startSked with the engine allowed to call the
// networks allow (the loopback targets of browser tests); the server stops
// when the test ends.
func startSkedAllowing(t *testing.T, dataDir string, allow []netip.Prefix) string {
	t.Helper()
	base, _ := startSked(t, dataDir, func(c *Config) { c.AllowTargets = allow })
	return base
}

// adminToken issues an API token named name for the administrator of the
// Sked whose data directory is dataDir (sked token add) and returns it.
func adminToken(t *testing.T, dataDir, name string) string {
	t.Helper()
	code, stdout, stderr := runForTest([]string{"token", "add", "admin", "--name", name}, map[string]string{"SKED_DATA_DIR": dataDir}, "")
	if code != 0 {
		t.Fatalf("token add: exit %d: %s", code, stderr)
	}
	return strings.TrimSpace(stdout)
}

// apiCall sends a REST API request with a bearer token and fails t unless
// it answers want.
func apiCall(t *testing.T, method, url, token, body string, want int) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d\n%s", method, url, resp.StatusCode, want, b)
	}
}

// skedLogs holds the log of each server startSked started, by base URL.
var skedLogs sync.Map

// setupCodeLine finds the setup code in a server's log.
var setupCodeLine = regexp.MustCompile(`setup_code=([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})`)

// setupCode reads the one-time setup code from the log of the server at
// base, as an operator would.
func setupCode(t *testing.T, base string) string {
	t.Helper()
	logs, ok := skedLogs.Load(base)
	if !ok {
		t.Fatalf("no log kept for %s", base)
	}
	m := setupCodeLine.FindStringSubmatch(logs.(*syncBuffer).String())
	if m == nil {
		t.Fatalf("the log of %s has no setup_code line:\n%s", base, logs)
	}
	return m[1]
}

// setupAndSignIn completes the first-run setup in the browser, with the
// setup code from the server's log.
func setupAndSignIn(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/setup"),
		chromedp.WaitVisible(chromedp.ID("setup-form")),
		chromedp.SendKeys(chromedp.ID("setup_code"), setupCode(t, base)),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password123"),
		chromedp.Click(chromedp.ID("setup-submit")),
		chromedp.WaitVisible(chromedp.ID("current-user")),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// berlinZone is Europe/Berlin, the zone of the browser tests' jobs.
func berlinZone(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// acceptDialogs accepts every confirm() the page opens (htmx's
// hx-confirm) and records their messages.
func acceptDialogs(ctx context.Context) func() []string {
	var mu sync.Mutex
	var seen []string
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			mu.Lock()
			seen = append(seen, ev.Message)
			mu.Unlock()
			go func() {
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}()
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// noSidewaysScroll fails t when the page is wider than the viewport.
func noSidewaysScroll(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	if err != nil || wide {
		t.Errorf("%s scrolls sideways (%v)", what, err)
	}
}

// consoleErrors collects the console errors and uncaught exceptions of
// ctx's tab; the returned function reports those seen so far.
func consoleErrors(ctx context.Context) func() []string {
	var mu sync.Mutex
	var seen []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				seen = append(seen, fmt.Sprintf("%s (%s:%d)", m.Text, m.URL, m.Line))
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// failOnFailTarget is a loopback HTTP target for the browser tests' jobs:
// it answers 500 to a path holding "fail" and 200 "ok" to any other. It
// is closed when the test ends.
func failOnFailTarget(t *testing.T) *httptest.Server {
	t.Helper()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "fail") {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(target.Close)
	return target
}

// trendsLayout is how the trends chart of a job page renders: its labels'
// font sizes in CSS pixels, the picture's size and how many SVG texts it
// holds.
type trendsLayout struct {
	Label, Max, LegendText float64
	Height, Width          float64
	SVGTexts               int
}

// checkTrendsLayout fails unless the trends chart's lane labels and legend
// have the page's text sizes (14 px, 12 px for the maxima) and the picture
// is 208 px high at any width, with no text drawn in SVG units (which
// would grow with the width).
func checkTrendsLayout(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Evaluate[trendsLayout](`(() => {
		const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
		const svg = document.querySelector('#trends-chart [data-testid="trends-svg"]').getBoundingClientRect();
		return {Label: px('[data-testid="trends-labels"] p'), Max: px('[data-testid="trends-labels"] p span'),
			LegendText: px('#trends-chart ul[aria-label="Legend"] li'), Height: svg.height, Width: svg.width,
			SVGTexts: document.querySelectorAll('#trends-chart svg text').length};
	})()`))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if l.Label != 14 || l.Max != 12 || l.LegendText != 14 || l.Height != 208 || l.Width < 150 || l.SVGTexts != 0 {
		t.Errorf("%s: trends chart %+v, want labels 14 px, maxima 12 px, legend 14 px, 208 px high, no SVG text", what, l)
	}
}

// checkInside fails when the element inner reaches past the right edge of
// outer (a table scrolling sideways in its box).
func checkInside(t *testing.T, ctx context.Context, inner, outer, what string) {
	t.Helper()
	past, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector(`+strconv.Quote(inner)+`).getBoundingClientRect().right -
		document.querySelector(`+strconv.Quote(outer)+`).getBoundingClientRect().right`))
	if err != nil || past > 0.5 {
		t.Errorf("%s: %s reaches %.1f px past %s (%v)", what, inner, past, outer, err)
	}
}
