package main

import "context"

// cmdDiff implements `sked diff -f PATH [--prune]` (SPEC §15.3): the
// plan of sked apply, printed and not carried out. Exit status: 0 when
// the server matches the files, 2 when there are changes, 1 an error
// (like terraform plan -detailed-exitcode).
func cmdDiff(ctx context.Context, sio stdio, args []string) error {
	return runPlan(ctx, sio, "diff", args, planShow)
}
