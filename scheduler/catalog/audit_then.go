package catalog

import (
	"context"
	"slices"

	"sked/models"
)

// auditedThen is audited with a last step: then (nil: none) runs on tc
// after the audit log's entries are appended, just before the commit (see
// models.Store.AuditedThen); its error rolls everything back.
func (c *Catalog) auditedThen(ctx context.Context, actor Actor, rec *record, write, then func(tc *Catalog) error) error {
	var last func(tx *models.Store) error
	if then != nil {
		last = func(tx *models.Store) error {
			tc := *c
			tc.store = tx
			return then(&tc)
		}
	}
	// Each try starts from rec as given (a retry after a deadlock runs
	// write again; appends to Parts must not survive it).
	given := *rec
	given.Parts = slices.Clip(rec.Parts)
	tries := 0
	err := c.store.AuditedThen(ctx, "catalog: "+string(rec.Op), func(tx *models.Store) ([]models.AuditEntry, error) {
		if tries++; tries > 1 {
			*rec = given
			c.cals.forget() // calendars compiled in the rolled-back try
		}
		tc := *c
		tc.store = tx
		if err := write(&tc); err != nil {
			return nil, err
		}
		return c.auditEntries(actor, rec), nil
	}, last)
	if err != nil {
		// A calendar compiled inside the rolled-back transaction may be
		// cached under a version that never was: forget them all.
		c.cals.forget()
		return err
	}
	if rec.Op != "" {
		c.changed(ctx, actor, rec.Change)
	}
	return nil
}
