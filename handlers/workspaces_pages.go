package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// workspacesView lists the signed-in user's workspaces with the user's
// role in each.
func (s *Server) workspacesView(c echo.Context) (web.WorkspacesView, error) {
	user := currentUser(c)
	ws, err := s.store.WorkspacesOf(c.Request().Context(), user.ID)
	if err != nil {
		return web.WorkspacesView{}, err
	}
	v := web.WorkspacesView{CanCreate: user.IsAdmin || s.wsPolicy.Open}
	for _, w := range ws {
		role := string(s.roleIn(c, w.ID))
		v.Workspaces = append(v.Workspaces, web.WorkspaceRow{ID: w.ID, DisplayName: w.DisplayName, Role: role, Can: web.CanFor(role)})
	}
	return v, nil
}

// renderWorkspaces answers with the workspaces page and status, carrying
// message, error or form.
func (s *Server) renderWorkspaces(c echo.Context, status int, edit func(*web.WorkspacesView)) error {
	v, err := s.workspacesView(c)
	if err != nil {
		return err
	}
	if edit != nil {
		edit(&v)
	}
	return render(c, status, web.WorkspacesPage(page(c, "Workspaces"), v))
}

// workspacesPage shows the workspaces page.
func (s *Server) workspacesPage(c echo.Context) error {
	return s.renderWorkspaces(c, http.StatusOK, nil)
}

// createWorkspace creates a workspace from the page's form; its creator
// is its owner. A bad or taken id re-renders the form (422, or 409 when
// taken).
func (s *Server) createWorkspace(c echo.Context) error {
	form := web.WorkspaceForm{ID: c.FormValue("id"), DisplayName: c.FormValue("displayName")}
	user := currentUser(c)
	ws, err := s.catalog.CreateWorkspace(c.Request().Context(), actorOf(c), user.IsAdmin, s.wsPolicy, form.ID, form.DisplayName)
	var ce *models.ConflictError
	switch {
	case errors.As(err, &ce):
		form.Errors = web.FieldErrors{"id": "The id is taken: " + ce.Message + "."}
		return s.renderWorkspaces(c, http.StatusConflict, func(v *web.WorkspacesView) { v.Form = form })
	case err != nil:
		form.Errors = formErrors(err, map[string]string{"id": "The id", "displayName": "The display name"})
		if form.Errors == nil {
			return err
		}
		return s.renderWorkspaces(c, statusUnprocessable, func(v *web.WorkspacesView) { v.Form = form })
	}
	s.log.Info("workspace created", "workspace", ws.ID, "by", user.Username)
	return s.renderWorkspaces(c, http.StatusOK, func(v *web.WorkspacesView) {
		v.Message = "Workspace " + ws.ID + " created: you are its owner."
	})
}

// pathWorkspace is the stored id of the workspace of the path; one the
// user is not a member of is 403, as everywhere.
func (s *Server) pathWorkspace(c echo.Context) (string, error) {
	ws, ok, err := s.store.MemberWorkspace(c.Request().Context(), c.Param("ws"), currentUser(c).ID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errNotMember
	}
	return ws, nil
}

// renameWorkspace sets a workspace's display name (owners).
func (s *Server) renameWorkspace(c echo.Context) error {
	id, err := s.pathWorkspace(c)
	if err != nil {
		return err
	}
	ws, err := s.catalog.RenameWorkspace(c.Request().Context(), actorOf(c), id, c.FormValue("displayName"))
	if err != nil {
		return err
	}
	return s.renderWorkspaces(c, http.StatusOK, func(v *web.WorkspacesView) {
		v.Message = "Workspace " + ws.ID + " renamed to " + ws.DisplayName + "."
	})
}

// deleteWorkspace deletes an empty workspace (owners); one that holds
// something re-renders the page with what is left (409).
func (s *Server) deleteWorkspace(c echo.Context) error {
	id, err := s.pathWorkspace(c)
	if err != nil {
		return err
	}
	err = s.catalog.DeleteWorkspace(c.Request().Context(), actorOf(c), id)
	var ce *models.ConflictError
	if errors.As(err, &ce) {
		return s.renderWorkspaces(c, http.StatusConflict, func(v *web.WorkspacesView) {
			v.Error = "Not deleted: " + ce.Message + "."
		})
	}
	if err != nil {
		return err
	}
	s.log.Info("workspace deleted", "workspace", id, "by", currentUser(c).Username)
	return s.renderWorkspaces(c, http.StatusOK, func(v *web.WorkspacesView) {
		v.Message = "Workspace " + id + " deleted."
	})
}
