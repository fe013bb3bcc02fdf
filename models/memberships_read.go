package models

import "context"

// WorkspaceMembership is a workspace a user is a member of, with the
// user's role in it: what the header's workspace switcher lists.
type WorkspaceMembership struct {
	ID          string
	DisplayName string
	Role        Role
}

// MembershipsOf returns the workspaces userID is a member of with the
// user's role in each, by id; none for a user without memberships.
func (s *Store) MembershipsOf(ctx context.Context, userID int64) ([]WorkspaceMembership, error) {
	var out []WorkspaceMembership
	err := s.db.WithContext(ctx).Raw(`
		SELECT w.id, w.display_name, m.role
		FROM memberships m
		JOIN workspaces w ON w.id = m.workspace_id
		WHERE m.user_id = ?
		ORDER BY w.id`, userID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: memberships of user", err)
	}
	return out, nil
}
