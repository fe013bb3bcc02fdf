package oidcauth

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Roles a grant of the role map may name, lowest first (SPEC §13.4).
var Roles = []string{"reader", "operator", "editor", "owner"}

// Grant is what one claim value gives: instance administration (Admin),
// or a role in a workspace.
type Grant struct {
	Admin     bool
	Workspace string
	Role      string
}

// String returns the grant as written in the map: "admin" or
// "workspace:role".
func (g Grant) String() string {
	if g.Admin {
		return "admin"
	}
	return g.Workspace + ":" + g.Role
}

// RoleMap maps values of the role claim to grants. The zero value maps
// nothing.
type RoleMap struct {
	entries []roleEntry
}

type roleEntry struct {
	value string
	grant Grant
}

var workspacePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,89}$`)

// ParseRoleMap parses entries "VALUE=GRANT" separated by ";", where GRANT
// is "admin" (instance administrator) or "WORKSPACE:ROLE" with ROLE one
// of reader, operator, editor, owner; e.g.
// "sked-admins=admin;team-a=default:editor;team-a=ops:reader". A value may
// hold "=" (the last one separates the grant) but not ";"; blanks around
// entries, values and grants are ignored; a value may appear in several
// entries. "" gives an empty map.
func ParseRoleMap(s string) (RoleMap, error) {
	var m RoleMap
	for i, raw := range strings.Split(s, ";") {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		eq := strings.LastIndex(entry, "=")
		if eq < 0 {
			return RoleMap{}, fmt.Errorf("entry %d %q is not VALUE=admin or VALUE=WORKSPACE:ROLE", i+1, entry)
		}
		value, target := strings.TrimSpace(entry[:eq]), strings.TrimSpace(entry[eq+1:])
		if value == "" {
			return RoleMap{}, fmt.Errorf("entry %d %q has no claim value before \"=\"", i+1, entry)
		}
		g, err := parseGrant(target)
		if err != nil {
			return RoleMap{}, fmt.Errorf("entry %d %q: %w", i+1, entry, err)
		}
		m.entries = append(m.entries, roleEntry{value: value, grant: g})
	}
	return m, nil
}

func parseGrant(s string) (Grant, error) {
	if s == "admin" {
		return Grant{Admin: true}, nil
	}
	ws, role, ok := strings.Cut(s, ":")
	if !ok {
		return Grant{}, fmt.Errorf("grant %q is not admin or WORKSPACE:ROLE", s)
	}
	if !workspacePattern.MatchString(ws) {
		return Grant{}, fmt.Errorf("workspace %q is not a workspace name (letters, digits, . _ -)", ws)
	}
	if !slices.Contains(Roles, role) {
		return Grant{}, fmt.Errorf("role %q is not one of %s", role, strings.Join(Roles, ", "))
	}
	return Grant{Workspace: ws, Role: role}, nil
}

// Empty reports whether m maps nothing.
func (m RoleMap) Empty() bool { return len(m.entries) == 0 }

// Grants returns the grants of the claim values, in map order, without
// duplicates.
func (m RoleMap) Grants(values []string) []Grant {
	var out []Grant
	for _, e := range m.entries {
		if slices.Contains(values, e.value) && !slices.Contains(out, e.grant) {
			out = append(out, e.grant)
		}
	}
	return out
}
