package models

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"
)

// ResourceGroup groups job collections inside a workspace. It is created
// implicitly by the first collection put into it.
type ResourceGroup struct {
	ID          int64
	WorkspaceID string
	Name        string
	CreatedAt   time.Time
}

// TableName tells GORM the table.
func (ResourceGroup) TableName() string { return "resource_groups" }

// JobCollection holds jobs and their quotas. SKU is one of Free, Standard,
// P10Premium, P20Premium; State one of Enabled, Disabled, Suspended. Nil
// quota fields mean "the SKU's default".
type JobCollection struct {
	ID                     int64
	ResourceGroupID        int64
	Name                   string
	Location               string
	Tags                   json.RawMessage `gorm:"type:jsonb"`
	SKU                    string          `gorm:"column:sku"`
	State                  string
	MaxJobCount            *int
	MaxJobOccurrence       *int
	MaxRecurrenceFrequency *string
	MaxRecurrenceInterval  *int
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// TableName tells GORM the table.
func (JobCollection) TableName() string { return "job_collections" }

// CreateCollection inserts c into the resource group named group of
// workspaceID, creating the group when it does not exist yet. Empty Tags,
// SKU and State take the defaults {}, Standard and Enabled. A name already
// used in the group (case-insensitive) gives ErrConflict.
func (s *Store) CreateCollection(ctx context.Context, workspaceID, group string, c *JobCollection) error {
	if len(c.Tags) == 0 {
		c.Tags = json.RawMessage(`{}`)
	}
	if c.SKU == "" {
		c.SKU = "Standard"
	}
	if c.State == "" {
		c.State = "Enabled"
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rg, err := ensureResourceGroup(tx, workspaceID, group)
		if err != nil {
			return err
		}
		c.ResourceGroupID = rg.ID
		return translate("models: create collection", tx.Create(c).Error)
	})
}

func ensureResourceGroup(tx *gorm.DB, workspaceID, name string) (*ResourceGroup, error) {
	var rg ResourceGroup
	err := tx.Raw(`INSERT INTO resource_groups (workspace_id, name) VALUES (?, ?)
		ON CONFLICT (workspace_id, lower(name)) DO UPDATE SET name = resource_groups.name
		RETURNING id, workspace_id, name, created_at`, workspaceID, name).Scan(&rg).Error
	if err != nil {
		return nil, translate("models: ensure resource group", err)
	}
	return &rg, nil
}

// Collection returns the collection named name in group of workspaceID
// (names compared case-insensitively), or ErrNotFound.
func (s *Store) Collection(ctx context.Context, workspaceID, group, name string) (*JobCollection, error) {
	var c JobCollection
	err := s.db.WithContext(ctx).
		Joins("JOIN resource_groups rg ON rg.id = job_collections.resource_group_id").
		Where("rg.workspace_id = ? AND lower(rg.name) = lower(?) AND lower(job_collections.name) = lower(?)",
			workspaceID, group, name).
		Take(&c).Error
	if err != nil {
		return nil, translate("models: collection", err)
	}
	return &c, nil
}

// CollectionSummary is one row of the dashboard: a collection the user may
// see with its jobs counted by state.
type CollectionSummary struct {
	WorkspaceID   string
	ResourceGroup string
	Name          string
	State         string
	SKU           string `gorm:"column:sku"`
	Enabled       int64
	Disabled      int64
	Completed     int64
	Faulted       int64
}

// CollectionSummaries returns every collection in the workspaces userID
// belongs to, ordered by workspace, group and name, with job counts.
func (s *Store) CollectionSummaries(ctx context.Context, userID int64) ([]CollectionSummary, error) {
	var out []CollectionSummary
	err := s.db.WithContext(ctx).Raw(`
		SELECT rg.workspace_id, rg.name AS resource_group, c.name, c.state, c.sku,
		       count(j.id) FILTER (WHERE j.state = 'enabled')   AS enabled,
		       count(j.id) FILTER (WHERE j.state = 'disabled')  AS disabled,
		       count(j.id) FILTER (WHERE j.state = 'completed') AS completed,
		       count(j.id) FILTER (WHERE j.state = 'faulted')   AS faulted
		FROM job_collections c
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		JOIN memberships m ON m.workspace_id = rg.workspace_id AND m.user_id = ?
		LEFT JOIN jobs j ON j.job_collection_id = c.id
		GROUP BY c.id, rg.workspace_id, rg.name
		ORDER BY rg.workspace_id, lower(rg.name), lower(c.name)`, userID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: collection summaries", err)
	}
	return out, nil
}
