package pgserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
)

// StartTestStandby creates a streaming standby of primary in dir (created
// if missing; removed by Stop): pg_basebackup -R copies the primary over
// its unix socket and configures the copy to follow it (standby.signal,
// primary_conninfo). It starts the standby like StartTestCluster, and
// returns once it accepts (read-only) connections. Promote makes it a
// primary: a test's failover.
func StartTestStandby(ctx context.Context, primary *TestCluster, dir string) (*TestCluster, error) {
	bins, su := primary.bins, primary.su
	dir, err := testClusterDir(su, dir)
	if err != nil {
		return nil, err
	}
	_, err = run(su.command(ctx, bins, "pg_basebackup", "-D", filepath.Join(dir, "data"), "-R", "-X", "stream",
		"-c", "fast", "--no-sync", "-h", primary.dir, "-p", strconv.Itoa(port), "-U", superuser), "pg_basebackup")
	if err != nil {
		return nil, err
	}
	return startTestCluster(ctx, bins, su, dir)
}

// Promote ends a standby's recovery (pg_ctl promote) and returns once it
// accepts writes.
func (c *TestCluster) Promote(ctx context.Context) error {
	_, err := run(c.su.command(ctx, c.bins, "pg_ctl", "promote", "-w", "-t", strconv.Itoa(startTimeout),
		"-D", filepath.Join(c.dir, "data")), "pg_ctl promote")
	if err != nil {
		return fmt.Errorf("pgserver: test cluster: %w", err)
	}
	return nil
}
