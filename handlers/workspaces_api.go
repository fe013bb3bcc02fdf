package handlers

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
)

// workspacesAPI is the path of the workspaces' REST API (SPEC §13.4).
const workspacesAPI = "/api/v1/workspaces"

// workspaceJSON is a workspace as the API shows it, with the caller's role
// in it.
type workspaceJSON struct {
	ID          string    `json:"id"`
	DisplayName string    `json:"displayName"`
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"createdAt"`
}

// memberJSON is a member as the API shows it.
type memberJSON struct {
	Username string `json:"username"`
	Role     string `json:"role"`
}

// readJSON decodes the body of an API request (at most 64 KB) into v; a
// body that is not such a JSON object is a 400 naming field.
func readJSON(c echo.Context, field string, v any) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, 64<<10))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return badRequest(field, "the body must be a JSON object: "+err.Error())
	}
	return nil
}

// apiListWorkspaces answers GET /api/v1/workspaces: the caller's
// workspaces (those its token covers), {"value": [workspace, …]}.
func (s *Server) apiListWorkspaces(c echo.Context) error {
	ws, err := s.store.WorkspacesOf(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	out := []workspaceJSON{}
	for _, w := range ws {
		if role := s.roleIn(c, w.ID); role != "" {
			out = append(out, workspaceJSON{ID: w.ID, DisplayName: w.DisplayName, Role: string(role), CreatedAt: w.CreatedAt})
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiWorkspace resolves the workspace of the path for a member (readers
// and up); others get 403 as for every workspace they are not in.
func (s *Server) apiWorkspace(c echo.Context) (*models.Workspace, models.Role, error) {
	ws, err := s.store.WorkspaceFold(c.Request().Context(), c.Param("ws"))
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return nil, "", err
	}
	if ws == nil {
		return nil, "", &catalog.ForbiddenError{Workspace: c.Param("ws"), Need: models.RoleReader}
	}
	if err := s.authorize(c, ws.ID, models.RoleReader); err != nil {
		return nil, "", err
	}
	return ws, s.roleIn(c, ws.ID), nil
}

// apiGetWorkspace answers GET /api/v1/workspaces/{ws}.
func (s *Server) apiGetWorkspace(c echo.Context) error {
	ws, role, err := s.apiWorkspace(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, workspaceJSON{ID: ws.ID, DisplayName: ws.DisplayName, Role: string(role), CreatedAt: ws.CreatedAt})
}

// apiPutWorkspace answers PUT /api/v1/workspaces/{ws} with
// {"displayName": "…"}: 201 with the new workspace, whose owner the
// caller becomes (administrators, or everyone with --open-workspaces), or
// 200 when it exists and the caller, its owner, renamed it.
func (s *Server) apiPutWorkspace(c echo.Context) error {
	var body struct {
		DisplayName string `json:"displayName"`
	}
	if err := readJSON(c, "displayName", &body); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cur, err := s.store.WorkspaceFold(ctx, c.Param("ws"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		ws, err := s.catalog.CreateWorkspace(ctx, actorOf(c), currentUser(c).IsAdmin, s.wsPolicy, c.Param("ws"), body.DisplayName)
		if err != nil {
			return err
		}
		s.log.Info("workspace created", "workspace", ws.ID, "by", currentUser(c).Username)
		return c.JSON(http.StatusCreated, workspaceJSON{ID: ws.ID, DisplayName: ws.DisplayName, Role: models.RoleOwner, CreatedAt: ws.CreatedAt})
	case err != nil:
		return err
	}
	return s.renameWorkspaceAPI(c, cur.ID, body.DisplayName)
}

// apiPatchWorkspace answers PATCH /api/v1/workspaces/{ws} with
// {"displayName": "…"}: owners rename it.
func (s *Server) apiPatchWorkspace(c echo.Context) error {
	var body struct {
		DisplayName string `json:"displayName"`
	}
	if err := readJSON(c, "displayName", &body); err != nil {
		return err
	}
	ws, _, err := s.apiWorkspace(c)
	if err != nil {
		return err
	}
	return s.renameWorkspaceAPI(c, ws.ID, body.DisplayName)
}

func (s *Server) renameWorkspaceAPI(c echo.Context, id, displayName string) error {
	ws, err := s.catalog.RenameWorkspace(c.Request().Context(), actorOf(c), id, displayName)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, workspaceJSON{ID: ws.ID, DisplayName: ws.DisplayName, Role: string(s.roleIn(c, ws.ID)), CreatedAt: ws.CreatedAt})
}

// apiDeleteWorkspace answers DELETE /api/v1/workspaces/{ws}: owners delete
// an empty workspace (200); one that holds collections, jobs or
// calendars is 409 naming them.
func (s *Server) apiDeleteWorkspace(c echo.Context) error {
	ws, _, err := s.apiWorkspace(c)
	if err != nil {
		return err
	}
	if err := s.catalog.DeleteWorkspace(c.Request().Context(), actorOf(c), ws.ID); err != nil {
		return err
	}
	s.log.Info("workspace deleted", "workspace", ws.ID, "by", currentUser(c).Username)
	return c.NoContent(http.StatusOK)
}

// apiListMembers answers GET /api/v1/workspaces/{ws}/members:
// {"value": [{"username", "role"}, …]} by name.
func (s *Server) apiListMembers(c echo.Context) error {
	ws, _, err := s.apiWorkspace(c)
	if err != nil {
		return err
	}
	ms, err := s.store.MembersOf(c.Request().Context(), ws.ID)
	if err != nil {
		return err
	}
	out := make([]memberJSON, len(ms))
	for i, m := range ms {
		out[i] = memberJSON{Username: m.Username, Role: m.Role}
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiPutMember answers PUT /api/v1/workspaces/{ws}/members/{username}
// with {"role": "reader"}: 201 when the user was added, 200 when the role
// changed; owners only; demoting the last owner is 409.
func (s *Server) apiPutMember(c echo.Context) error {
	ws, _, err := s.apiWorkspace(c)
	if err != nil {
		return err
	}
	// Owners only (no administrator exception through the API): decided
	// before the body is read, so that others learn nothing from it.
	if err := s.authorize(c, ws.ID, models.RoleOwner); err != nil {
		return err
	}
	var body struct {
		Role string `json:"role"`
	}
	if err := readJSON(c, "role", &body); err != nil {
		return err
	}
	role, perr := models.ParseRole(body.Role)
	if perr != nil {
		return badRequest("role", perr.Error())
	}
	m, added, err := s.catalog.PutMember(c.Request().Context(), actorOf(c), currentUser(c).IsAdmin, ws.ID, c.Param("username"), role)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if added {
		status = http.StatusCreated
	}
	return c.JSON(status, memberJSON{Username: m.Username, Role: m.Role})
}

// apiDeleteMember answers DELETE /api/v1/workspaces/{ws}/members/{username}:
// owners remove a member (200); the last owner stays (409).
func (s *Server) apiDeleteMember(c echo.Context) error {
	ws, _, err := s.apiWorkspace(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	user, err := s.store.UserByName(ctx, c.Param("username"))
	if err != nil {
		return err
	}
	if err := s.catalog.RemoveMember(ctx, actorOf(c), currentUser(c).IsAdmin, ws.ID, user.ID, user.Username); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}
