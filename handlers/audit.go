package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The audit log (SPEC §13.5): the workspace's page and its API. Every
// member of a workspace may read its audit log (reader and up, as the
// route table says); nobody may change it.

// auditPage is the audit log page of a workspace (/w/{ws}/audit), filtered
// by its query (web.ParseAuditParams, dates in the viewer's zone), a
// keyset page at a time. An htmx request (the filter form, the paging
// links) gets only the #audit-results fragment; a bad parameter is a 400
// naming it.
func (s *Server) auditPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	loc := userZone(currentUser(c))
	p, err := web.ParseAuditParams(c.QueryParams(), loc)
	if pe := (*web.ParamError)(nil); errors.As(err, &pe) {
		return badRequest(pe.Param, pe.Message)
	}
	entries, err := s.store.AuditEntries(c.Request().Context(), p.Filter(ws))
	if err != nil {
		return err
	}
	now := s.clock()
	c.Response().Header().Add(echo.HeaderVary, hxRequest)
	if isHTMX(c) && c.Request().Header.Get("HX-History-Restore-Request") != "true" {
		return render(c, http.StatusOK, web.AuditResultsFragment(web.NewAuditResults(ws, p, entries, now, loc)))
	}
	return render(c, http.StatusOK, web.AuditPage(page(c, "Audit log"), web.NewAuditView(ws, p, entries, now, loc)))
}

// auditEntryJSON is an entry as the API answers it.
type auditEntryJSON struct {
	ID        int64                `json:"id"`
	Time      time.Time            `json:"time"`
	Workspace string               `json:"workspace"`
	Actor     auditActorJSON       `json:"actor"`
	Via       string               `json:"via,omitempty"`
	Address   string               `json:"address,omitempty"`
	Action    string               `json:"action"`
	Resource  string               `json:"resource"`
	Detail    string               `json:"detail,omitempty"`
	Changes   []models.AuditChange `json:"changes"`
}

// auditActorJSON is who made a change.
type auditActorJSON struct {
	Kind  models.AuditActorKind `json:"kind"`
	Name  string                `json:"name"`
	Token string                `json:"token,omitempty"`
}

// apiAudit is GET /api/v1/workspaces/{ws}/audit: a page of the audit log,
// newest first, filtered by actor, resource, action, since and until (RFC
// 3339, or dates in UTC), $top entries (default 50) at a time; nextLink
// is the next (older) page. A bad parameter is a 400 naming it.
func (s *Server) apiAudit(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	p, err := web.ParseAuditParams(c.QueryParams(), time.UTC)
	if pe := (*web.ParamError)(nil); errors.As(err, &pe) {
		return badRequest(pe.Param, pe.Message)
	}
	page, err := s.store.AuditEntries(c.Request().Context(), p.Filter(ws))
	if err != nil {
		return err
	}
	out := make([]auditEntryJSON, 0, len(page.Entries))
	for _, e := range page.Entries {
		changes := e.Diff
		if changes == nil {
			changes = []models.AuditChange{}
		}
		out = append(out, auditEntryJSON{ID: e.ID, Time: e.At.UTC(), Workspace: e.WorkspaceID,
			Actor: auditActorJSON{Kind: e.ActorKind, Name: e.ActorName, Token: e.TokenName}, Via: e.Via, Address: e.Addr,
			Action: e.Action, Resource: e.Resource, Detail: e.Detail, Changes: changes})
	}
	body := map[string]any{"value": out}
	if page.Next > 0 {
		q := p.Values()
		q.Set("before", strconv.FormatInt(page.Next, 10))
		body["nextLink"] = s.requestBase(c) + auditAPIPath(ws) + "?" + q.Encode()
	}
	return c.JSON(http.StatusOK, body)
}

// auditAPIPath is the API path of a workspace's audit log.
func auditAPIPath(ws string) string { return workspacesAPI + "/" + ws + "/audit" }

// lastChanged is the "Last changed by …" line of a job or collection page:
// the newest entry of resource in ws.
func (s *Server) lastChanged(ctx context.Context, ws, resource string) (web.LastChangedView, error) {
	e, err := s.store.LastAudit(ctx, ws, resource)
	if errors.Is(err, models.ErrNotFound) {
		return web.LastChangedView{}, nil
	}
	if err != nil {
		return web.LastChangedView{}, err
	}
	return web.NewLastChanged(ws, resource, e, s.clock()), nil
}
