package models

import (
	"bytes"
	"context"
	"fmt"

	"gorm.io/gorm"
)

// sealedTables are the tables with a sealed column, and its name.
var sealedTables = []struct{ table, column string }{{"jobs", "secrets"}, {"channels", "secrets"}, {"monitors", "token_sealed"}}

// ResealSecrets re-encrypts the secrets of every job and notification
// channel, and the ping token of every heartbeat monitor, that are not sealed with the first secret key yet, in batches
// of 500 per transaction, and returns how many it re-encrypted. After
// it, the older keys can be removed from the configuration. Safe to run
// while Sked serves.
func (s *Store) ResealSecrets(ctx context.Context) (int, error) {
	if s.box == nil || len(s.box.keys) == 0 {
		return 0, fmt.Errorf("models: reseal secrets: %w", ErrNoSecretKey)
	}
	total := 0
	for _, t := range sealedTables {
		n, err := s.resealTable(ctx, t.table, t.column)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// resealTable is ResealSecrets for one table of sealedTables.
func (s *Store) resealTable(ctx context.Context, table, column string) (int, error) {
	first := s.box.keys[0].id
	total := 0
	var after int64
	for {
		var rows []struct {
			ID      int64
			Secrets []byte
		}
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := tx.Raw(`SELECT id, `+column+` AS secrets FROM `+table+` WHERE `+column+` IS NOT NULL AND id > ? ORDER BY id LIMIT 500 FOR UPDATE`,
				after).Scan(&rows).Error; err != nil {
				return err
			}
			for _, r := range rows {
				after = r.ID
				if len(r.Secrets) > 5 && bytes.Equal(r.Secrets[1:5], first[:]) {
					continue
				}
				sec, err := s.box.open(r.Secrets)
				if err != nil {
					return fmt.Errorf("%s %d: %w", table, r.ID, err)
				}
				sealed, err := s.box.seal(sec)
				if err != nil {
					return err
				}
				if err := tx.Exec(`UPDATE `+table+` SET `+column+` = ? WHERE id = ?`, sealed, r.ID).Error; err != nil {
					return err
				}
				total++
			}
			return nil
		})
		if err != nil {
			return total, translate("models: reseal secrets", err)
		}
		if len(rows) < 500 {
			return total, nil
		}
	}
}
