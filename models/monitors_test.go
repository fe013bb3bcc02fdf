package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/testdb"
)

func TestResealMonitorTokens(t *testing.T) {
	dsn := testdb.DSN(t)
	oldKey, newKey := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	ctx := context.Background()
	old, err := models.Open(ctx, dsn, models.Options{SecretKeys: [][]byte{oldKey}})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	newCollection(t, old, "rg", "jc") // creates the default workspace
	if _, err := old.PutMonitor(ctx, models.MonitorWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "m",
		Definition: []byte(`{"schedule":{"frequency":"hour","interval":1},"grace":"PT5M","paused":false}`),
		Token:      "hb_secret", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	rotated, err := models.Open(ctx, dsn, models.Options{SecretKeys: [][]byte{newKey, oldKey}})
	if err != nil {
		t.Fatal(err)
	}
	defer rotated.Close()
	if n, err := rotated.ResealSecrets(ctx); err != nil || n != 1 {
		t.Fatalf("reseal: %d %v", n, err)
	}
	onlyNew, err := models.Open(ctx, dsn, models.Options{SecretKeys: [][]byte{newKey}})
	if err != nil {
		t.Fatal(err)
	}
	defer onlyNew.Close()
	if m, err := onlyNew.MonitorByName(ctx, models.DefaultWorkspaceID, "M"); err != nil || m.Token != "hb_secret" {
		t.Errorf("after dropping the old key: %+v %v", m, err)
	}
	// The token still finds the monitor.
	if r, err := onlyNew.RecordPing(ctx, models.MonitorTokenHash("hb_secret"), "success", time.Now(), ""); err != nil || r.Name != "m" {
		t.Errorf("ping: %+v %v", r, err)
	}
}
