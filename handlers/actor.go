package handlers

import (
	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
)

// ctxTokenID is the context key of the id of the request's API token.
const ctxTokenID = "token_id"

// ctxRoleMemo is the context key of the request's catalog.RoleMemo.
const ctxRoleMemo = "role_memo"

// actorOf is who makes the request's change: its user (of the session or
// the API token), the token, and the client's address (behind trusted
// proxies, the one they name: see clientIPExtractor), with the request's
// memo of its roles.
func actorOf(c echo.Context) catalog.Actor {
	a := catalog.Actor{Addr: c.RealIP(), Via: catalog.ViaWeb}
	if u := currentUser(c); u != nil {
		a.UserID, a.UserName = u.ID, u.Username
	}
	if id, ok := c.Get(ctxTokenID).(int64); ok {
		a.TokenID, a.Via = id, catalog.ViaAPI
	}
	// One memo per request: the route's check and the write's read the
	// roles once.
	memo, ok := c.Get(ctxRoleMemo).(*catalog.RoleMemo)
	if !ok {
		memo = &catalog.RoleMemo{}
		c.Set(ctxRoleMemo, memo)
	}
	a.Roles = memo
	return a
}

// signedInActor is user at this request's page, for the audit log's
// sign-in and sign-out entries (the session may not carry the user yet).
func signedInActor(c echo.Context, user *models.User) catalog.Actor {
	return catalog.Actor{UserID: user.ID, UserName: user.Username, Addr: c.RealIP(), Via: catalog.ViaWeb}
}
