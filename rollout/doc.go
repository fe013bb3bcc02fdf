// Package rollout holds the rolling upgrade test (SPEC §14.4): instances
// of the previous release and of this tree run together on one database
// while the previous ones are replaced one at a time, and every occurrence
// in the meantime reaches its target exactly once.
//
// The test builds the previous release (the commit named by
// previousRelease, checked out with `git worktree add --detach`) and this
// tree, so it needs git and a clone that holds that commit (CI runs on a
// full clone; in a shallow one, `git fetch --unshallow`): without them it
// fails, saying so. It runs on a throwaway PostgreSQL cluster
// (models/testdb) and takes about three minutes, most of it waiting for
// occurrences; being its own package, it runs in parallel with the
// others under `go test ./...`.
//
// Run it alone with:
//
//	go test ./rollout -count=1 -v
package rollout
