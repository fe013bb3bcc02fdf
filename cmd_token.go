package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// cmdTokenAdd implements `sked token add USER [--name NAME] [--workspace
// WS]... [--role ROLE] [--expires DAY]`: it issues an API token for USER
// and prints it, once, on stdout.
func cmdTokenAdd(ctx context.Context, sio stdio, args []string) error {
	var name, role, expires string
	var workspaces stringList
	cfg, rest, err := parseFlags("token add", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "api", "a name that says what the token is for")
		fs.Var(&workspaces, "workspace", "a workspace the token covers (repeat for more; default: all the user's)")
		fs.StringVar(&role, "role", "owner", "the most the token may do: reader, operator, editor or owner (capped by the user's role)")
		fs.StringVar(&expires, "expires", "", "the day (YYYY-MM-DD, UTC) from which the token is refused; default never")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked token add USER [--name NAME] [--workspace WS]... [--role ROLE] [--expires 2027-01-01]")
	}
	scope, err := tokenScope(workspaces, role, expires)
	if err != nil {
		return usagef("token add: %v", err)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("token add: %w", err)
	}
	defer db.Close()
	user, err := db.Store.UserByName(ctx, rest[0])
	if errors.Is(err, models.ErrNotFound) {
		return usagef("token add: there is no user %q", rest[0])
	}
	if err != nil {
		return fmt.Errorf("token add: %w", err)
	}
	_, token, err := catalog.New(db.Store, nil).CreateToken(ctx, cliActor(nil), user, name, scope)
	var ve *problem.List
	if errors.As(err, &ve) {
		return usagef("token add: %v", err)
	}
	if err != nil {
		return fmt.Errorf("token add: %w", err)
	}
	fmt.Fprintln(sio.out, token)
	return nil
}

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
