package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// dataDirMode is the mode of a data directory Sked creates: the postgres
// user must pass through to the embedded cluster; the secrets inside have
// their own 0600 modes.
const dataDirMode os.FileMode = 0o711

// sessionSecretFile is where a generated session secret is kept, inside the
// data directory.
const sessionSecretFile = "session.secret"

// sessionSecret returns cfg.SessionSecret, or the secret kept in the data
// directory (which must exist), generating and saving one (mode 0600) on
// first use so that what it keys (see Config.SessionSecret) survives
// restarts. Processes that race to create it all end with the one saved
// first.
func sessionSecret(cfg Config, logger *slog.Logger) ([]byte, error) {
	if cfg.SessionSecret != "" {
		return []byte(cfg.SessionSecret), nil
	}
	path := filepath.Join(cfg.DataDir, sessionSecretFile)
	body, err := os.ReadFile(path)
	if err == nil {
		secret := strings.TrimSpace(string(body))
		if len(secret) < 32 {
			return nil, fmt.Errorf("session secret in %s is shorter than 32 characters: delete the file to generate a new one", path)
		}
		return []byte(secret), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read session secret: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("generate session secret: %w", err)
	}
	secret := hex.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return sessionSecret(cfg, logger) // another process wrote it first
	}
	if err != nil {
		return nil, fmt.Errorf("save session secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("save session secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("save session secret: %w", err)
	}
	logger.Info("generated a session secret", "path", path)
	return []byte(secret), nil
}

// secretKeyFile is where a generated job secrets key is kept, inside the
// data directory.
const secretKeyFile = "secret.key"

// secretKeys returns the keys that seal job secrets: cfg.SecretKey when
// set, else the key kept in the data directory, generated and saved (mode
// 0600, the directory created when missing) on first use. Losing that
// file makes stored secrets unreadable: back it up with the database.
func secretKeys(cfg Config, logger *slog.Logger) ([][]byte, error) {
	if cfg.SecretKey != "" {
		return decodeSecretKeys(cfg.SecretKey)
	}
	path := filepath.Join(cfg.DataDir, secretKeyFile)
	body, err := os.ReadFile(path)
	if err == nil {
		keys, err := decodeSecretKeys(strings.TrimSpace(string(body)))
		if err != nil || len(keys) == 0 {
			return nil, fmt.Errorf("secret key in %s is not 64 hex digits", path)
		}
		return keys, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read secret key: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("generate secret key: %w", err)
	}
	// A command run with --database-url may be the first to use the data
	// directory (serve creates it too).
	if err := os.MkdirAll(cfg.DataDir, dataDirMode); err != nil {
		return nil, fmt.Errorf("save secret key: create data directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return secretKeys(cfg, logger) // another process wrote it first
	}
	if err != nil {
		return nil, fmt.Errorf("save secret key: %w", err)
	}
	if _, err := f.WriteString(hex.EncodeToString(raw) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("save secret key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("save secret key: %w", err)
	}
	logger.Info("generated a key for job secrets", "path", path)
	return [][]byte{raw}, nil
}
