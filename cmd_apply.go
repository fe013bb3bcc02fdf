package main

import "context"

// cmdApply implements `sked apply -f PATH [--prune] [--dry-run]` (SPEC
// §15.3): it reads the JSON files of PATH (a file or a directory),
// compares them with what the server at --server holds (over the REST
// API, with --token), prints the plan (create; update with the difference
// of the definition; delete with --prune, of the jobs of the files'
// collections and the objects of the kinds their workspaces list) and
// carries it out in order, stopping at the first change the server
// refuses. Exit status: 0 applied or nothing to do, 1 an error (nothing
// is changed when the files have problems), and with --dry-run 2 when
// there are changes.
func cmdApply(ctx context.Context, sio stdio, args []string) error {
	return runPlan(ctx, sio, "apply", args, planApply)
}
