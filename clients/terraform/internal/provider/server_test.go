package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	baseURL  string // e.g. http://127.0.0.1:41234
	apiToken string // bearer token of user alice
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// setupTerraform points terraform-plugin-testing at the terraform binary
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH) and turns the acceptance
// tests on: a missing terraform is a failure, never a skip or a download.
func setupTerraform() error {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		p, err := exec.LookPath("terraform")
		if err != nil {
			return errors.New("the terraform CLI (1.x) is missing: it is no Debian package; install it from HashiCorp's releases " +
				"or apt repository onto PATH, or set TF_ACC_TERRAFORM_PATH to a terraform binary")
		}
		tf = p
	}
	if _, err := os.Stat(tf); err != nil {
		return fmt.Errorf("TF_ACC_TERRAFORM_PATH=%s: %w", tf, err)
	}
	for k, v := range map[string]string{
		"TF_ACC":                    "1",
		"TF_ACC_TERRAFORM_PATH":     tf,
		"TF_ACC_PROVIDER_NAMESPACE": "sked",
		"CHECKPOINT_DISABLE":        "1",
		"TF_IN_AUTOMATION":          "1",
		"TF_CLI_CONFIG_FILE":        os.DevNull,
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// runMain builds sked, starts `sked serve` with a fresh data directory,
// creates a user and a token, runs the tests and stops the server. Any
// setup problem (no Go toolchain, a build error, no PostgreSQL, a server
// that does not become ready) is a failure, never a skip.
func runMain(m *testing.M) (code int) {
	if err := setupTerraform(); err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "sked-terraform-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// When the tests run as root the embedded PostgreSQL runs as the
	// postgres user, which must be able to enter the data directory.
	if err := os.Chmod(tmp, 0o711); err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}

	start := time.Now()
	bin := os.Getenv("SKED_TEST_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "sked")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "terraform acceptance setup: go build in %s: %v\n%s\n", root, err, out)
			return 1
		}
		fmt.Fprintf(os.Stderr, "terraform acceptance: built sked in %s\n", time.Since(start).Round(time.Millisecond))
	} else {
		fmt.Fprintf(os.Stderr, "terraform acceptance: using SKED_TEST_BIN=%s\n", bin)
	}

	srv, err := startServer(bin, filepath.Join(tmp, "data"))
	if srv != nil {
		defer func() {
			if err := srv.stop(); err != nil {
				fmt.Fprintln(os.Stderr, "terraform acceptance teardown: stopping sked:", err)
				code = 1
			}
			if code != 0 {
				srv.printLog()
			}
		}()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "terraform acceptance: sked ready at %s after %s\n", baseURL, time.Since(start).Round(time.Millisecond))

	if _, err := runCLI(bin, userPassword+"\n", "user", "add", "alice", "--admin", "--data-dir", srv.dataDir); err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}
	out, err := runCLI(bin, "", "token", "add", "alice", "--name", "terraform-acceptance", "--data-dir", srv.dataDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "terraform acceptance setup:", err)
		return 1
	}
	apiToken = strings.TrimSpace(out)
	if apiToken == "" || strings.ContainsAny(apiToken, " \n") {
		fmt.Fprintf(os.Stderr, "terraform acceptance setup: `sked token add` printed %q, want only a token\n", out)
		return 1
	}
	testDataDir, testBin = srv.dataDir, bin
	// The provider under test reads these, as a user's would.
	os.Setenv("SKED_ENDPOINT", baseURL)
	os.Setenv("SKED_TOKEN", apiToken)
	return m.Run()
}

// repoRoot is the Sked repository two directories above the module, checked
// by its go.mod.
func repoRoot() (string, error) {
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
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

// testDataDir and testBin are the running server's, for runCLIForTest.
var testDataDir, testBin string

// runCLIForTest runs `sked ARGS --data-dir …` against the test server's
// database: "user NAME" adds a user with a password.
func runCLIForTest(args ...string) (string, error) {
	if len(args) == 2 && args[0] == "user" {
		return runCLI(testBin, userPassword+"\n", "user", "add", args[1], "--data-dir", testDataDir)
	}
	return runCLI(testBin, "", append(args, "--data-dir", testDataDir)...)
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
		// Jobs may call only loopback targets.
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
