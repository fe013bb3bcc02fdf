package web

import (
	"testing"
	"time"

	"sked/models"
)

func TestNewCollectionStateNote(t *testing.T) {
	now := time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)
	at := now.Add(-2 * time.Hour)
	for _, tc := range []struct {
		name  string
		state models.CollectionState
		note  string
		at    *time.Time
		text  string
	}{
		{"disabled with a note", models.CollectionDisabled, "vendor maintenance", &at, "Paused by alice 2 h ago: vendor maintenance"},
		{"suspended without a note", models.CollectionSuspended, "", &at, "Paused by alice 2 h ago."},
		{"disabled before any writer", models.CollectionDisabled, "", nil, ""},
		{"enabled shows none", models.CollectionEnabled, "stale", &at, ""},
	} {
		row := &models.CollectionRow{JobCollection: models.JobCollection{State: tc.state, StateNote: tc.note, StateChangedBy: "alice", StateChangedAt: tc.at}}
		if got := NewCollectionStateNote(row, now); got.Text != tc.text {
			t.Errorf("%s: %q, want %q", tc.name, got.Text, tc.text)
		}
	}
}
