// Package oidctest starts a real OpenID Connect provider for tests: the
// example provider of github.com/zitadel/oidc/v3 (discovery, JWKS, a
// login page, the authorization code flow with PKCE, RS256 ID tokens) on
// an httptest server with in-memory storage, with a "groups" claim added
// to ID tokens. It is for tests only.
package oidctest

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Client id and secret of the one client the provider knows.
const (
	ClientID     = "sked"
	ClientSecret = "sked-test-secret"
)

// User is a person at the provider; ID is the subject.
type User struct {
	ID, Username, Password string
	Email                  string
	EmailVerified          bool
	Groups                 []string
}

// Provider is a running provider. Issuer is its URL (http on 127.0.0.1).
type Provider struct {
	Issuer  string
	Server  *httptest.Server
	storage *groupsStorage
}

// Start starts a provider with users and stops it when t ends. Its client
// ClientID accepts the redirect URI set with SetRedirectURI.
func Start(t testing.TB, users ...User) *Provider {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	issuer := "http://" + srv.Listener.Addr().String()
	us := userStore{users: map[string]*storage.User{}, groups: map[string][]string{}}
	for _, u := range users {
		us.users[u.ID] = &storage.User{
			ID: u.ID, Username: u.Username, Password: u.Password, Email: u.Email,
			EmailVerified: u.EmailVerified, FirstName: u.Username, PreferredLanguage: language.English,
		}
		us.groups[u.ID] = u.Groups
	}
	clients := map[string]*storage.Client{ClientID: storage.WebClient(ClientID, ClientSecret, "http://127.0.0.1/unset")}
	st := &groupsStorage{Storage: storage.NewStorageWithClients(us, clients), groups: us.groups}
	srv.Config.Handler = exampleop.SetupServer(issuer, st, nil, false)
	srv.Start()
	t.Cleanup(srv.Close)
	return &Provider{Issuer: issuer, Server: srv, storage: st}
}

// SetRedirectURI sets the one redirect URI the client may use.
func (p *Provider) SetRedirectURI(uri string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.redirect = uri
}

// ClaimsInUserinfoOnly makes the provider leave email, profile and groups
// out of the ID tokens it issues from now on: they are served only at its
// userinfo endpoint, as some providers do.
func (p *Provider) ClaimsInUserinfoOnly() {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.userinfoOnly = true
}

// SignToken signs claims as an ID token with the provider's own key, as
// the provider would; tests use it for tokens the flow cannot produce
// (expired, another audience).
func (p *Provider) SignToken(t testing.TB, claims map[string]any) string {
	t.Helper()
	key, err := p.storage.SigningKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Sign(t, key.Key().(*rsa.PrivateKey), key.ID(), claims)
}

// Sign signs claims with key (RS256) under the key id kid.
func Sign(t testing.TB, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// KeyID is the id of the provider's signing key.
func (p *Provider) KeyID(t testing.TB) string {
	key, err := p.storage.SigningKey(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return key.ID()
}

// groupsStorage is the example storage with a "groups" claim in ID tokens,
// the user's claims in the ID token itself, and a redirect URI set after
// start.
type groupsStorage struct {
	*storage.Storage
	groups map[string][]string

	mu           sync.Mutex
	redirect     string
	userinfoOnly bool
}

// SetUserinfoFromRequest adds the groups claim to the example's ID token
// claims, unless the claims are for the userinfo endpoint only.
func (s *groupsStorage) SetUserinfoFromRequest(ctx context.Context, userinfo *oidc.UserInfo, token op.IDTokenRequest, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, userinfo, token, scopes); err != nil {
		return err
	}
	s.mu.Lock()
	only := s.userinfoOnly
	s.mu.Unlock()
	if g := s.groups[token.GetSubject()]; len(g) > 0 && !only {
		userinfo.AppendClaims("groups", g)
	}
	return nil
}

// SetUserinfoFromToken adds the groups claim to the example's claims at
// the userinfo endpoint.
func (s *groupsStorage) SetUserinfoFromToken(ctx context.Context, userinfo *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := s.Storage.SetUserinfoFromToken(ctx, userinfo, tokenID, subject, origin); err != nil {
		return err
	}
	if g := s.groups[userinfo.Subject]; len(g) > 0 {
		userinfo.AppendClaims("groups", g)
	}
	return nil
}

// GetClientByClientID returns the client with the redirect URI set.
func (s *groupsStorage) GetClientByClientID(ctx context.Context, clientID string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, clientID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return redirectClient{Client: c, redirect: s.redirect, userinfoOnly: s.userinfoOnly}, nil
}

type redirectClient struct {
	op.Client
	redirect     string
	userinfoOnly bool
}

func (c redirectClient) RedirectURIs() []string { return []string{c.redirect} }

// IDTokenUserinfoClaimsAssertion puts email and profile into ID tokens,
// unless they are for the userinfo endpoint only.
func (c redirectClient) IDTokenUserinfoClaimsAssertion() bool { return !c.userinfoOnly }

// userStore is the example's UserStore over users.
type userStore struct {
	users  map[string]*storage.User
	groups map[string][]string
}

func (u userStore) GetUserByID(id string) *storage.User { return u.users[id] }

func (u userStore) GetUserByUsername(name string) *storage.User {
	for _, x := range u.users {
		if x.Username == name {
			return x
		}
	}
	return nil
}

func (u userStore) ExampleClientID() string { return storage.ServiceUserID }
