package models

import (
	"context"
	"time"
)

// stampStateNote sets who and when of the state note of c, the collection
// a write puts over existing (ID 0 when it creates it): an Enabled
// collection has no note; a change of the state or the note keeps
// c.StateChangedBy (the writer) and c.StateChangedAt (the writer's now,
// time.Now when nil); any other write keeps existing's who and when.
func stampStateNote(existing, c *JobCollection) {
	now := time.Now().UTC()
	if c.StateChangedAt != nil {
		now = *c.StateChangedAt
	}
	if c.State == CollectionEnabled {
		c.StateNote = ""
	}
	if existing.ID == 0 {
		if c.State == CollectionEnabled {
			c.StateChangedBy, c.StateChangedAt = "", nil
			return
		}
		c.StateChangedAt = &now
		return
	}
	if existing.State != c.State || existing.StateNote != c.StateNote {
		c.StateChangedAt = &now
		return
	}
	c.StateChangedBy, c.StateChangedAt = existing.StateChangedBy, existing.StateChangedAt
}

// SetCollectionStateNote sets the state (Enabled, Disabled or Suspended)
// of collection id with its note (SPEC §13.2; cleared when Enabled) and
// by, the writer's name, as who changed it at now. Jobs of a collection that
// is not Enabled do not run. It returns ErrNotFound for an unknown
// collection. The note is checked by the caller (jobdef.CheckStateNote).
func (s *Store) SetCollectionStateNote(ctx context.Context, id int64, state CollectionState, note, by string, now time.Time) error {
	if state == CollectionEnabled {
		note = ""
	}
	res := s.db.WithContext(ctx).Exec(`UPDATE job_collections SET state = ?, state_note = ?,
		    state_changed_by = ?, state_changed_at = ?, updated_at = now() WHERE id = ?`, state, note, by, now, id)
	if res.Error != nil {
		return translate("models: set collection state", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: set collection state", ErrNotFound)
	}
	return nil
}
