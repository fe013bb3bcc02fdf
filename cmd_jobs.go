package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"sked/client"
)

// jobSummary is what the job tables show of a job's properties.
type jobSummary struct {
	State  string `json:"state"`
	Action struct {
		Type    string `json:"type"`
		Request struct {
			Method string `json:"method"`
			URI    string `json:"uri"`
		} `json:"request"`
	} `json:"action"`
	Recurrence *struct {
		Frequency string `json:"frequency"`
		Interval  int    `json:"interval"`
	} `json:"recurrence"`
	StateNote string `json:"stateNote"`
	Status    struct {
		LastExecutionTime string `json:"lastExecutionTime"`
		NextExecutionTime string `json:"nextExecutionTime"`
		ExecutionCount    int64  `json:"executionCount"`
		FailureCount      int64  `json:"failureCount"`
	} `json:"status"`
}

// summary reads the table fields of a job.
func summary(r client.Resource) jobSummary {
	var s jobSummary
	_ = json.Unmarshal(r.Properties, &s)
	return s
}

// every is a job's recurrence in short ("every 2 hours", "once").
func (s jobSummary) every() string {
	if s.Recurrence == nil || s.Recurrence.Frequency == "" {
		return "once"
	}
	n := max(s.Recurrence.Interval, 1)
	if n == 1 {
		return "every " + s.Recurrence.Frequency
	}
	return fmt.Sprintf("every %d %ss", n, s.Recurrence.Frequency)
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cmdJobsList implements `sked jobs list [--subscription WS]
// [--resource-group RG] [--collection JC] [--state S] [--output
// table|json]` against a server: the jobs of one collection, or of every
// collection selected, every page (nextLink) of each.
func cmdJobsList(ctx context.Context, sio stdio, args []string) error {
	var cf collectionFlags
	var state string
	out := outputFormat("table")
	rf, rest, err := parseRemoteFlags("jobs list", sio, args, func(fs *flag.FlagSet) {
		cf.register(fs)
		fs.StringVar(&state, "state", "", "only jobs in this state: Enabled, Disabled, Faulted or Completed")
		fs.Var(&out, "output", "table or json")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("usage: sked jobs list [--subscription WS] [--resource-group RG] [--collection JC] [--state S] [--output table|json]")
	}
	c, err := rf.client()
	if err != nil {
		return err
	}
	colls, err := cf.collections(ctx, c)
	if err != nil {
		return fmt.Errorf("jobs list: %w", err)
	}
	var jobs []client.Resource
	for _, coll := range colls {
		js, err := c.Jobs(ctx, refOfID(coll.ID), state)
		if err != nil {
			return fmt.Errorf("jobs list: %w", err)
		}
		jobs = append(jobs, js...)
	}
	if out == "json" {
		return writeJSON(sio.out, map[string]any{"value": nonNil(jobs)})
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COLLECTION\tJOB\tSTATE\tSCHEDULE\tNEXT RUN\tLAST RUN\tRUNS\tFAILURES")
	for _, j := range jobs {
		ref, s := refOfID(j.ID), summary(j)
		name := j.Name[strings.LastIndex(j.Name, "/")+1:]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", ref, name, s.State, s.every(), orDash(s.Status.NextExecutionTime),
			orDash(s.Status.LastExecutionTime), s.Status.ExecutionCount, s.Status.FailureCount)
	}
	return tw.Flush()
}

// jobCommand parses the flags of a command on one job (show, run,
// history): the collection's flags, the job's name as the one positional
// argument, and extra's flags.
func jobCommand(name string, sio stdio, args []string, extra func(*flag.FlagSet)) (*client.Client, client.CollectionRef, string, error) {
	var cf collectionFlags
	rf, rest, err := parseRemoteFlags(name, sio, args, func(fs *flag.FlagSet) {
		cf.register(fs)
		if extra != nil {
			extra(fs)
		}
	})
	if err != nil {
		return nil, client.CollectionRef{}, "", err
	}
	if len(rest) != 1 {
		return nil, client.CollectionRef{}, "", usagef("usage: sked %s JOB --resource-group RG --collection JC [--subscription WS]", name)
	}
	ref, err := cf.ref(name)
	if err != nil {
		return nil, client.CollectionRef{}, "", err
	}
	c, err := rf.client()
	if err != nil {
		return nil, client.CollectionRef{}, "", err
	}
	return c, ref, rest[0], nil
}

// cmdJobsShow implements `sked jobs show JOB --resource-group RG
// --collection JC [--output table|json]`: the job's state and status,
// then its definition as the server stores it.
func cmdJobsShow(ctx context.Context, sio stdio, args []string) error {
	out := outputFormat("table")
	c, ref, name, err := jobCommand("jobs show", sio, args, func(fs *flag.FlagSet) { fs.Var(&out, "output", "table or json") })
	if err != nil {
		return err
	}
	j, err := c.Job(ctx, ref, name)
	if err != nil {
		return fmt.Errorf("jobs show: %w", err)
	}
	if out == "json" {
		return writeJSON(sio.out, j)
	}
	s := summary(j)
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Job:\t%s/%s\n", ref, name)
	fmt.Fprintf(tw, "State:\t%s\n", s.State)
	if s.StateNote != "" {
		fmt.Fprintf(tw, "Note:\t%s\n", s.StateNote)
	}
	fmt.Fprintf(tw, "Action:\t%s %s %s\n", s.Action.Type, s.Action.Request.Method, s.Action.Request.URI)
	fmt.Fprintf(tw, "Schedule:\t%s\n", s.every())
	fmt.Fprintf(tw, "Next run:\t%s\n", orDash(s.Status.NextExecutionTime))
	fmt.Fprintf(tw, "Last run:\t%s\n", orDash(s.Status.LastExecutionTime))
	fmt.Fprintf(tw, "Runs:\t%d (%d failed)\n", s.Status.ExecutionCount, s.Status.FailureCount)
	if err := tw.Flush(); err != nil {
		return err
	}
	def, _, _ := serverJob(j)
	if def == nil {
		return nil
	}
	fmt.Fprintln(sio.out, "Definition:")
	fmt.Fprintln(sio.out, normJob(def))
	return nil
}

// cmdJobsRun implements `sked jobs run JOB --resource-group RG
// --collection JC`: an occurrence starts at once.
func cmdJobsRun(ctx context.Context, sio stdio, args []string) error {
	var headers stringList
	var body, bodyFile string
	c, ref, name, err := jobCommand("jobs run", sio, args, func(fs *flag.FlagSet) {
		fs.Var(&headers, "header", "for this run only, a request header 'Name: value' merged over the job's (repeat for more)")
		fs.StringVar(&body, "body", "", "for this run only, the request body instead of the job's")
		fs.StringVar(&bodyFile, "body-file", "", "for this run only, the request body read from this file ('-': standard input)")
	})
	if err != nil {
		return err
	}
	changes, err := runChanges(sio, headers, body, bodyFile)
	if err != nil {
		return err
	}
	if changes == nil {
		err = c.RunJob(ctx, ref, name)
	} else {
		err = c.RunJobWith(ctx, ref, name, changes.headers, changes.body)
	}
	if err != nil {
		return fmt.Errorf("jobs run: %w", err)
	}
	if changes == nil {
		fmt.Fprintf(sio.out, "started a run of job %s/%s\n", ref, name)
	} else {
		fmt.Fprintf(sio.out, "started a run of job %s/%s with changes\n", ref, name)
	}
	return nil
}

// runOnce is the request changes of one run (SPEC §16.4): headers merged
// over the job's, and a body replacing its body when not nil.
type runOnce struct {
	headers map[string]string
	body    *string
}

// runChanges reads the changes `sked jobs run` was given; nil when none.
// A header without a colon, or a body given both inline and as a file, is
// a usage error naming the flag; the server checks the rest (a 400 naming
// the field).
func runChanges(sio stdio, headers []string, body, bodyFile string) (*runOnce, error) {
	var ch runOnce
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("jobs run: --header %q is not 'Name: value'", h)
		}
		if ch.headers == nil {
			ch.headers = map[string]string{}
		}
		ch.headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	switch {
	case body != "" && bodyFile != "":
		return nil, usagef("jobs run: give --body or --body-file, not both")
	case body != "":
		ch.body = &body
	case bodyFile != "":
		var data []byte
		var err error
		if bodyFile == "-" {
			data, err = io.ReadAll(sio.in)
		} else {
			data, err = os.ReadFile(bodyFile)
		}
		if err != nil {
			return nil, usagef("jobs run: --body-file: %v", err)
		}
		b := string(data)
		ch.body = &b
	}
	if ch.headers == nil && ch.body == nil {
		return nil, nil
	}
	return &ch, nil
}

// cmdJobsHistory implements `sked jobs history JOB --resource-group RG
// --collection JC [--status S] [-n N] [--output table|json]`: the newest
// N (default 20) entries of the job's history, newest first.
func cmdJobsHistory(ctx context.Context, sio stdio, args []string) error {
	out := outputFormat("table")
	var status string
	n := 20
	c, ref, name, err := jobCommand("jobs history", sio, args, func(fs *flag.FlagSet) {
		fs.Var(&out, "output", "table or json")
		fs.StringVar(&status, "status", "", "only entries of this status: Completed, Failed, Postponed, Cancelled, …")
		fs.IntVar(&n, "n", 20, "how many entries, newest first (0: all)")
	})
	if err != nil {
		return err
	}
	if n < 0 {
		return usagef("jobs history: -n %d is not 0 or more", n)
	}
	entries, err := c.History(ctx, ref, name, status, n)
	if err != nil {
		return fmt.Errorf("jobs history: %w", err)
	}
	if out == "json" {
		return writeJSON(sio.out, map[string]any{"value": nonNil(entries)})
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTART\tEXPECTED\tACTION\tSTATUS\tRETRY\tMESSAGE")
	for _, e := range entries {
		p := e.Properties
		msg := strings.Join(strings.Fields(p.Message), " ")
		if len([]rune(msg)) > 80 {
			msg = string([]rune(msg)[:79]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID[strings.LastIndex(e.ID, "/")+1:], p.StartTime, p.ExpectedExecutionTime,
			p.ActionName, p.Status, strconv.Itoa(p.RetryCount), msg)
	}
	return tw.Flush()
}
