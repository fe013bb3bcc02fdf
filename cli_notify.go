package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/action"
	"sked/scheduler/catalog"
)

// The notification commands (SPEC §13.3): sked channel list|add|delete|test
// and sked alert list|add|delete, for a workspace (--workspace, default
// "default"), through the catalog as the command line's actor.

// notifyCommands are the subcommands of sked channel and sked alert.
var notifyCommands = map[string][]string{
	"channel": {"list", "add", "delete", "test"},
	"alert":   {"list", "add", "delete"},
}

// notifyCLI opens the database and the catalog for a notification command.
func notifyCLI(ctx context.Context, sio stdio, cfg Config, op string) (*database, *catalog.Catalog, error) {
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	return db, catalog.New(db.Store, nil), nil
}

// notifyCLIError makes the errors a user can act on usage errors (exit 2)
// with their message.
func notifyCLIError(op, what string, err error) error {
	var ve *problem.List
	var ce *models.ConflictError
	switch {
	case errors.As(err, &ve), errors.As(err, &ce):
		return usagef("%s: %v", op, err)
	case errors.Is(err, models.ErrNotFound):
		return usagef("%s: there is no %s", op, what)
	}
	return fmt.Errorf("%s: %w", op, err)
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
		return notifyCLIError("channel add", "such workspace", err)
	}
	fmt.Fprintf(sio.out, "created channel %s (%s) in workspace %s\n", saved.Row.Name, saved.Row.Type, ws)
	if saved.Secret != "" {
		fmt.Fprintf(sio.out, "signing secret (shown once): %s\n", saved.Secret)
	}
	return nil
}

// cmdChannelDelete deletes a channel that no alert rule sends to.
func cmdChannelDelete(ctx context.Context, sio stdio, args []string) error {
	var ws string
	cfg, rest, err := parseFlags("channel delete", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked channel delete NAME [--workspace WS]")
	}
	db, cat, err := notifyCLI(ctx, sio, cfg, "channel delete")
	if err != nil {
		return err
	}
	defer db.Close()
	if err := cat.DeleteChannel(ctx, cliActor(nil), ws, rest[0]); err != nil {
		return notifyCLIError("channel delete", "such channel", err)
	}
	fmt.Fprintf(sio.out, "deleted channel %s\n", rest[0])
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
		return notifyCLIError("channel test", "such channel", err)
	}
	if !res.Delivered {
		return fmt.Errorf("channel test: not delivered: %s %s", res.Answer, res.Error)
	}
	fmt.Fprintf(sio.out, "delivered: %s (%d ms)\n", strings.TrimSpace(res.Answer), res.Duration.Milliseconds())
	return nil
}

// cmdAlertList prints the alert rules of a workspace.
func cmdAlertList(ctx context.Context, sio stdio, args []string) error {
	var ws string
	cfg, rest, err := parseFlags("alert list", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
	})
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return usagef("usage: sked alert list [--workspace WS]")
	}
	db, _, err := notifyCLI(ctx, sio, cfg, "alert list")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Store.AlertRulesOf(ctx, ws)
	if err != nil {
		return fmt.Errorf("alert list: %w", err)
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCHANNEL\tSCOPE\tEVENTS")
	for _, r := range rows {
		scope := strings.Trim(strings.Join([]string{r.ScopeResourceGroup, r.ScopeCollection, r.ScopeJob}, "/"), "/")
		if scope == "" {
			scope = "(workspace)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.ChannelName, scope, r.Events)
	}
	return tw.Flush()
}

// cmdAlertAdd creates an alert rule.
func cmdAlertAdd(ctx context.Context, sio stdio, args []string) error {
	var ws, channel, rg, coll, job, minInterval string
	var threshold int
	var events stringList
	cfg, rest, err := parseFlags("alert add", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
		fs.StringVar(&channel, "channel", "", "the channel the events go to (required)")
		fs.Var(&events, "event", "an event type (repeat for more): attemptFailed, occurrenceFaulted, recovered, missed, jobCompleted, jobFaulted, consecutiveFailures")
		fs.StringVar(&rg, "resource-group", "", "scope: the resource group")
		fs.StringVar(&coll, "collection", "", "scope: the collection (with --resource-group)")
		fs.StringVar(&job, "job", "", "scope: the job (with --collection)")
		fs.IntVar(&threshold, "threshold", 0, "N of consecutiveFailures (2 or more)")
		fs.StringVar(&minInterval, "min-interval", "", "at most one message per rule and job per this ISO 8601 duration (e.g. PT15M)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 || channel == "" || len(events) == 0 {
		return usagef("usage: sked alert add NAME --channel C --event E... [--resource-group RG [--collection JC [--job J]]] [--threshold N] [--min-interval PT15M] [--workspace WS]")
	}
	doc := map[string]any{"channel": channel, "events": []string(events),
		"scope": map[string]string{"resourceGroup": rg, "collection": coll, "job": job}}
	if threshold != 0 {
		doc["threshold"] = threshold
	}
	if minInterval != "" {
		doc["minInterval"] = minInterval
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("alert add: %w", err)
	}
	db, cat, err := notifyCLI(ctx, sio, cfg, "alert add")
	if err != nil {
		return err
	}
	defer db.Close()
	row, created, err := cat.PutAlertRule(ctx, cliActor(nil), ws, rest[0], body)
	if err != nil {
		return notifyCLIError("alert add", "such workspace", err)
	}
	verb := "replaced"
	if created {
		verb = "created"
	}
	fmt.Fprintf(sio.out, "%s alert rule %s → %s\n", verb, row.Name, row.ChannelName)
	return nil
}

// cmdAlertDelete deletes an alert rule.
func cmdAlertDelete(ctx context.Context, sio stdio, args []string) error {
	var ws string
	cfg, rest, err := parseFlags("alert delete", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked alert delete NAME [--workspace WS]")
	}
	db, cat, err := notifyCLI(ctx, sio, cfg, "alert delete")
	if err != nil {
		return err
	}
	defer db.Close()
	if err := cat.DeleteAlertRule(ctx, cliActor(nil), ws, rest[0]); err != nil {
		return notifyCLIError("alert delete", "such alert rule", err)
	}
	fmt.Fprintf(sio.out, "deleted alert rule %s\n", rest[0])
	return nil
}
