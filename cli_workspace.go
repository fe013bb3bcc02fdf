package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// stringList is a flag that may be repeated (--workspace a --workspace b).
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// tokenScope builds the scope of `sked token add` from its flags: the
// workspaces (none: all the user's), the role and the expiry day
// (YYYY-MM-DD, the token is refused from its midnight UTC; "" never).
func tokenScope(workspaces []string, role, expires string) (models.TokenScope, error) {
	r, err := models.ParseRole(role)
	if err != nil {
		return models.TokenScope{}, fmt.Errorf("--role: %w", err)
	}
	sc := models.TokenScope{Role: r, Workspaces: workspaces}
	if expires != "" {
		t, err := time.Parse(time.DateOnly, expires)
		if err != nil {
			return models.TokenScope{}, fmt.Errorf("--expires: %q is not a day like 2027-01-01", expires)
		}
		sc.ExpiresAt = t
	}
	return sc, nil
}

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
		return workspaceCLIError("workspace add", err)
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
		return workspaceCLIError("workspace rename", err)
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
		return workspaceCLIError("workspace delete", err)
	}
	fmt.Fprintf(sio.out, "deleted workspace %s\n", rest[0])
	return nil
}

// workspaceCLIError makes the errors a user can act on usage errors (exit
// 2) with their message.
func workspaceCLIError(op string, err error) error {
	var ve *problem.List
	var ce *models.ConflictError
	switch {
	case errors.As(err, &ve), errors.As(err, &ce):
		return usagef("%s: %v", op, err)
	case errors.Is(err, models.ErrNotFound):
		return usagef("%s: there is no such workspace", op)
	}
	return fmt.Errorf("%s: %w", op, err)
}
