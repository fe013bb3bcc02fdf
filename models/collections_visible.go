package models

import "context"

// VisibleCollection is a collection whose jobs a user may see.
type VisibleCollection struct {
	ID            int64
	Name          string
	ResourceGroup string
	WorkspaceID   string
}

// Path is the collection as "workspace/resource group/collection".
func (c VisibleCollection) Path() string {
	return c.WorkspaceID + "/" + c.ResourceGroup + "/" + c.Name
}

// VisibleCollections returns the collections of the workspaces userID is
// a member of, by workspace, resource group and name.
func (s *Store) VisibleCollections(ctx context.Context, userID int64) ([]VisibleCollection, error) {
	var out []VisibleCollection
	err := s.db.WithContext(ctx).Raw(`
		SELECT c.id, c.name, rg.name AS resource_group, rg.workspace_id
		FROM job_collections c
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		WHERE `+memberOf+`
		ORDER BY rg.workspace_id, lower(rg.name), lower(c.name)`, userID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: visible collections", err)
	}
	return out, nil
}

// SearchScope returns the collections userID may see (VisibleCollections)
// and whether they are all there are (the user is a member of every
// workspace): JobSearchParams.Collections and AllCollections.
func (s *Store) SearchScope(ctx context.Context, userID int64) ([]VisibleCollection, bool, error) {
	all, err := s.seesEverything(ctx, userID)
	if err != nil {
		return nil, false, translate("models: search scope", err)
	}
	cs, err := s.VisibleCollections(ctx, userID)
	return cs, all, err
}

// collectionIDs are the ids of cs.
func collectionIDs(cs []VisibleCollection) []int64 {
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}
