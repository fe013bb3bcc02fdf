package actiontest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Azurite's well-known development account (documented by Microsoft; not a
// secret).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azuriteStartLimit bounds how long Azurite may take to listen.
const azuriteStartLimit = 90 * time.Second

// Azurite is a running Azurite queue service.
type Azurite struct {
	// URL is the service's base URL, "http://127.0.0.1:PORT" (path-style
	// addressing: the account is the first path segment).
	URL string
}

// Endpoint returns the storage endpoint template for action.Config:
// "http://127.0.0.1:PORT/{account}".
func (a *Azurite) Endpoint() string { return a.URL + "/{account}" }

// QueueURL returns the URL of queue in the development account.
func (a *Azurite) QueueURL(queue string) string { return a.URL + "/" + AzuriteAccount + "/" + queue }

// AzuriteBinary returns the path of the azurite-queue script installed by
// `npm ci` in the module's node_modules, or an error saying how to install
// it.
func AzuriteBinary() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			bin := filepath.Join(dir, "node_modules", ".bin", "azurite-queue")
			if _, err := os.Stat(bin); err != nil {
				return "", fmt.Errorf("azurite is not installed (%s missing): run `npm ci` in %s (make test does)", bin, dir)
			}
			return bin, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: cannot find node_modules")
		}
		dir = parent
	}
}

// StartAzurite starts the Azurite queue service on a free loopback port
// with its data in a temporary directory, waits until it listens, and stops
// it when the test ends. A missing Azurite fails the test.
func StartAzurite(t testing.TB) *Azurite {
	t.Helper()
	bin, err := AzuriteBinary()
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--queueHost", "127.0.0.1", "--queuePort", strconv.Itoa(port),
		"--location", t.TempDir(), "--silent", "--skipApiVersionCheck", "--loose", "--disableTelemetry")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start azurite: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		// The script runs node in the same process group: end them both.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), azuriteStartLimit)
	defer cancel()
	for {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return &Azurite{URL: "http://" + addr}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("azurite exited before listening (%v):\n%s", err, out.String())
		case <-ctx.Done():
			t.Fatalf("azurite did not listen on %s within %s:\n%s", addr, azuriteStartLimit, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
