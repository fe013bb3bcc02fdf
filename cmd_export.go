package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"sked/models"
	"sked/scheduler/catalog"
)

// cmdExport implements `sked export [--subscription WS] [--resource-group
// RG] [--collection JC [--job NAME]] [--user NAME]` (SPEC §8): one job,
// one collection (an ARM list), or every collection of the workspaces
// (those of --user, or all) as an export bundle, on stdout, without
// secrets.
func cmdExport(ctx context.Context, sio stdio, args []string) error {
	var userName, sub, group, coll, job string
	cfg, rest, err := parseFlags("export", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&userName, "user", "", "export what this user may see (default: everything)")
		fs.StringVar(&sub, "subscription", "", "workspace to export (default: every one; \"default\" with --collection)")
		fs.StringVar(&group, "resource-group", "", "resource group to export, or of --collection")
		fs.StringVar(&coll, "collection", "", "collection to export")
		fs.StringVar(&job, "job", "", "job of --collection to export")
	})
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usagef("usage: sked export [--subscription WS] [--resource-group RG] [--collection JC [--job NAME]] [--user NAME]")
	case job != "" && coll == "":
		return usagef("export: --job needs --collection")
	case coll != "" && group == "":
		return usagef("export: --collection needs --resource-group")
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer db.Close()
	visible, err := db.Store.WorkspaceIDs(ctx)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if userName != "" {
		user, err := cliUser(ctx, db.Store, userName)
		if err != nil {
			return err
		}
		ws, err := db.Store.WorkspacesOf(ctx, user.ID)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		visible = visible[:0]
		for _, w := range ws {
			visible = append(visible, w.ID)
		}
	}
	if sub == "" && coll != "" {
		sub = models.DefaultWorkspaceID
	}
	if sub != "" {
		found := ""
		for _, id := range visible {
			if strings.EqualFold(id, sub) {
				found = id
			}
		}
		if found == "" {
			return usagef("export: there is no workspace %q (or the user is not a member of it)", sub)
		}
		visible = []string{found}
	}
	cat := catalog.New(db.Store, nil)
	var out []byte
	switch {
	case job != "":
		out, err = cat.ExportJob(ctx, models.CollectionRef{WorkspaceID: visible[0], ResourceGroup: group, Name: coll}, job)
	case coll != "":
		out, err = cat.ExportCollection(ctx, models.CollectionRef{WorkspaceID: visible[0], ResourceGroup: group, Name: coll})
	default:
		out, err = cat.ExportWorkspaces(ctx, visible, group)
	}
	if errors.Is(err, models.ErrNotFound) {
		if job != "" {
			return usagef("export: there is no job %q in collection %s/%s", job, group, coll)
		}
		return usagef("export: there is no collection %s/%s", group, coll)
	}
	if err != nil {
		return err
	}
	_, err = sio.out.Write(out)
	return err
}
