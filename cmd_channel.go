package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"sked/models"
	"sked/scheduler/action"
	"sked/scheduler/catalog"
)

// The channel commands (SPEC §13.3), sked channel list|add|delete|test, and
// the alert commands (cmd_alert.go) work on a workspace's notifications
// (--workspace, default "default") through the catalog, as the command
// line's actor.

// notifyCLI opens the database and the catalog for the channel or alert
// command op; the caller closes the database.
func notifyCLI(ctx context.Context, sio stdio, cfg Config, op string) (*database, *catalog.Catalog, error) {
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	return db, catalog.New(db.Store, nil), nil
}

// cmdChannelList prints the channels of a workspace, without secrets.
func cmdChannelList(ctx context.Context, sio stdio, args []string) error {
	var ws string
	cfg, rest, err := parseFlags("channel list", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
	})
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("usage: sked channel list [--workspace WS]")
	}
	db, _, err := notifyCLI(ctx, sio, cfg, "channel list")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Store.ChannelsOf(ctx, ws)
	if err != nil {
		return fmt.Errorf("channel list: %w", err)
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tPROPERTIES")
	for i := range rows {
		doc, err := catalog.ChannelDocument(&rows[i])
		if err != nil {
			return fmt.Errorf("channel list: %w", err)
		}
		var v struct{ Properties json.RawMessage }
		if err := json.Unmarshal(doc, &v); err != nil {
			return fmt.Errorf("channel list: %w", err)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", rows[i].Name, rows[i].Type, v.Properties)
	}
	return tw.Flush()
}

// cmdChannelAdd creates a channel. A webhook's signing secret is printed
// once; an email channel with --smtp-user reads its password from stdin.
func cmdChannelAdd(ctx context.Context, sio stdio, args []string) error {
	var ws, typ, url, desc, host, security, smtpUser, from string
	var port int
	var to stringList
	cfg, rest, err := parseFlags("channel add", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
		fs.StringVar(&typ, "type", "", "webhook, slack, teams or email (required)")
		fs.StringVar(&url, "url", "", "the webhook, Slack or Teams URL")
		fs.StringVar(&desc, "description", "", "what the channel is for")
		fs.StringVar(&host, "host", "", "email: the SMTP host")
		fs.IntVar(&port, "port", 0, "email: the SMTP port (default by --security: 587, 465, 25)")
		fs.StringVar(&security, "security", "starttls", "email: starttls, tls or none")
		fs.StringVar(&smtpUser, "smtp-user", "", "email: the SMTP user (the password is read from stdin)")
		fs.StringVar(&from, "from", "", "email: the sender")
		fs.Var(&to, "to", "email: a recipient (repeat for more)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 || typ == "" {
		return usagef("usage: sked channel add NAME --type webhook|slack|teams|email [--url URL] [--host H --port N --security S --smtp-user U --from F --to T...] [--workspace WS]")
	}
	props := map[string]any{}
	if typ == "email" {
		props = map[string]any{"host": host, "security": security, "from": from, "to": []string(to)}
		if port != 0 {
			props["port"] = port
		}
		if smtpUser != "" {
			line, err := bufio.NewReader(sio.in).ReadString('\n')
			if pw := strings.TrimRight(line, "\r\n"); pw != "" {
				props["user"], props["password"] = smtpUser, pw
			} else if err != nil || pw == "" {
				return usagef("channel add: --smtp-user needs the password on stdin")
			}
		}
	} else {
		props["url"] = url
	}
	body, err := json.Marshal(map[string]any{"type": typ, "description": desc, "properties": props})
	if err != nil {
		return fmt.Errorf("channel add: %w", err)
	}
	db, cat, err := notifyCLI(ctx, sio, cfg, "channel add")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Store.ChannelByName(ctx, ws, rest[0]); err == nil {
		return usagef("channel add: the channel %s exists already in workspace %s", rest[0], ws)
	}
	saved, err := cat.PutChannel(ctx, cliActor(nil), ws, rest[0], body)
	if err != nil {
		return inputError("channel add", "such workspace", err)
	}
	fmt.Fprintf(sio.out, "created channel %s (%s) in workspace %s\n", saved.Row.Name, saved.Row.Type, ws)
	if saved.Secret != "" {
		fmt.Fprintf(sio.out, "signing secret (shown once): %s\n", saved.Secret)
	}
	return nil
}

// cmdChannelDelete deletes a channel that no alert rule sends to.
func cmdChannelDelete(ctx context.Context, sio stdio, args []string) error {
	return deleteNamed(ctx, sio, args, "channel", func(cat *catalog.Catalog, ws, name string) error {
		return cat.DeleteChannel(ctx, cliActor(nil), ws, name)
	})
}

// deleteNamed is the delete command of what ("channel" or "alert rule",
// whose command is its first word): it deletes the one named NAME in the
// workspace of --workspace with del, as the command line's actor.
func deleteNamed(ctx context.Context, sio stdio, args []string, what string, del func(cat *catalog.Catalog, ws, name string) error) error {
	op := strings.Fields(what)[0] + " delete"
	var ws string
	cfg, rest, err := parseFlags(op, sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked %s NAME [--workspace WS]", op)
	}
	db, cat, err := notifyCLI(ctx, sio, cfg, op)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := del(cat, ws, rest[0]); err != nil {
		return inputError(op, "such "+what, err)
	}
	fmt.Fprintf(sio.out, "deleted %s %s\n", what, rest[0])
	return nil
}

// cmdChannelTest sends a test event to a channel (obeying
// --allow-targets) and prints the answer; exit 1 when it was not
// delivered.
func cmdChannelTest(ctx context.Context, sio stdio, args []string) error {
	var ws string
	cfg, rest, err := parseFlags("channel test", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked channel test NAME [--workspace WS]")
	}
	db, cat, err := notifyCLI(ctx, sio, cfg, "channel test")
	if err != nil {
		return err
	}
	defer db.Close()
	sender := action.NewNotifier(action.Config{AllowTargets: cfg.AllowTargets})
	res, err := cat.TestChannel(ctx, cliActor(nil), ws, rest[0], cfg.BaseURL, sender)
	if err != nil {
		return inputError("channel test", "such channel", err)
	}
	if !res.Delivered {
		return fmt.Errorf("channel test: not delivered: %s %s", res.Answer, res.Error)
	}
	fmt.Fprintf(sio.out, "delivered: %s (%d ms)\n", strings.TrimSpace(res.Answer), res.Duration.Milliseconds())
	return nil
}
