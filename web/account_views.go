package web

import (
	"net/url"
	"strconv"
)

// AccountTime is a time formatted by the handlers: Text is what people
// read, ISO the RFC 3339 value of the <time datetime> attribute, Relative
// how far it is from the page's now ("3 h ago", "" when not known) and
// Full both ("Sun 22 Nov 2026 18:36:00 UTC (3 h ago)"; AccountTimeAt).
// The zero AccountTime is "never".
type AccountTime struct {
	Text     string
	ISO      string
	Relative string
	Full     string
}

// TokensView is the API tokens page: the create form, the token just
// created (shown once), the user's tokens and workspaces.
type TokensView struct {
	Form TokenForm
	// New is the token created by this request, or nil. Its secret is
	// shown only in this response.
	New *NewTokenView
	// Message is a short status line ("Token ci revoked."), or "".
	Message string
	Tokens  []TokenRow
	// Workspaces are the user's workspaces: the subscription ids of the
	// API, each with a link to its members.
	Workspaces []WorkspaceLink
}

// TokenForm is the create-token form.
type TokenForm struct {
	Name string
	// Role is the most the token may do ("owner" when empty); Workspace
	// the one workspace it covers ("" for all of the user's); Expires the
	// day (YYYY-MM-DD) from which it is refused ("" never).
	Role, Workspace, Expires string
	Errors                   FieldErrors
}

// NewTokenView is a token just created, with its secret.
type NewTokenView struct {
	Name  string
	Token string
}

// TokenRow is one of the user's tokens. LastUsed is zero when the token
// was never used; Revoked is zero while it is active.
type TokenRow struct {
	ID       int64
	Name     string
	Prefix   string
	Created  AccountTime
	LastUsed AccountTime
	Revoked  AccountTime
	// Role is the most the token may do; Scope the workspaces it covers
	// ("all your workspaces" or their ids); Expires when it stops working
	// (zero: never).
	Role    string
	Scope   string
	Expires AccountTime
}

// IsRevoked reports whether the token was revoked.
func (r TokenRow) IsRevoked() bool { return r.Revoked.ISO != "" }

// WorkspaceLink is a workspace the user belongs to.
type WorkspaceLink struct {
	ID          string
	DisplayName string
}

// UsersView is the users page (administrators only).
type UsersView struct {
	Form    NewUserForm
	Message string
	Users   []UserRow
}

// NewUserForm is the add-user form. Passwords are never echoed back.
type NewUserForm struct {
	Username string
	Admin    bool
	Errors   FieldErrors
}

// UserRow is one user. Self marks the signed-in administrator, who cannot
// disable their own account. Error is a problem with the last action on
// this row and PasswordError one with its reset-password form.
type UserRow struct {
	ID            int64
	Username      string
	IsAdmin       bool
	Disabled      bool
	Self          bool
	Created       AccountTime
	Error         string
	PasswordError string
}

// MembersView is the members page of a workspace.
type MembersView struct {
	WorkspaceID   string
	WorkspaceName string
	// CanManage is true for owners of the workspace and administrators:
	// they see the add form and the remove buttons.
	CanManage bool
	Form      MemberForm
	Message   string
	// Error is a problem with the last remove, or "".
	Error   string
	Members []MemberRow
}

// MemberForm is the add-member form.
type MemberForm struct {
	Username string
	Role     string
	Errors   FieldErrors
}

// MemberRow is one member. LastOwner marks the only owner, who cannot be
// removed.
type MemberRow struct {
	UserID    int64
	Username  string
	Role      string
	IsAdmin   bool
	Disabled  bool
	Self      bool
	LastOwner bool
	Joined    AccountTime
}

// MembersPath is the path of the members page of workspace id.
func MembersPath(id string) string { return "/workspaces/" + url.PathEscape(id) + "/members" }

// memberRolePath is where the role form of a member posts.
func memberRolePath(workspace string, userID int64) string {
	return MembersPath(workspace) + "/" + strconv.FormatInt(userID, 10) + "/role"
}

// memberRemovePath is where the remove button of a member posts.
func memberRemovePath(workspace string, userID int64) string {
	return MembersPath(workspace) + "/" + strconv.FormatInt(userID, 10) + "/remove"
}

// userPath is the path of an action on user id ("disable", "enable",
// "password").
func userPath(id int64, action string) string {
	return "/users/" + strconv.FormatInt(id, 10) + "/" + action
}
