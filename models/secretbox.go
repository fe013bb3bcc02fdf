package models

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"sked/models/jobdef"
)

// SecretKeySize is the length of a secret key: AES-256.
const SecretKeySize = 32

// secretBox seals job secrets with AES-256-GCM. The first key seals; every
// key opens (so a key can be rotated: put the new key first and keep the
// old one until `sked secrets rotate` has re-sealed everything). A sealed
// value is: version byte 1, the first 4 bytes of SHA-256(key) naming the
// key, the 12-byte nonce, then the ciphertext and tag. Safe for concurrent
// use.
type secretBox struct {
	keys []sealKey
}

type sealKey struct {
	id   [4]byte
	aead cipher.AEAD
}

// newSecretBox prepares keys; each must be SecretKeySize bytes.
func newSecretBox(keys [][]byte) (*secretBox, error) {
	b := &secretBox{}
	for i, k := range keys {
		if len(k) != SecretKeySize {
			return nil, fmt.Errorf("models: secret key %d is %d bytes, want %d", i+1, len(k), SecretKeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, fmt.Errorf("models: secret key %d: %w", i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("models: secret key %d: %w", i+1, err)
		}
		sum := sha256.Sum256(k)
		var id [4]byte
		copy(id[:], sum[:4])
		b.keys = append(b.keys, sealKey{id: id, aead: aead})
	}
	return b, nil
}

// seal encrypts the secrets; no secrets seal to nil.
func (b *secretBox) seal(s jobdef.Secrets) ([]byte, error) {
	if len(s) == 0 {
		return nil, nil
	}
	if b == nil || len(b.keys) == 0 {
		return nil, ErrNoSecretKey
	}
	plain, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("models: seal secrets: %w", err)
	}
	k := b.keys[0]
	out := make([]byte, 0, 1+4+12+len(plain)+16)
	out = append(out, 1)
	out = append(out, k.id[:]...)
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("models: seal secrets: %w", err)
	}
	out = append(out, nonce...)
	return k.aead.Seal(out, nonce, plain, out[:5]), nil
}

// open decrypts sealed secrets; nil opens to nil.
func (b *secretBox) open(sealed []byte) (jobdef.Secrets, error) {
	if len(sealed) == 0 {
		return nil, nil
	}
	if len(sealed) < 1+4+12+16 || sealed[0] != 1 {
		return nil, errors.New("models: open secrets: not a sealed value")
	}
	if b == nil {
		return nil, ErrNoSecretKey
	}
	for _, k := range b.keys {
		if string(k.id[:]) != string(sealed[1:5]) {
			continue
		}
		ns := k.aead.NonceSize()
		plain, err := k.aead.Open(nil, sealed[5:5+ns], sealed[5+ns:], sealed[:5])
		if err != nil {
			return nil, fmt.Errorf("models: open secrets: %w", err)
		}
		var s jobdef.Secrets
		if err := json.Unmarshal(plain, &s); err != nil {
			return nil, fmt.Errorf("models: open secrets: %w", err)
		}
		return s, nil
	}
	return nil, errors.New("models: open secrets: sealed with a key that is not configured")
}
