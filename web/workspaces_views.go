package web

import "net/url"

// WorkspacesView is the workspaces page: the viewer's workspaces, and the
// form that creates one when the viewer may (CanCreate).
type WorkspacesView struct {
	Workspaces []WorkspaceRow
	// CanCreate is set for administrators, and for everyone when the
	// server runs with --open-workspaces.
	CanCreate bool
	Form      WorkspaceForm
	// Message is what the last change did, or "".
	Message string
	// Error is why the last change failed (a workspace not empty), or "".
	Error string
}

// WorkspaceRow is one workspace of the viewer, with the viewer's role.
type WorkspaceRow struct {
	ID, DisplayName, Role string
	Can                   Can
}

// WorkspaceForm is the create form.
type WorkspaceForm struct {
	ID, DisplayName string
	Errors          FieldErrors
}

// WorkspacePath is the path of an action on workspace id ("rename",
// "delete").
func WorkspacePath(id, action string) string {
	return "/workspaces/" + url.PathEscape(id) + "/" + action
}
