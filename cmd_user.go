package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// cmdUserAdd implements `sked user add NAME [--admin]`: it creates a user
// with the password read from stdin (readPassword), checked before the
// database is opened.
func cmdUserAdd(ctx context.Context, sio stdio, args []string) error {
	var admin bool
	cfg, rest, err := parseFlags("user add", sio, args, func(fs *flag.FlagSet) {
		fs.BoolVar(&admin, "admin", false, "make the user an administrator")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked user add NAME [--admin] (the password is read from stdin)")
	}
	password, err := readPassword(sio)
	if err != nil {
		return err
	}
	in := models.NewUser{Username: rest[0], Password: password, Admin: admin}
	if err := in.Validate(); err != nil {
		return usagef("%v", err)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	defer db.Close()
	user, err := catalog.New(db.Store, nil).CreateUser(ctx, cliActor(nil), in)
	var ve *problem.List
	if errors.As(err, &ve) {
		return usagef("%v", err)
	}
	if err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	role := "user"
	if user.IsAdmin {
		role = "administrator"
	}
	fmt.Fprintf(sio.out, "created %s %s\n", role, user.Username)
	return nil
}

// readPassword reads the password from the first line of stdin; on a
// terminal it prompts and does not echo.
func readPassword(sio stdio) (string, error) {
	if f, ok := sio.in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(sio.err, "Password: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(sio.err)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		return string(b), nil
	}
	line, err := bufio.NewReader(sio.in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", usagef("no password on stdin: pipe it in, e.g. `echo \"$PASSWORD\" | sked user add NAME`")
	}
	return line, nil
}
