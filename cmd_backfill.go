package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"sked/client"
)

// cmdJobsBackfill implements `sked jobs backfill JOB --resource-group RG
// --collection JC --from T --to T [--only missing|failed|all] [--order
// oldestFirst|newestFirst] [--max-concurrent N] [--dry-run] [--output
// table|json]` against a server (SPEC §16.3): the job's occurrences in
// [from, to) and what happens to each, and the backfill started (none
// with --dry-run). The server checks the values (a 400 naming the
// field).
func cmdJobsBackfill(ctx context.Context, sio stdio, args []string) error {
	var from, to, only, order string
	var maxConcurrent int
	var dry bool
	out := outputFormat("table")
	c, ref, name, err := jobCommand("jobs backfill", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&from, "from", "", "the first instant of the range, included (RFC 3339)")
		fs.StringVar(&to, "to", "", "the end of the range, excluded (RFC 3339, not in the future)")
		fs.StringVar(&only, "only", "", "which occurrences: missing (default: not succeeded), failed or all")
		fs.StringVar(&order, "order", "", "oldestFirst (default) or newestFirst")
		fs.IntVar(&maxConcurrent, "max-concurrent", 0, "runs in flight at once, 1-20 (default 1)")
		fs.BoolVar(&dry, "dry-run", false, "only list what would happen")
		fs.Var(&out, "output", "table or json")
	})
	if err != nil {
		return err
	}
	req := client.BackfillRequest{Only: only, Order: order, MaxConcurrent: maxConcurrent, DryRun: dry}
	if req.From, err = time.Parse(time.RFC3339Nano, from); err != nil {
		return usagef("jobs backfill: --from %q is not an RFC 3339 instant such as 2026-01-01T00:00:00Z", from)
	}
	if req.To, err = time.Parse(time.RFC3339Nano, to); err != nil {
		return usagef("jobs backfill: --to %q is not an RFC 3339 instant such as 2026-01-01T00:00:00Z", to)
	}
	res, err := c.Backfill(ctx, ref, name, req)
	if err != nil {
		return fmt.Errorf("jobs backfill: %w", err)
	}
	if out == "json" {
		return writeJSON(sio.out, res)
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPECTED TIME\tACTION\tREASON")
	for _, o := range res.Occurrences {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", o.ExpectedTime.UTC().Format(time.RFC3339), o.Action, o.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if res.Backfill == nil {
		fmt.Fprintf(sio.out, "dry run: %d to run, %d skipped\n", res.Run, res.Skipped)
		return nil
	}
	fmt.Fprintf(sio.out, "started backfill %d of job %s/%s: %d to run, %d skipped\n", res.Backfill.ID, ref, name, res.Run, res.Skipped)
	return nil
}
