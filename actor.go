package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"

	"sked/models"
	"sked/scheduler/catalog"
)

// cliActor is who makes a change from the command line: the Sked user of
// --user when given (nil: none), else the operating system user running
// sked.
func cliActor(u *models.User) catalog.Actor {
	a := catalog.Actor{Via: catalog.ViaCLI}
	if u != nil {
		a.UserID, a.UserName = u.ID, u.Username
		return a
	}
	if cur, err := user.Current(); err == nil {
		a.UserName = cur.Username
	} else {
		a.UserName = os.Getenv("USER")
	}
	return a
}

// cliUser looks up the Sked user a command names (--user, --owner); an
// unknown name is a usage error.
func cliUser(ctx context.Context, store *models.Store, name string) (*models.User, error) {
	user, err := store.UserByName(ctx, name)
	if errors.Is(err, models.ErrNotFound) {
		return nil, usagef("there is no user %q", name)
	}
	if err != nil {
		return nil, fmt.Errorf("look up user: %w", err)
	}
	return user, nil
}
