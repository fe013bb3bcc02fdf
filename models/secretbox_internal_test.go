package models

import (
	"bytes"
	"strings"
	"testing"

	"sked/models/jobdef"
)

func TestSecretBoxSealsAndRotates(t *testing.T) {
	oldKey := bytes.Repeat([]byte{1}, SecretKeySize)
	newKey := bytes.Repeat([]byte{2}, SecretKeySize)
	old, err := newSecretBox([][]byte{oldKey})
	if err != nil {
		t.Fatal(err)
	}
	secrets := jobdef.Secrets{"action.request.authentication.password#basic": "hunter2"}
	sealed, err := old.seal(secrets)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatal("the sealed value holds the secret in clear")
	}
	again, _ := old.seal(secrets)
	if bytes.Equal(sealed, again) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	// After rotation the new key seals and the old one still opens.
	rotated, err := newSecretBox([][]byte{newKey, oldKey})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rotated.open(sealed)
	if err != nil || got["action.request.authentication.password#basic"] != "hunter2" {
		t.Fatalf("open after rotation: %v %v", got, err)
	}
	resealed, _ := rotated.seal(got)
	if _, err := old.open(resealed); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("the old key opened a value sealed with the new one: %v", err)
	}
	// Tampering is detected.
	sealed[len(sealed)-1] ^= 1
	if _, err := rotated.open(sealed); err == nil {
		t.Error("a tampered value opened")
	}
	// No secrets seal to nothing; without a key, secrets cannot be sealed.
	if s, err := (*secretBox)(nil).seal(nil); s != nil || err != nil {
		t.Errorf("empty seal: %v %v", s, err)
	}
	if _, err := (&secretBox{}).seal(secrets); err != ErrNoSecretKey {
		t.Errorf("no key: %v", err)
	}
	if _, err := newSecretBox([][]byte{[]byte("short")}); err == nil {
		t.Error("a short key was accepted")
	}
}
