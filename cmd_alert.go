package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"sked/models"
	"sked/scheduler/catalog"
)

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
		if r.ScopeMonitor != "" {
			scope = "monitor " + r.ScopeMonitor
		}
		if scope == "" {
			scope = "(workspace)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.ChannelName, scope, r.Events)
	}
	return tw.Flush()
}

// cmdAlertAdd creates an alert rule.
func cmdAlertAdd(ctx context.Context, sio stdio, args []string) error {
	var ws, channel, rg, coll, job, monitor, minInterval string
	var threshold int
	var events stringList
	cfg, rest, err := parseFlags("alert add", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&ws, "workspace", models.DefaultWorkspaceID, "the workspace")
		fs.StringVar(&channel, "channel", "", "the channel the events go to (required)")
		fs.Var(&events, "event", "an event type (repeat for more): attemptFailed, occurrenceFaulted, recovered, missed, jobCompleted, jobFaulted, consecutiveFailures, deadlineMissed, slowRun (jobs with a deadline)")
		fs.StringVar(&rg, "resource-group", "", "scope: the resource group")
		fs.StringVar(&coll, "collection", "", "scope: the collection (with --resource-group)")
		fs.StringVar(&job, "job", "", "scope: the job (with --collection)")
		fs.StringVar(&monitor, "monitor", "", "scope: the heartbeat monitor (alone; events monitorMissed, monitorRecovered, monitorFailed, slowRun)")
		fs.IntVar(&threshold, "threshold", 0, "N of consecutiveFailures (2 or more)")
		fs.StringVar(&minInterval, "min-interval", "", "at most one message per rule and job per this ISO 8601 duration (e.g. PT15M)")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 || channel == "" || len(events) == 0 {
		return usagef("usage: sked alert add NAME --channel C --event E... [--resource-group RG [--collection JC [--job J]] | --monitor M] [--threshold N] [--min-interval PT15M] [--workspace WS]")
	}
	scope := map[string]string{}
	for k, v := range map[string]string{"resourceGroup": rg, "collection": coll, "job": job, "monitor": monitor} {
		if v != "" {
			scope[k] = v
		}
	}
	doc := map[string]any{"channel": channel, "events": []string(events), "scope": scope}
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
		return inputError("alert add", "such workspace", err)
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
	return deleteNamed(ctx, sio, args, "alert rule", func(cat *catalog.Catalog, ws, name string) error {
		return cat.DeleteAlertRule(ctx, cliActor(nil), ws, name)
	})
}
