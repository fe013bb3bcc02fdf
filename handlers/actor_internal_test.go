package handlers

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
)

// TestActorOf: the actor of a request is its user, its token (API) and
// the client's address as the trusted proxies name it, with one memo of
// its roles for the whole request.
func TestActorOf(t *testing.T) {
	e := echo.New()
	e.IPExtractor = echo.IPExtractor(clientIPExtractor([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}))
	user := &models.User{ID: 42, Username: "alice"}
	for _, tc := range []struct {
		name  string
		token bool
		want  catalog.Actor
	}{
		{"page", false, catalog.Actor{UserID: 42, UserName: "alice", Addr: "198.51.100.1", Via: catalog.ViaWeb}},
		{"API", true, catalog.Actor{UserID: 42, UserName: "alice", TokenID: 7, Addr: "198.51.100.1", Via: catalog.ViaAPI}},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.RemoteAddr = "10.1.2.3:4000"
		req.Header.Set("X-Forwarded-For", "198.51.100.1")
		c := e.NewContext(req, httptest.NewRecorder())
		c.Set(ctxUser, user)
		if tc.token {
			c.Set(ctxTokenID, int64(7))
		}
		got := actorOf(c)
		if got.Roles == nil || actorOf(c).Roles != got.Roles {
			t.Errorf("%s: actorOf's role memo = %p, then %p; want one memo for the request", tc.name, got.Roles, actorOf(c).Roles)
		}
		got.Roles = nil
		if got != tc.want {
			t.Errorf("%s: actorOf = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
