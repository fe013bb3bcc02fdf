package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"sked/web"
)

// cmdAuditList prints a workspace's audit log, newest first, one entry a
// line (time, actor, action, resource, detail; two spaces apart), filtered
// as the audit page and API filter (dates in UTC), each change's
// difference indented under it.
func cmdAuditList(ctx context.Context, sio stdio, args []string) error {
	var ws, actor, resource, action, since, until string
	var limit int
	var before int64
	cfg, rest, err := parseFlags("audit list", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", "", "the workspace (required)")
		fs.StringVar(&actor, "actor", "", "only the changes of this user (or engine)")
		fs.StringVar(&resource, "resource", "", "only the changes of this resource and what is under it, e.g. resourceGroups/rg/jobCollections/c")
		fs.StringVar(&action, "action", "", "only this action (job.put) or family (job)")
		fs.StringVar(&since, "since", "", "only changes from this day (YYYY-MM-DD, UTC) or RFC 3339 time")
		fs.StringVar(&until, "until", "", "only changes up to this day (included) or before this RFC 3339 time")
		fs.IntVar(&limit, "limit", 50, "how many entries (1–500)")
		fs.Int64Var(&before, "before", 0, "only entries older than this cursor (printed when there are more)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 0 || ws == "" {
		return usagef("usage: sked audit list --workspace WS [--actor USER] [--resource PATH] [--action ACTION] [--since DAY] [--until DAY] [--limit N] [--before CURSOR]")
	}
	q := url.Values{"actor": {actor}, "resource": {resource}, "action": {action}, "since": {since}, "until": {until},
		"$top": {strconv.Itoa(limit)}}
	if before != 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	p, err := web.ParseAuditParams(q, time.UTC)
	if pe := (*web.ParamError)(nil); errors.As(err, &pe) {
		if pe.Param == "$top" {
			pe.Param = "limit"
		}
		return usagef("audit list: --%s: %s", pe.Param, pe.Message)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("audit list: %w", err)
	}
	defer db.Close()
	w, err := db.Store.WorkspaceFold(ctx, ws)
	if err != nil {
		return inputError("audit list", "such workspace", err)
	}
	page, err := db.Store.AuditEntries(ctx, p.Filter(w.ID))
	if err != nil {
		return fmt.Errorf("audit list: %w", err)
	}
	for i := range page.Entries {
		e := &page.Entries[i]
		line := strings.Join(slices.DeleteFunc([]string{e.At.UTC().Format(time.RFC3339), web.AuditActor(e), e.Action, e.Resource, e.Detail},
			func(s string) bool { return s == "" }), "  ")
		fmt.Fprintln(sio.out, line)
		for _, c := range e.Diff {
			fmt.Fprintf(sio.out, "    %s: %s → %s\n", c.Path, dashIfEmpty(c.Old), dashIfEmpty(c.New))
		}
	}
	if page.Next > 0 {
		fmt.Fprintf(sio.err, "more entries: add --before %d\n", page.Next)
	}
	return nil
}

// dashIfEmpty is s, or "—" for an absent value.
func dashIfEmpty(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
