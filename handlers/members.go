package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// errNotMember answers users who are not members of the workspace in the
// path (whether it exists or not, as the REST API does).
var errNotMember = echo.NewHTTPError(http.StatusForbidden, "You are not a member of this workspace.")

// errCannotManage answers members who may not change the membership.
var errCannotManage = echo.NewHTTPError(http.StatusForbidden,
	"Only owners of this workspace and administrators can add or remove members.")

// memberAccess is the signed-in user's standing in the workspace of the
// path.
type memberAccess struct {
	workspace string // the workspace id as stored
	canManage bool   // an owner, or an administrator
}

// memberOf resolves the workspace of the path (case-insensitively) for
// the signed-in user, who must be a member.
func (s *Server) memberOf(c echo.Context) (memberAccess, error) {
	ctx := c.Request().Context()
	user := currentUser(c)
	ws, ok, err := s.store.MemberWorkspace(ctx, c.Param("ws"), user.ID)
	if err != nil {
		return memberAccess{}, err
	}
	if !ok {
		return memberAccess{}, errNotMember
	}
	role, ok, err := s.store.MemberRole(ctx, ws, user.ID)
	if err != nil {
		return memberAccess{}, err
	}
	if !ok { // removed a moment ago
		return memberAccess{}, errNotMember
	}
	return memberAccess{workspace: ws, canManage: role == models.RoleOwner || user.IsAdmin}, nil
}

// membersPage lists the members of a workspace (members only).
func (s *Server) membersPage(c echo.Context) error {
	m, err := s.memberOf(c)
	if err != nil {
		return err
	}
	v, err := s.membersView(c.Request().Context(), m, currentUser(c).ID)
	if err != nil {
		return err
	}
	return s.renderMembers(c, http.StatusOK, v)
}

// addMember adds a user, by name, as member or owner. An unknown name or
// an existing member re-renders the form with the error (422).
func (s *Server) addMember(c echo.Context) error {
	ctx := c.Request().Context()
	user := currentUser(c)
	m, err := s.memberOf(c)
	if err != nil {
		return err
	}
	if !m.canManage {
		return errCannotManage
	}
	form := web.MemberForm{Username: c.FormValue("username"), Role: c.FormValue("role")}
	added, err := s.catalog.AddMember(ctx, actorOf(c), user.IsAdmin, m.workspace, form.Username, form.Role)
	form.Errors = formErrors(err, map[string]string{"username": "The user name", "role": "The role"})
	if err != nil && form.Errors == nil {
		return err
	}
	v, err := s.membersView(ctx, m, user.ID)
	if err != nil {
		return err
	}
	if form.Errors != nil {
		v.Form = form
		return s.renderMembers(c, statusUnprocessable, v)
	}
	v.Message = added.Username + " added as " + added.Role + "."
	s.log.Info("member added", "workspace", m.workspace, "user", added.Username, "role", added.Role, "by", user.Username)
	return s.renderMembers(c, http.StatusOK, v)
}

// removeMember removes a member; the last owner stays (422 with the
// reason). Users who remove themselves go to the dashboard.
func (s *Server) removeMember(c echo.Context) error {
	ctx := c.Request().Context()
	user := currentUser(c)
	m, removed, err := s.managedMember(c)
	if err != nil {
		return err
	}
	id := removed.ID
	err = s.catalog.RemoveMember(ctx, actorOf(c), user.IsAdmin, m.workspace, id, removed.Username)
	if errors.Is(err, models.ErrLastOwner) {
		v, verr := s.membersView(ctx, m, user.ID)
		if verr != nil {
			return verr
		}
		v.Error = removed.Username + " is the last owner of " + m.workspace + " and cannot be removed: add another owner first."
		return s.renderMembers(c, statusUnprocessable, v)
	}
	if err != nil {
		return err
	}
	s.log.Info("member removed", "workspace", m.workspace, "user", removed.Username, "by", user.Username)
	if id == user.ID {
		return redirect(c, "/")
	}
	v, err := s.membersView(ctx, m, user.ID)
	if err != nil {
		return err
	}
	v.Message = removed.Username + " removed from " + m.workspace + "."
	return s.renderMembers(c, http.StatusOK, v)
}

// setMemberRole sets a member's role from the members page (owners and
// administrators); demoting the last owner re-renders the list with the
// reason (409).
func (s *Server) setMemberRole(c echo.Context) error {
	ctx := c.Request().Context()
	user := currentUser(c)
	m, target, err := s.managedMember(c)
	if err != nil {
		return err
	}
	role, perr := models.ParseRole(c.FormValue("role"))
	if perr != nil {
		return badRequest("role", perr.Error())
	}
	_, _, err = s.catalog.PutMember(ctx, actorOf(c), user.IsAdmin, m.workspace, target.Username, role)
	v, verr := s.membersView(ctx, m, user.ID)
	if verr != nil {
		return verr
	}
	if errors.Is(err, models.ErrLastOwner) {
		v.Error = target.Username + " is the last owner of " + m.workspace + ": make another member owner first."
		return s.renderMembers(c, http.StatusConflict, v)
	}
	if err != nil {
		return err
	}
	s.log.Info("member role set", "workspace", m.workspace, "user", target.Username, "role", string(role), "by", user.Username)
	v.Message = target.Username + " is now " + string(role) + "."
	return s.renderMembers(c, http.StatusOK, v)
}

func (s *Server) membersView(ctx context.Context, m memberAccess, self int64) (web.MembersView, error) {
	ws, err := s.store.Workspace(ctx, m.workspace)
	if err != nil {
		return web.MembersView{}, err
	}
	members, err := s.store.MembersOf(ctx, m.workspace)
	if err != nil {
		return web.MembersView{}, err
	}
	owners := 0
	for _, mem := range members {
		if mem.Role == models.RoleOwner {
			owners++
		}
	}
	v := web.MembersView{WorkspaceID: ws.ID, WorkspaceName: ws.DisplayName, CanManage: m.canManage}
	now := s.clock()
	for _, mem := range members {
		v.Members = append(v.Members, web.MemberRow{
			UserID: mem.UserID, Username: mem.Username, Role: mem.Role, IsAdmin: mem.IsAdmin, Disabled: mem.Disabled,
			Self: mem.UserID == self, LastOwner: mem.Role == models.RoleOwner && owners == 1, Joined: accountTimeView(mem.CreatedAt, now),
		})
	}
	return v, nil
}

// renderMembers sends the members section to htmx and the whole page
// otherwise.
func (s *Server) renderMembers(c echo.Context, status int, v web.MembersView) error {
	if isHTMX(c) {
		return render(c, status, web.MembersSection(csrfToken(c), v))
	}
	return render(c, status, web.MembersPage(page(c, "Members of "+v.WorkspaceID), v))
}

// managedMember is the workspace of a members page the signed-in user
// manages (an owner or an administrator; errCannotManage otherwise) and
// the user its :id names.
func (s *Server) managedMember(c echo.Context) (memberAccess, *models.User, error) {
	m, err := s.memberOf(c)
	if err != nil {
		return m, nil, err
	}
	if !m.canManage {
		return m, nil, errCannotManage
	}
	id, err := accountPathID(c, "id")
	if err != nil {
		return m, nil, err
	}
	u, err := s.store.UserByID(c.Request().Context(), id)
	return m, u, err
}
