package models

import (
	"context"
	"fmt"
	"time"

	"sked/models/jobdef"
)

// Keys of the sealed object of collection_signing.secrets.
const (
	signingCurrent  = "current"
	signingPrevious = "previous"
)

// Signing is a collection's signing secret (SPEC §13.3, signed job
// requests; migrations/0018), opened. Previous is the secret a rotation
// replaced: it still signs until PreviousUntil; "" when there is none.
type Signing struct {
	CollectionID  int64
	Current       string
	Previous      string
	PreviousUntil *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Secrets returns the secrets that sign at now, newest first: the
// current one, and the previous one while its overlap lasts.
func (g *Signing) Secrets(now time.Time) []string {
	out := []string{g.Current}
	if g.Previous != "" && g.PreviousUntil != nil && now.Before(*g.PreviousUntil) {
		out = append(out, g.Previous)
	}
	return out
}

// SigningWrite is what PutSigning writes.
type SigningWrite struct {
	CollectionID int64
	// Current signs from now on.
	Current string
	// Previous ("" for none) keeps signing until PreviousUntil.
	Previous      string
	PreviousUntil *time.Time
	// UserID (0: none) is recorded as creator or last editor.
	UserID int64
}

// signingRow is a row of collection_signing.
type signingRow struct {
	JobCollectionID int64
	Secrets         []byte
	PreviousUntil   *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// PutSigning sets the signing secret of collection w.CollectionID,
// sealed with the store's secret key (ErrNoSecretKey without one). An
// unknown collection is ErrNotFound.
func (s *Store) PutSigning(ctx context.Context, w SigningWrite) error {
	sec := jobdef.Secrets{signingCurrent: w.Current}
	var until *time.Time
	if w.Previous != "" && w.PreviousUntil != nil {
		sec[signingPrevious] = w.Previous
		u := w.PreviousUntil.UTC()
		until = &u
	}
	sealed, err := s.box.seal(sec)
	if err != nil {
		return fmt.Errorf("models: put signing secret: %w", err)
	}
	var by *int64
	if w.UserID != 0 {
		by = &w.UserID
	}
	now := time.Now().UTC()
	res := s.db.WithContext(ctx).Exec(`
		INSERT INTO collection_signing (job_collection_id, secrets, previous_until, created_at, updated_at, created_by, updated_by)
		SELECT id, ?, ?, ?, ?, ?, ? FROM job_collections WHERE id = ?
		ON CONFLICT (job_collection_id) DO UPDATE
		SET secrets = EXCLUDED.secrets, previous_until = EXCLUDED.previous_until,
		    updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
		sealed, until, now, now, by, by, w.CollectionID)
	if res.Error != nil {
		return translate("models: put signing secret", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: put signing secret", ErrNotFound)
	}
	return nil
}

// SigningOf returns the signing secret of collection collectionID,
// opened, or ErrNotFound when the collection does not sign.
func (s *Store) SigningOf(ctx context.Context, collectionID int64) (*Signing, error) {
	var rows []signingRow
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM collection_signing WHERE job_collection_id = ?`, collectionID).
		Scan(&rows).Error
	if err != nil {
		return nil, translate("models: signing secret", err)
	}
	if len(rows) == 0 {
		return nil, translate("models: signing secret", ErrNotFound)
	}
	return s.openSigning(&rows[0])
}

// openSigning opens a row's secrets.
func (s *Store) openSigning(r *signingRow) (*Signing, error) {
	sec, err := s.box.open(r.Secrets)
	if err != nil {
		return nil, fmt.Errorf("models: signing secret of collection %d: %w", r.JobCollectionID, err)
	}
	return &Signing{CollectionID: r.JobCollectionID, Current: sec[signingCurrent], Previous: sec[signingPrevious],
		PreviousUntil: r.PreviousUntil, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}, nil
}

// DeleteSigning removes the signing secret of collection collectionID:
// its jobs' requests are unsigned from now on. A collection that does
// not sign is ErrNotFound.
func (s *Store) DeleteSigning(ctx context.Context, collectionID int64) error {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM collection_signing WHERE job_collection_id = ?`, collectionID)
	if res.Error != nil {
		return translate("models: delete signing secret", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete signing secret", ErrNotFound)
	}
	return nil
}

// SigningSecretsOfJob returns the secrets that sign the HTTP requests of
// job jobID at now, newest first (see Signing.Secrets), or nil when its
// collection does not sign: the engine asks it for every HTTP attempt.
func (s *Store) SigningSecretsOfJob(ctx context.Context, jobID int64, now time.Time) ([]string, error) {
	var rows []signingRow
	err := s.db.WithContext(ctx).Raw(`
		SELECT g.* FROM collection_signing g JOIN jobs j ON j.job_collection_id = g.job_collection_id
		WHERE j.id = ?`, jobID).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: signing secrets of job", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	g, err := s.openSigning(&rows[0])
	if err != nil {
		return nil, err
	}
	return g.Secrets(now), nil
}

// SigningStatus is whether and since when a collection signs, without
// its secrets: what the ARM collection shows as properties.signing.
// PreviousUntil is when the secret a rotation replaced stops signing (nil:
// there is none, or the rotation had no overlap); it may be past.
type SigningStatus struct {
	CollectionID  int64
	PreviousUntil *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// SigningStatuses returns the signing status of those of the collections
// collectionIDs that sign, by collection id (a collection missing from
// the map does not sign). It opens no secret.
func (s *Store) SigningStatuses(ctx context.Context, collectionIDs []int64) (map[int64]SigningStatus, error) {
	out := map[int64]SigningStatus{}
	if len(collectionIDs) == 0 {
		return out, nil
	}
	var rows []SigningStatus
	err := s.db.WithContext(ctx).Raw(`
		SELECT job_collection_id AS collection_id, previous_until, created_at, updated_at
		FROM collection_signing WHERE job_collection_id IN ?`, collectionIDs).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: signing statuses", err)
	}
	for _, r := range rows {
		out[r.CollectionID] = r
	}
	return out, nil
}
