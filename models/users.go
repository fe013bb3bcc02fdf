package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sked/models/jobdef"
	"sked/models/problem"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// User is a person who signs in to the web UI and owns API tokens.
type User struct {
	ID           int64
	Username     string
	PasswordHash string `gorm:"column:password_hash"`
	IsAdmin      bool
	Disabled     bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// TimeZone is the zone (IANA or Windows name) in which the dashboard
	// shows the user's times; "UTC" by default.
	TimeZone string `gorm:"column:time_zone;default:UTC"`
}

// TableName tells GORM the table.
func (User) TableName() string { return "users" }

// NewUser is the input for creating a user.
type NewUser struct {
	Username string
	Password string
	Admin    bool
}

// Limits on user names and passwords. bcrypt uses at most 72 bytes of a
// password, so longer ones are refused rather than silently truncated.
const (
	MinPasswordLength = 8
	MaxPasswordBytes  = 72
)

var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// Validate reports every problem with u, with fields "username" and
// "password".
func (u NewUser) Validate() error {
	v := &problem.List{}
	switch {
	case strings.TrimSpace(u.Username) == "":
		v.Add("username", "is required")
	case !usernamePattern.MatchString(u.Username):
		v.Add("username", "must be 1 to 64 letters, digits or . _ @ -, starting with a letter or digit")
	}
	switch {
	case u.Password == "":
		v.Add("password", "is required")
	case len([]rune(u.Password)) < MinPasswordLength:
		v.Add("password", fmt.Sprintf("must be at least %d characters", MinPasswordLength))
	case len(u.Password) > MaxPasswordBytes:
		v.Add("password", fmt.Sprintf("must be at most %d bytes", MaxPasswordBytes))
	}
	return v.OrNil()
}

// CreateUser validates u, hashes its password and inserts it. A name taken
// by another user (compared case-insensitively) is a *problem.List on
// "username". When no workspace exists yet, the `default` workspace is
// created; the user becomes a member of `default` (its owner when it is an
// administrator).
func (s *Store) CreateUser(ctx context.Context, u NewUser) (*User, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	var created *User
	err := s.inTx(ctx, "models: create user", func(tx *gorm.DB) error {
		var err error
		created, err = s.createUserTx(tx, u)
		return err
	})
	if err != nil {
		return nil, err
	}
	return created, nil
}

func (s *Store) createUserTx(tx *gorm.DB, u NewUser) (*User, error) {
	var taken int64
	if err := tx.Model(&User{}).Where("lower(username) = lower(?)", u.Username).Count(&taken).Error; err != nil {
		return nil, translate("models: create user", err)
	}
	if taken > 0 {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "username", Message: "is already taken"}}}
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(u.Password), s.passwordCost)
	if err != nil {
		return nil, fmt.Errorf("models: create user: hash password: %w", err)
	}
	user := &User{Username: u.Username, PasswordHash: string(hash), IsAdmin: u.Admin}
	if err := tx.Create(user).Error; err != nil {
		return nil, translate("models: create user", err)
	}
	if err := ensureDefaultWorkspace(tx); err != nil {
		return nil, err
	}
	role := RoleMember
	if u.Admin {
		role = "owner"
	}
	if err := tx.Create(&Membership{WorkspaceID: DefaultWorkspaceID, UserID: user.ID, Role: role}).Error; err != nil {
		return nil, translate("models: create user: membership", err)
	}
	return user, nil
}

// Authenticate returns the user with this name (case-insensitive) when the
// password matches. An unknown user and a wrong password both give
// ErrBadCredentials and take the same time; a disabled user with the right
// password gives ErrUserDisabled.
func (s *Store) Authenticate(ctx context.Context, username, password string) (*User, error) {
	var user User
	err := s.db.WithContext(ctx).Where("lower(username) = lower(?)", username).Take(&user).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		_ = bcrypt.CompareHashAndPassword(s.dummyHash, []byte(password))
		return nil, fmt.Errorf("models: authenticate: %w", ErrBadCredentials)
	}
	if err != nil {
		return nil, translate("models: authenticate", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(user.PasswordHash), []byte(password)) != nil {
		return nil, fmt.Errorf("models: authenticate: %w", ErrBadCredentials)
	}
	if user.Disabled {
		return nil, fmt.Errorf("models: authenticate: %w", ErrUserDisabled)
	}
	return &user, nil
}

// UserByID returns the user with id, or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id int64) (*User, error) {
	var user User
	if err := s.db.WithContext(ctx).Take(&user, id).Error; err != nil {
		return nil, translate("models: user by id", err)
	}
	return &user, nil
}

// UserByName returns the user with this name (case-insensitive), or
// ErrNotFound.
func (s *Store) UserByName(ctx context.Context, username string) (*User, error) {
	var user User
	if err := s.db.WithContext(ctx).Where("lower(username) = lower(?)", username).Take(&user).Error; err != nil {
		return nil, translate("models: user by name", err)
	}
	return &user, nil
}

// SetUserDisabled disables or enables the user with id. A disabled user
// cannot sign in: disabling also ends all of the user's sessions, in the
// same transaction.
func (s *Store) SetUserDisabled(ctx context.Context, id int64, disabled bool) error {
	return s.inTx(ctx, "models: set user disabled", func(tx *gorm.DB) error {
		res := tx.Model(&User{}).Where("id = ?", id).
			Updates(map[string]any{"disabled": disabled, "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return translate("models: set user disabled", res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: set user disabled: %w", ErrNotFound)
		}
		if disabled {
			if err := endSessionsTx(tx, id, 0).Error; err != nil {
				return translate("models: set user disabled: end sessions", err)
			}
		}
		return nil
	})
}

// Users lists every user by name (case-insensitively).
func (s *Store) Users(ctx context.Context) ([]User, error) {
	var out []User
	if err := s.db.WithContext(ctx).Order("lower(username), id").Find(&out).Error; err != nil {
		return nil, translate("models: list users", err)
	}
	return out, nil
}

// ValidatePassword reports a problem with password, on field "password",
// under the rules of NewUser.Validate.
func ValidatePassword(password string) error {
	v := &problem.List{}
	for _, p := range asValidation(NewUser{Username: "x", Password: password}.Validate()) {
		if p.Path == "password" {
			v.Add(p.Path, p.Message)
		}
	}
	return v.OrNil()
}

func asValidation(err error) []problem.Problem {
	var v *problem.List
	if errors.As(err, &v) {
		return v.Problems
	}
	return nil
}

// ResetPassword gives the user id a new password (validated as for
// NewUser; a problem is a *problem.List on "password") and ends all of
// the user's sessions, in one transaction. An unknown id gives
// ErrNotFound.
func (s *Store) ResetPassword(ctx context.Context, id int64, password string) error {
	if err := ValidatePassword(password); err != nil {
		return err
	}
	return s.setPassword(ctx, "models: reset password", id, password)
}

// ChangePassword gives userID a new password when current is their
// password, and ends all of their sessions, in one transaction. A wrong
// current password is a *problem.List on "current"; a new password the
// rules refuse (see ValidatePassword) one on "password". An unknown user
// gives ErrNotFound.
func (s *Store) ChangePassword(ctx context.Context, userID int64, current, password string) error {
	var user User
	if err := s.db.WithContext(ctx).Take(&user, userID).Error; err != nil {
		return translate("models: change password", err)
	}
	v := &problem.List{}
	if current == "" {
		v.Add("current", "is required")
	} else if bcrypt.CompareHashAndPassword([]byte(user.PasswordHash), []byte(current)) != nil {
		v.Add("current", "is wrong")
	}
	v.Problems = append(v.Problems, asValidation(ValidatePassword(password))...)
	if err := v.OrNil(); err != nil {
		return err
	}
	return s.setPassword(ctx, "models: change password", userID, password)
}

// setPassword stores password's hash for userID and ends all of the
// user's sessions, in one transaction.
func (s *Store) setPassword(ctx context.Context, op string, userID int64, password string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.passwordCost)
	if err != nil {
		return fmt.Errorf("%s: hash password: %w", op, err)
	}
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		res := tx.Model(&User{}).Where("id = ?", userID).
			Updates(map[string]any{"password_hash": string(hash), "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return translate(op, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("%s: %w", op, ErrNotFound)
		}
		if err := endSessionsTx(tx, userID, 0).Error; err != nil {
			return translate(op+": end sessions", err)
		}
		return nil
	})
}

// SetUserTimeZone stores zone (an IANA or Windows time zone name, spaces
// around it ignored) as the time zone of userID. An unknown zone is a
// *problem.List on "time_zone" and stores nothing; an unknown user is
// ErrNotFound.
func (s *Store) SetUserTimeZone(ctx context.Context, userID int64, zone string) error {
	const op = "models: set user time zone"
	zone = strings.TrimSpace(zone)
	if _, err := jobdef.LoadZone(zone); err != nil || zone == "" || len(zone) > 64 {
		v := &problem.List{}
		v.Add("time_zone", fmt.Sprintf("Time zone: %q is not a known IANA or Windows time zone", zone))
		return v
	}
	res := s.db.WithContext(ctx).Model(&User{}).Where("id = ?", userID).
		Updates(map[string]any{"time_zone": zone, "updated_at": time.Now().UTC()})
	if res.Error != nil {
		return translate(op, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}
