package action

import (
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net/http"
	"sync"

	"sked/models/jobdef"
)

// maxCertClients bounds the certificate clients kept; when full, the cache
// is emptied (and their idle connections closed).
const maxCertClients = 256

// certClients keeps one client per client certificate: connections made
// with one certificate are never reused for another. Every client dials
// through the shared Guard. Safe for concurrent use.
type certClients struct {
	guard *Guard
	roots *x509.CertPool

	mu      sync.Mutex
	clients map[[32]byte]*http.Client
}

func newCertClients(g *Guard, roots *x509.CertPool) *certClients {
	return &certClients{guard: g, roots: roots, clients: map[[32]byte]*http.Client{}}
}

// get returns the client presenting the certificate of the base64
// PKCS#12 archive pfx, opened with password. The error never contains
// either.
func (c *certClients) get(pfx, password string) (*http.Client, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s:%s", len(pfx), pfx, password)
	var key [32]byte
	h.Sum(key[:0])
	c.mu.Lock()
	client := c.clients[key]
	c.mu.Unlock()
	if client != nil {
		return client, nil
	}
	cert, _, err := jobdef.DecodePfx(pfx, password)
	if err != nil {
		return nil, fmt.Errorf("clientCertificate: the pfx %w", err)
	}
	client = newClient(newTransport(c.guard, c.roots, &cert))
	c.mu.Lock()
	defer c.mu.Unlock()
	if existing := c.clients[key]; existing != nil {
		return existing, nil
	}
	if len(c.clients) >= maxCertClients {
		for k, old := range c.clients {
			old.CloseIdleConnections()
			delete(c.clients, k)
		}
	}
	c.clients[key] = client
	return client, nil
}

// closeIdle closes the idle connections of every certificate client.
func (c *certClients) closeIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, client := range c.clients {
		client.CloseIdleConnections()
	}
}
