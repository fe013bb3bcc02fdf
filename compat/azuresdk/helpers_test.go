package azuresdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/services/scheduler/mgmt/2016-03-01/scheduler"
	"github.com/Azure/go-autorest/autorest"
	"github.com/Azure/go-autorest/autorest/azure"
)

const (
	// subscriptionID is the workspace every user gets first.
	subscriptionID = "default"
	// password of the test user (any 8+ characters).
	userPassword = "correct horse battery"
	// serverLogTail is how many lines of the server log are printed when
	// a test fails.
	serverLogTail = 300
)

// The running server and what the tests need of it; set by TestMain.
var (
	baseURL  string        // e.g. http://127.0.0.1:41234
	apiToken string        // bearer token of user alice
	target   *targetServer // local HTTP target the jobs call
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// runMain builds sked, starts `sked serve` with a fresh data directory,
// creates a user and a token, runs the tests and stops the server. Any
// setup problem (no Go toolchain, a build error, no PostgreSQL, a server
// that does not become ready) is a failure, never a skip.
func runMain(m *testing.M) (code int) {
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat setup:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "sked-azuresdk-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat setup:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// When the tests run as root the embedded PostgreSQL runs as the
	// postgres user, which must be able to enter the data directory.
	if err := os.Chmod(tmp, 0o711); err != nil {
		fmt.Fprintln(os.Stderr, "compat setup:", err)
		return 1
	}

	start := time.Now()
	bin := os.Getenv("COMPAT_SKED_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "sked")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "compat setup: go build in %s: %v\n%s\n", root, err, out)
			return 1
		}
		fmt.Fprintf(os.Stderr, "compat: built sked in %s\n", time.Since(start).Round(time.Millisecond))
	} else {
		fmt.Fprintf(os.Stderr, "compat: using COMPAT_SKED_BIN=%s\n", bin)
	}

	target = newTarget()
	defer target.Close()

	srv, err := startServer(bin, filepath.Join(tmp, "data"))
	if srv != nil {
		defer func() {
			if err := srv.stop(); err != nil {
				fmt.Fprintln(os.Stderr, "compat teardown: stopping sked:", err)
				code = 1
			}
			if code != 0 {
				srv.printLog()
			}
		}()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat setup:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "compat: sked ready at %s after %s\n", baseURL, time.Since(start).Round(time.Millisecond))

	if _, err := runCLI(bin, userPassword+"\n", "user", "add", "alice", "--admin", "--data-dir", srv.dataDir); err != nil {
		fmt.Fprintln(os.Stderr, "compat setup:", err)
		return 1
	}
	out, err := runCLI(bin, "", "token", "add", "alice", "--name", "azuresdk-compat", "--data-dir", srv.dataDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat setup:", err)
		return 1
	}
	apiToken = strings.TrimSpace(out)
	if apiToken == "" || strings.ContainsAny(apiToken, " \n") {
		fmt.Fprintf(os.Stderr, "compat setup: `sked token add` printed %q, want only a token\n", out)
		return 1
	}
	return m.Run()
}

// repoRoot is the Sked repository two directories up, checked by its go.mod.
func repoRoot() (string, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("the Sked repository is not at %s: %w", root, err)
	}
	if !strings.HasPrefix(string(b), "module sked\n") {
		return "", fmt.Errorf("%s/go.mod is not the sked module", root)
	}
	return root, nil
}

// childEnv is the environment for sked processes: ours without any SKED_
// variable, so that e.g. a SKED_DATABASE_URL cannot redirect the test.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SKED_") {
			env = append(env, kv)
		}
	}
	return env
}

// runCLI runs a sked command with stdin and returns its stdout.
func runCLI(bin, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sked %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// server is a running `sked serve`.
type server struct {
	cmd     *exec.Cmd
	dataDir string
	log     *syncBuffer
	exited  chan struct{}
	waitErr error
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts sked serve and waits until /readyz answers 200. It
// returns the server also with an error when the process started, so that
// the caller stops it and prints its log.
func startServer(bin, dataDir string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := &server{dataDir: dataDir, log: &syncBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, "serve",
		"--data-dir", dataDir,
		"--listen", addr,
		// The jobs call the local target (httptest on loopback).
		"--allow-targets", "127.0.0.0/8,::1/128",
		"--shutdown-timeout", "10s",
	)
	s.cmd.Env = childEnv()
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sked serve: %w", err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()

	baseURL = "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-s.exited:
			return s, fmt.Errorf("sked serve exited before it was ready: %v", s.waitErr)
		default:
		}
		resp, err := client.Get(baseURL + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("sked serve at %s not ready after 60 s (last: %v)", addr, describe(resp, err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func describe(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}

// stop sends SIGTERM and waits for the process (killing it after 40 s).
func (s *server) stop() error {
	select {
	case <-s.exited:
		return fmt.Errorf("sked serve had already exited: %v", s.waitErr)
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-s.exited:
		return s.waitErr
	case <-time.After(40 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
		return errors.New("sked serve did not stop within 40 s of SIGTERM; killed")
	}
}

func (s *server) printLog() {
	lines := strings.Split(strings.TrimRight(s.log.String(), "\n"), "\n")
	if len(lines) > serverLogTail {
		fmt.Fprintf(os.Stderr, "---- sked serve log (last %d of %d lines) ----\n", serverLogTail, len(lines))
		lines = lines[len(lines)-serverLogTail:]
	} else {
		fmt.Fprintln(os.Stderr, "---- sked serve log ----")
	}
	fmt.Fprintln(os.Stderr, strings.Join(lines, "\n"))
	fmt.Fprintln(os.Stderr, "---- end of sked serve log ----")
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
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

// ---- SDK clients ----

func authorizer(token string) autorest.Authorizer {
	return autorest.NewAPIKeyAuthorizerWithHeaders(map[string]interface{}{"Authorization": "Bearer " + token})
}

// configure sets what every client needs in a test: the token, a single
// attempt (RetryAttempts 0 would send nothing) and tiny back-offs.
func configure(c *autorest.Client, token string) {
	c.Authorizer = authorizer(token)
	c.RetryAttempts = 1
	c.RetryDuration = 10 * time.Millisecond
	c.PollingDelay = 10 * time.Millisecond
	c.PollingDuration = 30 * time.Second
}

func collectionsClient() scheduler.JobCollectionsClient {
	c := scheduler.NewJobCollectionsClientWithBaseURI(baseURL, subscriptionID)
	configure(&c.Client, apiToken)
	return c
}

func jobsClient() scheduler.JobsClient {
	c := scheduler.NewJobsClientWithBaseURI(baseURL, subscriptionID)
	configure(&c.Client, apiToken)
	return c
}

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// ---- errors ----

// apiError is what a failed SDK call tells: the HTTP status and the
// service's {"error": {"code", "message"}}.
type apiError struct {
	Status  int
	Code    string
	Message string
}

// asAPIError takes an SDK error apart. The status comes from the
// autorest.DetailedError; the code and message from the azure.RequestError
// inside it (a pointer when the responder parsed it, a value when the 409
// path of DoRetryWithRegistration did).
func asAPIError(err error) (apiError, bool) {
	var out apiError
	var de autorest.DetailedError
	if !errors.As(err, &de) {
		return out, false
	}
	if sc, ok := de.StatusCode.(int); ok {
		out.Status = sc
	}
	var se *azure.ServiceError
	var rp *azure.RequestError
	var rv azure.RequestError
	switch {
	case errors.As(err, &rp) && rp != nil:
		se = rp.ServiceError
	case errors.As(err, &rv):
		se = rv.ServiceError
	}
	if se != nil {
		out.Code, out.Message = se.Code, se.Message
	}
	return out, true
}

// wantAPIError fails t unless err is an SDK error with the HTTP status.
func wantAPIError(t *testing.T, err error, status int) apiError {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want HTTP %d", status)
	}
	ae, ok := asAPIError(err)
	if !ok {
		t.Fatalf("error is not an autorest.DetailedError: %T %v", err, err)
	}
	if ae.Status != status {
		t.Fatalf("status %d, want %d; error: %v", ae.Status, status, err)
	}
	return ae
}

// ---- the local target the jobs call ----

// targetServer is an HTTP server on loopback that records what Sked sends:
// paths starting with /fail answer 500, all others 200.
type targetServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	Method, Path, Query, Body string
	Header                    http.Header
	At                        time.Time
}

func newTarget() *targetServer {
	tg := &targetServer{}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		tg.mu.Lock()
		tg.reqs = append(tg.reqs, recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Header: r.Header.Clone(), At: time.Now()})
		tg.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/fail") {
			http.Error(w, "compat target: failing on purpose", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "compat target: ok")
	}))
	return tg
}

// requests returns what arrived at path so far.
func (tg *targetServer) requests(path string) []recorded {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	var out []recorded
	for _, r := range tg.reqs {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// ---- small helpers ----

// poll calls f every interval until it returns true or d has passed; it
// returns f's last result. Used only for what another process does on its
// own time (the engine running jobs).
func poll(d, interval time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if f() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func i32(p *int32) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}
