package models

import (
	"context"
	"encoding/json"
	"fmt"
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
	State                  CollectionState
	MaxJobCount            *int
	MaxJobOccurrence       *int
	MaxRecurrenceFrequency *string
	MaxRecurrenceInterval  *int
	// StateNote is why the collection is not Enabled (SPEC §13.2; ''
	// for none, always '' when Enabled); StateChangedBy and StateChangedAt
	// are who last changed its state or note and when ('' and nil until a
	// writer does). Writers of PutCollection set StateChangedBy and may
	// set StateChangedAt to their now (nil: time.Now); the store keeps
	// both unless the state or the note changes.
	StateNote      string
	StateChangedBy string
	StateChangedAt *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
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
		c.State = CollectionEnabled
	}
	return s.inTx(ctx, "models: create collection", func(tx *gorm.DB) error {
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

// CollectionRef locates a collection by its ARM path.
type CollectionRef struct {
	WorkspaceID, ResourceGroup, Name string
}

// CollectionRow is a collection with the names of its group and workspace.
type CollectionRow struct {
	JobCollection
	WorkspaceID   string
	ResourceGroup string
}

// PutCollection creates the collection ref (and its resource group) or
// replaces the location, tags, SKU, state and quota of the one that exists,
// keeping its jobs. It reports whether it was created. Lowering the job
// quota below the jobs the collection holds is refused with a QuotaError.
func (s *Store) PutCollection(ctx context.Context, ref CollectionRef, c *JobCollection) (created bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		created, err = putCollectionTx(tx, ref, c)
		return err
	})
	return created, translate("models: put collection", err)
}

// putCollectionTx is PutCollection inside tx.
func putCollectionTx(tx *gorm.DB, ref CollectionRef, c *JobCollection) (bool, error) {
	if len(c.Tags) == 0 {
		c.Tags = json.RawMessage(`{}`)
	}
	rg, err := ensureResourceGroup(tx, ref.WorkspaceID, ref.ResourceGroup)
	if err != nil {
		return false, err
	}
	var existing JobCollection
	err = tx.Raw(`SELECT * FROM job_collections WHERE resource_group_id = ? AND lower(name) = lower(?) FOR UPDATE`,
		rg.ID, ref.Name).Scan(&existing).Error
	if err != nil {
		return false, err
	}
	c.ResourceGroupID = rg.ID
	stampStateNote(&existing, c)
	if existing.ID == 0 {
		c.Name = ref.Name
		return true, tx.Omit("ID", "CreatedAt", "UpdatedAt").Create(c).Error
	}
	if c.MaxJobCount != nil {
		var n int64
		if err := tx.Raw(`SELECT count(*) FROM jobs WHERE job_collection_id = ?`, existing.ID).Scan(&n).Error; err != nil {
			return false, err
		}
		if n > int64(*c.MaxJobCount) {
			return false, &QuotaError{Quota: "maxJobCount", Message: fmt.Sprintf(
				"The collection holds %d jobs, more than the new quota maxJobCount of %d: delete jobs first.", n, *c.MaxJobCount)}
		}
	}
	c.ID, c.Name, c.CreatedAt = existing.ID, existing.Name, existing.CreatedAt
	c.UpdatedAt = time.Now().UTC()
	return false, tx.Model(&JobCollection{ID: existing.ID}).Select("Location", "Tags", "SKU", "State", "MaxJobCount",
		"MaxJobOccurrence", "MaxRecurrenceFrequency", "MaxRecurrenceInterval", "UpdatedAt",
		"StateNote", "StateChangedBy", "StateChangedAt").Updates(c).Error
}

// collectionRows is the head of the queries that list collections.
const collectionRows = `SELECT c.*, rg.workspace_id, rg.name AS resource_group
	FROM job_collections c JOIN resource_groups rg ON rg.id = c.resource_group_id`

// CollectionByRef returns the collection at ref (names compared
// case-insensitively), or ErrNotFound.
func (s *Store) CollectionByRef(ctx context.Context, ref CollectionRef) (*CollectionRow, error) {
	var out []CollectionRow
	err := s.db.WithContext(ctx).Raw(collectionRows+`
		WHERE rg.workspace_id = ? AND lower(rg.name) = lower(?) AND lower(c.name) = lower(?)`,
		ref.WorkspaceID, ref.ResourceGroup, ref.Name).Scan(&out).Error
	if err != nil {
		return nil, translate("models: collection", err)
	}
	if len(out) == 0 {
		return nil, translate("models: collection", ErrNotFound)
	}
	return &out[0], nil
}

// ListCollectionsParams selects a page of ListCollections.
type ListCollectionsParams struct {
	WorkspaceID string
	// ResourceGroup, when not empty, keeps only the collections of this
	// group (compared case-insensitively).
	ResourceGroup string
	// Skip collections are skipped, then at most Limit returned.
	Skip, Limit int
}

// ListCollections returns the collections of p.WorkspaceID, of one resource
// group when p.ResourceGroup is not empty, ordered by group and name:
// p.Limit of them after skipping p.Skip.
func (s *Store) ListCollections(ctx context.Context, p ListCollectionsParams) ([]CollectionRow, error) {
	var out []CollectionRow
	q := collectionRows + ` WHERE rg.workspace_id = ?`
	args := []any{p.WorkspaceID}
	if p.ResourceGroup != "" {
		q += ` AND lower(rg.name) = lower(?)`
		args = append(args, p.ResourceGroup)
	}
	q += ` ORDER BY lower(rg.name), lower(c.name), c.id OFFSET ? LIMIT ?`
	args = append(args, p.Skip, p.Limit)
	if err := s.db.WithContext(ctx).Raw(q, args...).Scan(&out).Error; err != nil {
		return nil, translate("models: list collections", err)
	}
	return out, nil
}

// DeleteCollection deletes a collection with its jobs and their history,
// or returns ErrNotFound.
func (s *Store) DeleteCollection(ctx context.Context, id int64) error {
	var res *gorm.DB
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The collection first, for the delete: then its jobs (locks.go).
		if err := tx.Exec(`SELECT id FROM job_collections WHERE id = ? FOR UPDATE`, id).Error; err != nil {
			return err
		}
		if _, err := deleteJobs(tx, "j.job_collection_id = ?", id); err != nil {
			return err
		}
		res = tx.Delete(&JobCollection{}, id)
		return res.Error
	})
	if err != nil {
		return translate("models: delete collection", err)
	}
	if res.Error != nil {
		return translate("models: delete collection", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete collection", ErrNotFound)
	}
	return nil
}
