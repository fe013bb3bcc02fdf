package models_test

import (
	"context"
	"errors"
	"testing"

	"sked/models"
	"sked/models/testdb"
)

// TestInvalidTextIsAnInputError checks the defense behind the HTTP input
// gate: text PostgreSQL refuses (a NUL byte, invalid UTF-8) comes back as
// models.ErrInvalidText, not as an unexpected error.
func TestInvalidTextIsAnInputError(t *testing.T) {
	store := testdb.Store(t)
	ctx := context.Background()
	for _, bad := range []string{"a\x00b", "a\xffb", "\xc0\xaf"} {
		_, _, err := store.MemberWorkspace(ctx, bad, 1)
		if !errors.Is(err, models.ErrInvalidText) {
			t.Errorf("MemberWorkspace(%q): %v, want ErrInvalidText", bad, err)
		}
	}
}
