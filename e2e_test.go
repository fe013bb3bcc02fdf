package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

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

func TestBrowserSetupSignInDashboard(t *testing.T) {
	dataDir := newDataDir(t)
	base, _ := startSked(t, dataDir)
	ctx := newBrowser(t)

	// A fresh Sked sends everyone to the setup page.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("setup-form"))); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || loc != base+"/setup" {
		t.Fatalf("fresh Sked at %q (%v), want %s/setup", loc, err, base)
	}
	screenshot(t, ctx, "01-setup")

	// A mismatched password is shown in place, without leaving the page:
	// htmx swaps the form (a marker set on the page survives), which also
	// shows that htmx works under the Content-Security-Policy.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker = 42")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("setup_code"), setupCode(t, base)),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password124"),
		chromedp.Click(chromedp.ID("setup-submit")),
		chromedp.WaitVisible(chromedp.ID("confirm-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("confirm-error")))
	if err != nil || !strings.Contains(msg, "does not match") {
		t.Fatalf("confirm error %q (%v)", msg, err)
	}
	if marker, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.skedMarker || 0")); err != nil || marker != 42 {
		t.Fatalf("the setup error reloaded the page instead of swapping the form in place (marker %d, %v)", marker, err)
	}
	screenshot(t, ctx, "02-setup-error")

	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password123"),
		chromedp.Click(chromedp.ID("setup-submit")),
		chromedp.WaitVisible(chromedp.ID("dashboard-empty")),
	)
	if err != nil {
		t.Fatal(err)
	}
	user, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("current-user")))
	if err != nil || user != "admin" {
		t.Fatalf("dashboard user %q (%v)", user, err)
	}
	screenshot(t, ctx, "03-dashboard-empty")

	// Sign out, fail once, then sign in.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.WaitVisible(chromedp.ID("signin-form")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), "wrong-password"),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("signin-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err = chromedp.Run(ctx, chromedp.Text(chromedp.ID("signin-error")))
	if err != nil || msg != "Unknown user name or wrong password." {
		t.Fatalf("sign-in error %q (%v)", msg, err)
	}
	screenshot(t, ctx, "04-signin-error")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("dashboard-empty")),
	)
	if err != nil {
		t.Fatal(err)
	}

	// Readable on a phone.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 740), chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("dashboard-empty"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "05-dashboard-375px")
}
