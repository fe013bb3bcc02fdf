package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"sked/scheduler/catalog"
)

// cmdWorkspaceAdd creates a workspace owned by --owner (a Sked user).
func cmdWorkspaceAdd(ctx context.Context, sio stdio, args []string) error {
	var name, owner string
	cfg, rest, err := parseFlags("workspace add", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "the display name (default: the id)")
		fs.StringVar(&owner, "owner", "", "the user who owns the workspace (required)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 || owner == "" {
		return usagef("usage: sked workspace add ID [--name DISPLAY] --owner USER")
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("workspace add: %w", err)
	}
	defer db.Close()
	user, err := cliUser(ctx, db.Store, owner)
	if err != nil {
		return err
	}
	// The command line is the operator of the server: it may create
	// workspaces whatever --open-workspaces says.
	ws, err := catalog.New(db.Store, nil).CreateWorkspace(ctx, cliActor(user), true, catalog.WorkspacePolicy{}, rest[0], name)
	if err != nil {
		return inputError("workspace add", "such workspace", err)
	}
	fmt.Fprintf(sio.out, "created workspace %s (%s), owned by %s\n", ws.ID, ws.DisplayName, user.Username)
	return nil
}

// cmdWorkspaceList prints every workspace with its members and roles.
func cmdWorkspaceList(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("workspace list", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("usage: sked workspace list")
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("workspace list: %w", err)
	}
	defer db.Close()
	ids, err := db.Store.WorkspaceIDs(ctx)
	if err != nil {
		return fmt.Errorf("workspace list: %w", err)
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tMEMBERS")
	for _, id := range ids {
		ws, err := db.Store.Workspace(ctx, id)
		if err != nil {
			return fmt.Errorf("workspace list: %w", err)
		}
		ms, err := db.Store.MembersOf(ctx, id)
		if err != nil {
			return fmt.Errorf("workspace list: %w", err)
		}
		var members []string
		for _, m := range ms {
			members = append(members, m.Username+" ("+m.Role+")")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ws.ID, ws.DisplayName, strings.Join(members, ", "))
	}
	return tw.Flush()
}

// cmdWorkspaceRename sets a workspace's display name.
func cmdWorkspaceRename(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("workspace rename", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usagef("usage: sked workspace rename ID DISPLAY")
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("workspace rename: %w", err)
	}
	defer db.Close()
	ws, err := catalog.New(db.Store, nil).RenameWorkspace(ctx, cliActor(nil), rest[0], rest[1])
	if err != nil {
		return inputError("workspace rename", "such workspace", err)
	}
	fmt.Fprintf(sio.out, "renamed workspace %s to %s\n", ws.ID, ws.DisplayName)
	return nil
}

// cmdWorkspaceDelete deletes an empty workspace.
func cmdWorkspaceDelete(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("workspace delete", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked workspace delete ID")
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("workspace delete: %w", err)
	}
	defer db.Close()
	if err := catalog.New(db.Store, nil).DeleteWorkspace(ctx, cliActor(nil), rest[0]); err != nil {
		return inputError("workspace delete", "such workspace", err)
	}
	fmt.Fprintf(sio.out, "deleted workspace %s\n", rest[0])
	return nil
}
