package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"sked/models/problem"
	"strings"
	"time"
	"unicode"

	"gorm.io/gorm"
)

// setupLockID is the advisory lock that makes the first-run setup happen
// once even when two browsers submit it at the same moment.
const setupLockID = 0x736b6564_0001

// CompleteSetup creates the first administrator and the `default`
// workspace. Once any administrator exists it returns ErrSetupDone and
// changes nothing.
func (s *Store) CompleteSetup(ctx context.Context, u NewUser) (*User, error) {
	u.Admin = true
	if err := u.Validate(); err != nil {
		return nil, err
	}
	var created *User
	err := s.inTx(ctx, "models: setup", func(tx *gorm.DB) error {
		if err := lockSetupTx(tx); err != nil {
			return err
		}
		var err error
		created, err = s.createUserTx(tx, u)
		return err
	})
	if err != nil {
		return nil, err
	}
	return created, nil
}

// NeedsSetup reports whether no administrator exists yet, which is when the
// first-run setup page is open.
func (s *Store) NeedsSetup(ctx context.Context) (bool, error) {
	var exists bool
	err := s.db.WithContext(ctx).Raw("SELECT EXISTS (SELECT 1 FROM users WHERE is_admin)").Scan(&exists).Error
	if err != nil {
		return false, translate("models: needs setup", err)
	}
	return !exists, nil
}

// setupCodeAlphabet has no letters or digits that look alike (0/O, 1/I/L).
const setupCodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// setupCode is a row of setup_codes: the SHA-256 of a normalised code.
type setupCode struct {
	CodeHash  []byte
	CreatedAt time.Time
}

// TableName tells GORM the table.
func (setupCode) TableName() string { return "setup_codes" }

// hashSetupCode is the stored form of a setup code.
func hashSetupCode(code string) []byte {
	sum := sha256.Sum256([]byte(normalizeSetupCode(code)))
	return sum[:]
}

// normalizeSetupCode upper-cases code and drops spaces and dashes, so that
// "abcd-efgh-jkmn" and "ABCD EFGH JKMN" are the same code.
func normalizeSetupCode(code string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, code)
}

// NewSetupCode returns a new one-time setup code (three groups of four
// characters, such as "7KQX-M2DP-HW9C", about 59 bits) while no
// administrator exists, keeping only its SHA-256; every code created
// since the last setup is accepted by CompleteSetupWithCode. Once an
// administrator exists it deletes the codes left over and returns ok
// false.
func (s *Store) NewSetupCode(ctx context.Context, now time.Time) (code string, ok bool, err error) {
	raw := make([]byte, 12)
	if _, err := rand.Read(raw); err != nil {
		return "", false, fmt.Errorf("models: new setup code: %w", err)
	}
	var b strings.Builder
	for i, c := range raw {
		if i > 0 && i%4 == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(setupCodeAlphabet[int(c)%len(setupCodeAlphabet)])
	}
	code = b.String()
	err = s.inTx(ctx, "models: new setup code", func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", setupLockID).Error; err != nil {
			return translate("models: new setup code", err)
		}
		var admins int64
		if err := tx.Model(&User{}).Where("is_admin").Count(&admins).Error; err != nil {
			return translate("models: new setup code", err)
		}
		if admins > 0 {
			ok = false
			return translate("models: new setup code: delete old codes", tx.Exec("DELETE FROM setup_codes").Error)
		}
		ok = true
		row := setupCode{CodeHash: hashSetupCode(code), CreatedAt: now.UTC()}
		return translate("models: new setup code", tx.Create(&row).Error)
	})
	if err != nil || !ok {
		return "", false, err
	}
	return code, true, nil
}

// CompleteSetupWithCode is CompleteSetup for the first-run setup page: it
// also needs a setup code from NewSetupCode (compared ignoring case,
// spaces and dashes). A missing or wrong code is a *problem.List on
// "setup_code", reported together with u's problems, and creates nothing.
// Success deletes every setup code.
func (s *Store) CompleteSetupWithCode(ctx context.Context, code string, u NewUser) (*User, error) {
	u.Admin = true
	var created *User
	err := s.inTx(ctx, "models: setup", func(tx *gorm.DB) error {
		if err := lockSetupTx(tx); err != nil {
			return err
		}
		v := &problem.List{}
		if norm := normalizeSetupCode(code); norm == "" {
			v.Add("setup_code", "is required")
		} else {
			var known int64
			if err := tx.Model(&setupCode{}).Where("code_hash = ?", hashSetupCode(norm)).Count(&known).Error; err != nil {
				return translate("models: setup: check code", err)
			}
			if known == 0 {
				v.Add("setup_code", "is wrong")
			}
		}
		v.Problems = append(v.Problems, asValidation(u.Validate())...)
		if err := v.OrNil(); err != nil {
			return err
		}
		var err error
		if created, err = s.createUserTx(tx, u); err != nil {
			return err
		}
		return translate("models: setup: delete codes", tx.Exec("DELETE FROM setup_codes").Error)
	})
	if err != nil {
		return nil, err
	}
	return created, nil
}

// lockSetupTx takes the first-run setup's lock for the rest of tx and
// returns ErrSetupDone when an administrator exists already, so that two
// setups cannot both succeed.
func lockSetupTx(tx *gorm.DB) error {
	if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", setupLockID).Error; err != nil {
		return translate("models: setup", err)
	}
	var admins int64
	if err := tx.Model(&User{}).Where("is_admin").Count(&admins).Error; err != nil {
		return translate("models: setup", err)
	}
	if admins > 0 {
		return fmt.Errorf("models: setup: %w", ErrSetupDone)
	}
	return nil
}
