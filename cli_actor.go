package main

import (
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
