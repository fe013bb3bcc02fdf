package testdb

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// Proxy is a TCP proxy to a Private cluster's unix socket that a test
// can cut: Hold closes every connection through it and keeps new ones
// waiting (accepted, but no byte forwarded, so a client's connect hangs)
// until Release; Freeze keeps them open but forwards nothing. A test uses it to take one client's connection away
// (the engine's listener) while the others keep theirs, or to decide
// when that client may reconnect. Safe for concurrent use; closed when
// the test ends.
type Proxy struct {
	ln     net.Listener
	socket string

	mu      sync.Mutex
	held    chan struct{} // closed on Release; nil while not held
	conns   map[net.Conn]struct{}
	waiting int // connections accepted while held
	changed chan struct{}
}

// Proxy starts a Proxy to the cluster, on a loopback port.
func (p *Private) Proxy(t testing.TB) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testdb: proxy: %v", err)
	}
	x := &Proxy{ln: ln, socket: filepath.Join(p.Dir(), ".s.PGSQL.5432"), conns: map[net.Conn]struct{}{}, changed: make(chan struct{})}
	go x.serve()
	t.Cleanup(func() {
		ln.Close()
		x.Release()
		x.closeAll()
	})
	return x
}

// DSN returns the connection string of database db through the proxy.
func (x *Proxy) DSN(db string) string {
	addr := x.ln.Addr().(*net.TCPAddr)
	return fmt.Sprintf("host=127.0.0.1 port=%d user=sked dbname=%s sslmode=disable", addr.Port, db)
}

// Hold closes every connection through the proxy and holds the new ones
// until Release.
func (x *Proxy) Hold() {
	x.mu.Lock()
	if x.held == nil {
		x.held = make(chan struct{})
	}
	x.mu.Unlock()
	x.closeAll()
}

// Freeze stops forwarding, in both directions, without closing anything,
// and holds new connections, until Release: as a server whose host died
// without closing its connections looks to its clients.
func (x *Proxy) Freeze() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.held == nil {
		x.held = make(chan struct{})
	}
}

// Release forwards the held connections and the new ones again.
func (x *Proxy) Release() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.held != nil {
		close(x.held)
		x.held = nil
		x.waiting = 0
	}
}

// Waiting returns a channel closed once at least n connections arrived
// while held or frozen (since Hold or Freeze), that is once n clients try
// to reconnect.
func (x *Proxy) Waiting(n int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			x.mu.Lock()
			w, changed := x.waiting, x.changed
			x.mu.Unlock()
			if w >= n {
				return
			}
			<-changed
		}
	}()
	return done
}

func (x *Proxy) closeAll() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for c := range x.conns {
		c.Close()
	}
	clear(x.conns)
}

// track adds (or, with add false, removes) c to the connections Hold
// closes.
func (x *Proxy) track(c net.Conn, add bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if add {
		x.conns[c] = struct{}{}
	} else {
		delete(x.conns, c)
	}
}

func (x *Proxy) serve() {
	for {
		c, err := x.ln.Accept()
		if err != nil {
			return
		}
		go x.forward(c)
	}
}

// forward waits while the proxy is held, then copies between c and the
// server until either side ends.
func (x *Proxy) forward(c net.Conn) {
	x.mu.Lock()
	held := x.held
	if held != nil {
		x.waiting++
		close(x.changed)
		x.changed = make(chan struct{})
	}
	x.mu.Unlock()
	if held != nil {
		<-held
	}
	s, err := net.Dial("unix", x.socket)
	if err != nil {
		c.Close()
		return
	}
	x.track(c, true)
	x.track(s, true)
	defer func() {
		x.track(c, false)
		x.track(s, false)
		c.Close()
		s.Close()
	}()
	done := make(chan struct{}, 2)
	go func() { x.copy(s, c); done <- struct{}{} }()
	go func() { x.copy(c, s); done <- struct{}{} }()
	<-done
}

// copy copies from src to dst until either ends, holding what it read
// while the proxy is frozen.
func (x *Proxy) copy(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			x.mu.Lock()
			held := x.held
			x.mu.Unlock()
			if held != nil {
				<-held
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
