package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// importProgressEvery is how often `sked import` reports progress on
// stderr (in jobs checked), for files of at least that many jobs.
const importProgressEvery = 1000

// cmdImport implements `sked import FILE [--dry-run] [--mode all|valid]
// [--on-conflict skip|replace] [--user NAME] [--subscription WS]
// [--resource-group RG] [--collection JC]` (SPEC §8): it checks the jobs
// of FILE (or stdin for "-"), prints the report as a table and, unless
// --dry-run, writes them in one transaction. Invalid input (a bad file,
// invalid jobs) exits with status 2, the problems on stderr.
func cmdImport(ctx context.Context, sio stdio, args []string) error {
	var dryRun bool
	var mode, onConflict, userName, sub, group, coll string
	cfg, rest, err := parseFlags("import", sio, args, func(fs *flag.FlagSet) {
		fs.BoolVar(&dryRun, "dry-run", false, "check and report only: write nothing")
		fs.StringVar(&mode, "mode", catalog.ModeAll, "all: every job or, when one is invalid, none; valid: the valid jobs")
		fs.StringVar(&onConflict, "on-conflict", catalog.OnConflictReplace, "what to do with jobs that exist: replace or skip")
		fs.StringVar(&userName, "user", "", "import as this user: only into workspaces the user is a member of")
		fs.StringVar(&sub, "subscription", "", "workspace to import everything into (default: the one each job's id names, else \"default\")")
		fs.StringVar(&group, "resource-group", "", "resource group of --collection")
		fs.StringVar(&coll, "collection", "", "collection for the jobs that do not name theirs (flat jobs, ARM jobs without id)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked import FILE [--dry-run] [--mode all|valid] [--on-conflict skip|replace] [--user NAME] [--subscription WS] [--resource-group RG] [--collection JC] (FILE - reads stdin)")
	}
	if (group == "") != (coll == "") {
		return usagef("import: give --resource-group and --collection together")
	}
	opts := catalog.ImportOptions{DryRun: dryRun, Mode: mode, OnConflict: onConflict}
	if mode != catalog.ModeAll && mode != catalog.ModeValid {
		return usagef("import: --mode %q is not all or valid", mode)
	}
	if onConflict != catalog.OnConflictReplace && onConflict != catalog.OnConflictSkip {
		return usagef("import: --on-conflict %q is not replace or skip", onConflict)
	}
	data, err := readImportFile(sio, rest[0])
	if err != nil {
		return err
	}
	file, err := catalog.ParseImport(data)
	if err == nil { // a crontab file needs --resource-group and --collection
		err = file.RequireTarget(models.CollectionRef{ResourceGroup: group, Name: coll})
	}
	if ve := problem.As(err); ve != nil {
		for _, l := range ve.Lines() {
			fmt.Fprintln(sio.err, l)
		}
		return &reportedError{code: exitUsage}
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer db.Close()
	target := models.CollectionRef{WorkspaceID: sub, ResourceGroup: group, Name: coll}
	if target.WorkspaceID == "" {
		target.WorkspaceID = models.DefaultWorkspaceID
	}
	actor := cliActor(nil)
	if userName != "" {
		user, err := cliUser(ctx, db.Store, userName)
		if err != nil {
			return err
		}
		actor = cliActor(user)
		for _, ws := range file.Workspaces(sub, target) {
			if _, ok, err := db.Store.MemberWorkspace(ctx, ws, user.ID); err != nil {
				return fmt.Errorf("import: %w", err)
			} else if !ok {
				return usagef("import: the user %q is not a member of workspace %q", user.Username, ws)
			}
		}
	}
	if n := len(file.Jobs); n >= importProgressEvery {
		opts.Progress = func(done, total int) {
			if done%importProgressEvery == 0 || done == total {
				fmt.Fprintf(sio.err, "checked %d of %d jobs\n", done, total)
			}
		}
	}
	rep, err := catalog.New(db.Store, nil).Import(ctx, actor, sub, target, file, opts)
	if rep != nil {
		printImportReport(sio.out, rep)
	}
	if ve := problem.As(err); ve != nil {
		fmt.Fprintln(sio.err, "nothing was imported:")
		for _, l := range ve.Lines() {
			fmt.Fprintln(sio.err, l)
		}
		return &reportedError{code: exitUsage}
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	invalid := false
	for _, j := range rep.Jobs {
		if j.Action != catalog.ActionSkip && !j.Valid() {
			invalid = true
			for _, p := range j.Problems {
				fmt.Fprintf(sio.err, "%s (%s/%s): %s\n", j.Path, j.Collection, j.Name, p)
			}
		}
	}
	if invalid {
		return &reportedError{code: exitUsage}
	}
	return nil
}

// readImportFile reads the import file at path, or stdin for "-", and
// refuses one over catalog.MaxImportBytes before reading it.
func readImportFile(sio stdio, path string) ([]byte, error) {
	r := sio.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, usagef("import: %v", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > catalog.MaxImportBytes {
			return nil, usagef("import: %s is %d bytes, over the maximum of %d (50 MB): split it into several imports", path, st.Size(), catalog.MaxImportBytes)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, catalog.MaxImportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("import: read %s: %w", path, err)
	}
	return data, nil // ParseImport refuses it when over the limit
}

// printImportReport writes the report as a table: one row per job, then
// the collections, the warnings and a summary.
func printImportReport(w io.Writer, rep *catalog.ImportReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tCOLLECTION\tJOB\tSTATE\tNEXT\tDESCRIPTION")
	for _, j := range rep.Jobs {
		action := j.Action
		if action != catalog.ActionSkip && !j.Valid() {
			action = "invalid"
		}
		next, state, desc := "-", dash(j.State), dash(j.Description)
		if len(j.NextOccurrences) > 0 {
			next = j.NextOccurrences[0]
		}
		if !j.Valid() {
			desc = fmt.Sprintf("%d problem(s), see below", len(j.Problems))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", action, dash(strings.Trim(j.ResourceGroup+"/"+j.Collection, "/")), j.Name, state, next, desc)
	}
	tw.Flush()
	if len(rep.Collections) > 0 {
		fmt.Fprintln(w, "\nCollections:")
		for _, c := range rep.Collections {
			line := fmt.Sprintf("  %-8s %s/%s/%s", c.Action, c.Subscription, c.ResourceGroup, c.Name)
			if len(c.Problems) > 0 {
				line += ": " + strings.Join(c.Problems, "; ")
			}
			fmt.Fprintln(w, line)
		}
	}
	var warnings []string
	for _, j := range rep.Jobs {
		for _, wn := range j.Warnings {
			warnings = append(warnings, fmt.Sprintf("  %s/%s: %s", j.Collection, j.Name, wn))
		}
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		fmt.Fprintln(w, strings.Join(warnings, "\n"))
	}
	s := rep.Summary
	fmt.Fprintf(w, "\n%d jobs: %d new, %d to replace, %d to skip, %d invalid. ", s.Jobs, s.New, s.Replace, s.Skip, s.Invalid)
	switch {
	case rep.DryRun:
		fmt.Fprintln(w, "Dry run: nothing was written.")
	case rep.Applied:
		fmt.Fprintf(w, "Imported %d jobs.\n", s.Written)
	default:
		fmt.Fprintln(w, "Nothing was written.")
	}
}

// dash is s, or "-" for an empty cell of the report table.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
