package models

import (
	"fmt"
	"strings"
)

// Role is what a member (or an API token) may do in a workspace (SPEC
// §13.4), stored by its name. Roles are ordered, each including the ones
// before it: reader < operator < editor < owner. The zero Role ("") is no
// role at all: not a member.
type Role string

// The roles, lowest first. They are untyped so that they compare with the
// stored names as well as with Roles.
const (
	RoleReader   = "reader"   // sees pages, fragments and the API's GETs
	RoleOperator = "operator" // also runs jobs now, enables and disables them
	RoleEditor   = "editor"   // also creates, changes, deletes and imports jobs, collections and calendars; exports
	RoleOwner    = "owner"    // also manages members and roles, renames and deletes the workspace
)

// RoleMember is the role members had before roles existed (SPEC §13.4):
// the name "member" is still read (ParseRole) and means editor, what a
// member could do, managing members aside.
const RoleMember = RoleEditor

// Roles lists the roles, lowest first.
var Roles = []Role{RoleReader, RoleOperator, RoleEditor, RoleOwner}

// rank orders the roles; 0 is no role.
func (r Role) rank() int {
	switch r {
	case RoleReader:
		return 1
	case RoleOperator:
		return 2
	case RoleEditor:
		return 3
	case RoleOwner:
		return 4
	}
	return 0
}

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// Includes reports whether r allows what need allows (an owner may do
// what an editor may); no role includes nothing.
func (r Role) Includes(need Role) bool { return r.Valid() && r.rank() >= need.rank() }

// Min returns the lower of r and o (no role when either is none).
func (r Role) Min(o Role) Role {
	if r.rank() <= o.rank() {
		return r
	}
	return o
}

// Title is the role's name with a capital letter, for badges: "Owner";
// "" for no role.
func (r Role) Title() string {
	if !r.Valid() {
		return ""
	}
	return strings.ToUpper(string(r[:1])) + string(r[1:])
}

// ParseRole reads a role's name, case-insensitively and trimmed; "member"
// reads as editor (RoleMember). Anything else is an error naming the
// roles.
func ParseRole(s string) (Role, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "member" {
		return RoleMember, nil
	}
	if r := Role(s); r.Valid() {
		return r, nil
	}
	return "", fmt.Errorf("%q is not a role: use reader, operator, editor or owner", s)
}
