package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"sked/models/jobdef"
)

// JobSecrets returns the opened secrets of job id (nil when it has none).
func (s *Store) JobSecrets(ctx context.Context, id int64) (jobdef.Secrets, error) {
	var rows []struct{ Secrets []byte }
	if err := s.db.WithContext(ctx).Raw(`SELECT secrets FROM jobs WHERE id = ?`, id).Scan(&rows).Error; err != nil {
		return nil, translate("models: job secrets", err)
	}
	if len(rows) == 0 {
		return nil, translate("models: job secrets", ErrNotFound)
	}
	sec, err := s.box.open(rows[0].Secrets)
	if err != nil {
		return nil, fmt.Errorf("models: job secrets of job %d: %w", id, err)
	}
	return sec, nil
}

// StoredJob is a job an import may replace: its id, its name as stored,
// its definition (for the audit log's difference) and its opened secrets
// (which a replacing definition that leaves them out keeps).
type StoredJob struct {
	ID         int64
	Name       string
	Definition json.RawMessage
	Secrets    jobdef.Secrets
}

// JobsWithSecrets returns the jobs of collectionID keyed by their
// lowercase name, with their secrets opened.
func (s *Store) JobsWithSecrets(ctx context.Context, collectionID int64) (map[string]StoredJob, error) {
	var rows []struct {
		ID         int64
		Name       string
		Definition []byte
		Secrets    []byte
	}
	err := s.db.WithContext(ctx).Raw(`SELECT id, name, definition, secrets FROM jobs WHERE job_collection_id = ?`, collectionID).
		Scan(&rows).Error
	if err != nil {
		return nil, translate("models: jobs with secrets", err)
	}
	out := make(map[string]StoredJob, len(rows))
	for _, r := range rows {
		sec, err := s.box.open(r.Secrets)
		if err != nil {
			return nil, fmt.Errorf("models: jobs with secrets: job %d: %w", r.ID, err)
		}
		out[strings.ToLower(r.Name)] = StoredJob{ID: r.ID, Name: r.Name, Definition: r.Definition, Secrets: sec}
	}
	return out, nil
}

// JobToChange is what a write reads of the job it replaces: its id, its
// name as stored, its state, its definition (the audit log's "before"), its state
// note and its opened secrets (which a replacing definition that leaves
// them out keeps).
type JobToChange struct {
	ID         int64
	Name       string
	State      jobdef.State
	Definition json.RawMessage
	StateNote  string
	Secrets    jobdef.Secrets
}

// ReadJobToChange returns the job named name in collectionID (compared
// case-insensitively), or ErrNotFound. With lock it locks the job's row
// FOR NO KEY UPDATE until the end of the transaction s is bound to: a
// locking read returns the row's newest committed version, also after
// waiting for another writer of it, so that what the write keeps is what
// it replaces (locks.go). Without lock it is a plain read, which a writer
// may use to prepare its write before it takes the lock.
func (s *Store) ReadJobToChange(ctx context.Context, collectionID int64, name string, lock bool) (*JobToChange, error) {
	q := `SELECT id, name, state, definition, state_note, secrets FROM jobs WHERE job_collection_id = ? AND lower(name) = lower(?)`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	var rows []struct {
		ID         int64
		Name       string
		State      jobdef.State
		Definition json.RawMessage
		StateNote  string
		Secrets    []byte
	}
	err := s.db.WithContext(ctx).Raw(q, collectionID, name).Scan(&rows).Error
	if err != nil && !lock && (lostConnection(err) || pgconn.SafeToRetry(err)) {
		// A plain read (a writer's preparation, outside its transaction)
		// on a connection the server dropped (a restart, a failover): the
		// pool's other connections are as dead, and a read is safe to
		// run again on a new one, as the write's transaction would be.
		if s.guard != nil {
			s.guard.dropAll()
		}
		rows = rows[:0]
		err = s.db.WithContext(ctx).Raw(q, collectionID, name).Scan(&rows).Error
	}
	if err != nil {
		return nil, translate("models: read job to change", err)
	}
	if len(rows) == 0 {
		return nil, translate("models: read job to change", ErrNotFound)
	}
	r := rows[0]
	sec, err := s.box.open(r.Secrets)
	if err != nil {
		return nil, fmt.Errorf("models: read job to change: job %d: %w", r.ID, err)
	}
	return &JobToChange{ID: r.ID, Name: r.Name, State: r.State, Definition: r.Definition, StateNote: r.StateNote, Secrets: sec}, nil
}
