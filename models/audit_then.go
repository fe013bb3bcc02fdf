package models

import (
	"context"

	"gorm.io/gorm"
)

// AuditedThen is Audited with a last step: then (nil: none), when fn
// succeeded, runs on tx after the entries are appended, just before the
// commit; its error rolls everything back. A long write (an import) plans
// there what depends on the moment it commits.
func (s *Store) AuditedThen(ctx context.Context, op string, fn func(tx *Store) ([]AuditEntry, error), then func(tx *Store) error) error {
	return s.inTx(ctx, op, func(db *gorm.DB) error {
		txs := *s
		txs.db = db
		es, err := fn(&txs)
		if err != nil {
			return err
		}
		if err := insertAudit(db, es); err != nil {
			return translate(op+": audit", err)
		}
		if then == nil {
			return nil
		}
		return then(&txs)
	})
}
