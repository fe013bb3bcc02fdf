package models

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// errJobExists ends CreateJob's transaction when the name is taken; it
// never leaves the package.
var errJobExists = errors.New("models: create job: the name is taken")

// CreateJob creates the job of w as SaveJob does, unless its collection
// already holds a job of that name (case-insensitive): then it writes
// nothing and returns nil, false, nil. The upsert decides: of two
// concurrent creations of one name, the second waits for the first's
// row and finds it there (upserted.Inserted false), and its transaction
// is rolled back. A missing collection is ErrNotFound. w.MustExist is
// ignored.
func (s *Store) CreateJob(ctx context.Context, w JobWrite) (*Job, bool, error) {
	var out *Job
	err := s.inTx(ctx, "models: create job", func(tx *gorm.DB) error {
		var taken []int64
		if err := tx.Raw(`SELECT id FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?)`,
			w.CollectionID, w.Name).Scan(&taken).Error; err != nil {
			return translate("models: create job", err)
		}
		if len(taken) > 0 {
			return errJobExists
		}
		txs := *s
		txs.db = tx
		w.MustExist = false
		j, created, err := txs.SaveJob(ctx, w)
		if err != nil {
			return err
		}
		if !created {
			return errJobExists
		}
		out = j
		return nil
	})
	if errors.Is(err, errJobExists) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}
