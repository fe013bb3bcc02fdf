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
// nothing and returns nil, false, nil. The upsert decides: a name taken
// before, or by a concurrent creation the upsert waits for, makes it
// replace that job (upserted.Inserted false), and its transaction is
// rolled back. A missing collection is ErrNotFound. w.MustExist is
// ignored.
func (s *Store) CreateJob(ctx context.Context, w JobWrite) (*Job, bool, error) {
	var out *Job
	err := s.inTx(ctx, "models: create job", func(tx *gorm.DB) error {
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
