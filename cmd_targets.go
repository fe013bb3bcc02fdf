package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"text/tabwriter"

	"sked/client"
)

// targetCommand parses the flags of a `sked targets` command (--server,
// --token, --workspace, default "default", plus extra) and returns the
// API client, the workspace and the positional arguments.
func targetCommand(name string, sio stdio, args []string, extra func(*flag.FlagSet)) (*client.Client, string, []string, error) {
	ws := "default"
	rf, rest, err := parseRemoteFlags(name, sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", "default", "the workspace")
		if extra != nil {
			extra(fs)
		}
	})
	if err != nil {
		return nil, "", nil, err
	}
	c, err := rf.client()
	if err != nil {
		return nil, "", nil, err
	}
	return c, ws, rest, nil
}

// cmdTargetsList implements `sked targets list [--workspace WS] [--output
// table|json]` against a server (SPEC §16.2): the workspace's target
// limits with what is in flight and waiting for each host.
func cmdTargetsList(ctx context.Context, sio stdio, args []string) error {
	out := outputFormat("table")
	c, ws, rest, err := targetCommand("targets list", sio, args, func(fs *flag.FlagSet) { fs.Var(&out, "output", "table or json") })
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("usage: sked targets list [--workspace WS] [--output table|json]")
	}
	limits, err := c.TargetLimits(ctx, ws)
	if err != nil {
		return fmt.Errorf("targets list: %w", err)
	}
	if out == "json" {
		return writeJSON(sio.out, map[string]any{"value": nonNil(limits)})
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tMAX CONCURRENT\tMAX PER SECOND\tIN FLIGHT\tWAITING\tLONGEST WAIT")
	for _, l := range limits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.Host, optInt(l.MaxConcurrent), optInt(l.MaxPerSecond),
			optInt64(l.InFlight), optInt64(l.Waiting), optMs(l.LongestWaitMs))
	}
	return tw.Flush()
}

// cmdTargetsSet implements `sked targets set HOST [--max-concurrent N]
// [--max-per-second N] [--workspace WS]`: the host's limit, created or
// replaced (the editor role). At least one limit is given; the server
// checks the values and the host (a 400 naming the field).
func cmdTargetsSet(ctx context.Context, sio stdio, args []string) error {
	var maxConcurrent, maxPerSecond int
	c, ws, rest, err := targetCommand("targets set", sio, args, func(fs *flag.FlagSet) {
		fs.IntVar(&maxConcurrent, "max-concurrent", 0, "attempts in flight to the host at once, 1-100000 (0: no such limit)")
		fs.IntVar(&maxPerSecond, "max-per-second", 0, "starts to the host in any second, 1-100000 (0: no such limit)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked targets set HOST [--max-concurrent N] [--max-per-second N] [--workspace WS]")
	}
	if maxConcurrent < 0 || maxPerSecond < 0 {
		return usagef("targets set: a limit is 1 or more (0: no such limit)")
	}
	if maxConcurrent == 0 && maxPerSecond == 0 {
		return usagef("targets set: give --max-concurrent N, --max-per-second N or both")
	}
	var mc, mps *int
	if maxConcurrent > 0 {
		mc = &maxConcurrent
	}
	if maxPerSecond > 0 {
		mps = &maxPerSecond
	}
	l, err := c.PutTargetLimit(ctx, ws, rest[0], mc, mps)
	if err != nil {
		return fmt.Errorf("targets set: %w", err)
	}
	fmt.Fprintf(sio.out, "limit of %s in workspace %s: max concurrent %s, max per second %s\n", l.Host, ws,
		noLimit(l.MaxConcurrent), noLimit(l.MaxPerSecond))
	return nil
}

// cmdTargetsDelete implements `sked targets delete HOST [--workspace WS]`:
// the host's limit removed (the editor role); attempts it holds start.
func cmdTargetsDelete(ctx context.Context, sio stdio, args []string) error {
	c, ws, rest, err := targetCommand("targets delete", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked targets delete HOST [--workspace WS]")
	}
	if err := c.DeleteTargetLimit(ctx, ws, rest[0]); err != nil {
		return fmt.Errorf("targets delete: %w", err)
	}
	fmt.Fprintf(sio.out, "deleted the limit of %s in workspace %s\n", rest[0], ws)
	return nil
}

// optInt is n for a table cell, "-" when nil.
func optInt(n *int) string {
	if n == nil {
		return "-"
	}
	return strconv.Itoa(*n)
}

// optInt64 is n for a table cell, "-" when nil.
func optInt64(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

// optMs is a duration in milliseconds for a table cell ("1500ms"), "-"
// when nil or zero.
func optMs(n *int64) string {
	if n == nil || *n == 0 {
		return "-"
	}
	return strconv.FormatInt(*n, 10) + "ms"
}

// noLimit is a limit for a sentence, "none" when nil.
func noLimit(n *int) string {
	if n == nil {
		return "none"
	}
	return strconv.Itoa(*n)
}
