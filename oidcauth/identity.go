package oidcauth

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Identity is a verified person at the provider and what the role map
// grants them.
type Identity struct {
	// Issuer and Subject name the person for good.
	Issuer, Subject string
	// Email is set only when the provider vouches for it
	// (email_verified).
	Email string
	// PreferredName is the preferred_username claim, if any.
	PreferredName string
	// Admin is true when a grant makes the user an instance
	// administrator.
	Admin bool
	// Workspaces are the workspaces the grants name, by name, with the
	// highest role granted in each (reader … owner).
	Workspaces map[string]string
}

// WorkspaceNames returns the names of Workspaces, sorted.
func (id *Identity) WorkspaceNames() []string {
	out := make([]string, 0, len(id.Workspaces))
	for ws := range id.Workspaces {
		out = append(out, ws)
	}
	sort.Strings(out)
	return out
}

// claimSet is the claims of a person, by name, as the provider wrote
// them: the ID token's, with the userinfo endpoint's added
// (withUserinfo).
type claimSet map[string]json.RawMessage

// claims are the claims Sked reads besides the registered ones.
type claims struct {
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	PreferredName string `json:"preferred_username"`
}

// identity is the person issuer and subject name, with all their claims:
// the email rules (AllowedDomains) and the role map applied.
func (c *Client) identity(issuer, subject string, all claimSet) (*Identity, error) {
	var cl claims
	if err := all.decode(&cl); err != nil {
		return nil, fmt.Errorf("%w: claims: %v", ErrInvalid, err)
	}
	verified := cl.EmailVerified == true || cl.EmailVerified == "true"
	if len(c.settings.AllowedDomains) > 0 {
		if cl.Email == "" || !verified {
			return nil, fmt.Errorf("%w: the provider sent no verified email", ErrEmailNotVerified)
		}
		if !domainAllowed(cl.Email, c.settings.AllowedDomains) {
			return nil, fmt.Errorf("%w: %s", ErrDomainNotAllowed, cl.Email)
		}
	}
	id := &Identity{Issuer: issuer, Subject: subject, PreferredName: cl.PreferredName, Workspaces: map[string]string{}}
	if verified {
		id.Email = cl.Email
	}
	if c.settings.RoleClaim != "" {
		values, err := claimValues(all, c.settings.RoleClaim)
		if err != nil {
			return nil, err
		}
		for _, g := range c.settings.RoleMap.Grants(values) {
			if g.Admin {
				id.Admin = true
				continue
			}
			if roleRank(g.Role) > roleRank(id.Workspaces[g.Workspace]) {
				id.Workspaces[g.Workspace] = g.Role
			}
		}
	}
	return id, nil
}

// decode unmarshals the claims into v.
func (all claimSet) decode(v any) error {
	b, err := json.Marshal(all)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// claimValues returns the values of the claim name: a string, or a list of
// strings (other members are ignored); absent gives none.
func claimValues(all claimSet, name string) ([]string, error) {
	raw, ok := all[name]
	if !ok {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []any
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%w: claim %q is not a string or a list of strings", ErrInvalid, name)
	}
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// roleRank orders roles: "" (none) 0, reader 1 … owner 4.
func roleRank(role string) int {
	for i, r := range Roles {
		if r == role {
			return i + 1
		}
	}
	return 0
}
