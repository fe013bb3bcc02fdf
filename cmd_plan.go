package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"sked/client"
	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/monitordef"
	"sked/models/notifydef"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// exitChanges is the exit status of sked diff and sked apply --dry-run
// when the plan has changes (terraform plan -detailed-exitcode's 2). Every
// error of these two commands, usage errors included, is exitError, so
// that 2 always means "there are changes".
const exitChanges = 2

// planMode is what runPlan does with the plan.
type planMode int

const (
	planShow  planMode = iota // print it (diff, apply --dry-run)
	planApply                 // print it and carry it out
)

// The stages of a plan, in the order its changes are made: what others
// refer to is created first (jobs exclude calendars, rules send to
// channels and may name jobs) and deleted last.
const (
	stageCalendars = iota
	stageMonitors
	stageChannels
	stageCollections
	stageJobs
	stageAlerts
	stageDeleteAlerts
	stageDeleteJobs
	stageDeleteChannels
	stageDeleteMonitors
	stageDeleteCalendars
)

// change is one step of a plan.
type change struct {
	stage  int
	action string // "create", "update" or "delete"
	what   string // "collection", "job", "calendar", "channel", "alert rule"
	id     string // what it changes, e.g. "default/rg/jc/job"
	src    source // where the files declare it; empty for a delete
	// before and after are the normalised definitions (indented JSON):
	// before is empty for a create, after for a delete.
	before, after string
	// apply makes the change and returns a line to print (a webhook's
	// secret), or "".
	apply func(ctx context.Context) (string, error)
	// upstreams are the keys of the jobs a job runs after (triggerKeys),
	// for the order of the jobs' changes (orderByTriggers).
	upstreams []string
}

// runPlan implements sked apply and sked diff: it reads the files of -f,
// computes the plan against the server, prints it, and carries it out
// when mode is planApply and dryRun is false.
func runPlan(ctx context.Context, sio stdio, name string, args []string, mode planMode) error {
	var paths stringList
	var prune, dryRun bool
	rf, rest, err := parseRemoteFlags(name, sio, args, func(fs *flag.FlagSet) {
		fs.Var(&paths, "f", "a JSON file or a directory of them (repeatable)")
		fs.BoolVar(&prune, "prune", false, "also delete what the files' collections and workspace lists no longer hold")
		if mode == planApply {
			fs.BoolVar(&dryRun, "dry-run", false, "print the plan and change nothing (exit 2 when there are changes)")
		}
	})
	fail := func(err error) error {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		fmt.Fprintln(sio.err, "sked:", err)
		return &reportedError{code: exitError}
	}
	if err != nil {
		return fail(err)
	}
	if len(paths) == 0 || len(rest) > 0 {
		dry := ""
		if mode == planApply {
			dry = " [--dry-run]"
		}
		return fail(fmt.Errorf("usage: sked %s -f PATH [-f PATH]… [--prune]%s [--server URL] [--token TOKEN]", name, dry))
	}
	c, err := rf.client()
	if err != nil {
		return fail(err)
	}
	var files []string
	for _, p := range paths {
		fs, err := jsonFiles(p)
		if err != nil {
			return fail(fmt.Errorf("-f: %w", err))
		}
		for _, f := range fs {
			if !slices.Contains(files, f) { // -f dir -f dir/a.json reads a.json once
				files = append(files, f)
			}
		}
	}
	want, problems, err := loadDesired(files)
	if err != nil {
		return fail(err)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(sio.err, "sked:", p)
		}
		return fail(fmt.Errorf("nothing was changed: %d %s in the files", len(problems), plural(len(problems), "problem", "problems")))
	}
	plan, err := computePlan(ctx, c, want, prune)
	if err != nil {
		return fail(err)
	}
	printPlan(sio.out, plan)
	if len(plan) == 0 {
		return nil
	}
	if mode == planShow || dryRun {
		return &reportedError{code: exitChanges}
	}
	fmt.Fprintln(sio.out)
	done := map[string]int{}
	for i, ch := range plan {
		note, err := ch.apply(ctx)
		if err != nil {
			where := ch.what + " " + ch.id
			if ch.src.file != "" {
				where = ch.src.String() + ": " + where
			}
			fmt.Fprintf(sio.err, "sked: %s: %s\n", where, serverMessage(err))
			return fail(fmt.Errorf("stopped after %d of %d changes; the rest were not made", i, len(plan)))
		}
		done[ch.action]++
		fmt.Fprintf(sio.out, "%s %s\n", pastTense(ch.action), ch.what+" "+ch.id)
		if note != "" {
			fmt.Fprintln(sio.out, "  "+note)
		}
	}
	fmt.Fprintf(sio.out, "Apply complete: %d created, %d updated, %d deleted.\n", done["create"], done["update"], done["delete"])
	return nil
}

// serverMessage is an error of a write for people: the server's status,
// message and every field it names.
func serverMessage(err error) string {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the server refused it (%d %s): %s", ce.Status, ce.Code, ce.Message)
	for _, d := range ce.Details {
		if !strings.Contains(ce.Message, d.Message) {
			b.WriteString("\n  " + d.Message)
		}
	}
	return b.String()
}

// computePlan compares what the files want with what the server holds:
// creations, updates and, with prune, deletions, in the order of their
// stages.
func computePlan(ctx context.Context, c *client.Client, want *desired, prune bool) ([]change, error) {
	var plan []change
	for _, wc := range want.collections {
		cs, err := collectionPlan(ctx, c, wc, prune)
		if err != nil {
			return nil, err
		}
		plan = append(plan, cs...)
	}
	keys := make([]string, 0, len(want.kinds))
	for k := range want.kinds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		_, kind, _ := strings.Cut(k, "\x00")
		cs, err := objectPlan(ctx, c, want, want.kinds[k], client.Kind(kind), prune)
		if err != nil {
			return nil, err
		}
		plan = append(plan, cs...)
	}
	slices.SortStableFunc(plan, func(a, b change) int { return a.stage - b.stage })
	orderByTriggers(plan) // cmd_plan_triggers.go
	return plan, nil
}

// collectionPlan is the plan of one collection and its jobs.
func collectionPlan(ctx context.Context, c *client.Client, wc *wantCollection, prune bool) ([]change, error) {
	var plan []change
	ref := wc.ref
	cur, err := c.Collection(ctx, ref)
	exists := err == nil
	if err != nil && !client.IsNotFound(err) {
		return nil, fmt.Errorf("read collection %s: %w", ref, err)
	}
	body := wc.body
	if body == nil {
		body = json.RawMessage(`{}`)
	}
	switch {
	case !exists:
		def := wc.def
		if def == nil {
			def, _ = catalog.ParseCollection(body)
		}
		plan = append(plan, change{stage: stageCollections, action: "create", what: "collection", id: ref.String(), src: wc.src,
			after: normCollection(def, true), apply: func(ctx context.Context) (string, error) {
				_, err := c.PutCollection(ctx, ref, body)
				return "", err
			}})
	case wc.body != nil:
		curDef, err := catalog.ParseCollection(serverCollectionBody(cur))
		before := ""
		if err == nil {
			before = normCollection(curDef, wc.namesState)
		}
		after := normCollection(wc.def, wc.namesState)
		if before != after {
			put := body
			if !wc.namesState && curDef != nil && curDef.State != models.CollectionEnabled {
				// The file leaves the state to the operators: keep it.
				put = withState(body, true, string(curDef.State), curDef.StateNote)
			}
			plan = append(plan, change{stage: stageCollections, action: "update", what: "collection", id: ref.String(), src: wc.src,
				before: before, after: after, apply: func(ctx context.Context) (string, error) {
					_, err := c.PutCollection(ctx, ref, put)
					return "", err
				}})
		}
	}
	have := map[string]client.Resource{}
	var order []string
	if exists {
		jobs, err := c.Jobs(ctx, ref, "")
		if err != nil {
			return nil, fmt.Errorf("list the jobs of %s: %w", ref, err)
		}
		for _, j := range jobs {
			name := j.Name[strings.LastIndex(j.Name, "/")+1:]
			have[strings.ToLower(name)] = j
			order = append(order, name)
		}
	}
	named := map[string]bool{}
	for _, wj := range wc.jobs {
		named[strings.ToLower(wj.name)] = true
		id := ref.String() + "/" + wj.name
		cur, ok := have[strings.ToLower(wj.name)]
		if !ok {
			name, body := wj.name, wj.body
			plan = append(plan, change{stage: stageJobs, action: "create", what: "job", id: id, src: wj.src,
				after: normJob(wj.def), upstreams: triggerKeys(ref.Subscription, wj.def), apply: func(ctx context.Context) (string, error) {
					_, err := c.PutJob(ctx, ref, name, body)
					return "", err
				}})
			continue
		}
		curDef, curState, curNote := serverJob(cur)
		mine := *wj.def
		if !wj.namesState {
			mine.State, mine.StateNote = curState, curNote
		}
		before := ""
		if curDef != nil {
			if wj.namesState && mine.State == jobdef.Enabled && (curState == jobdef.Completed || curState == jobdef.Faulted) {
				// Set by the engine, not drift: the job is enabled as
				// the file says, and has ended or faulted since.
				curDef.State, curDef.StateNote = jobdef.Enabled, ""
			}
			before = normJob(curDef)
		}
		after := normJob(&mine)
		if before == after {
			continue
		}
		name, put := wj.name, wj.body
		if !wj.namesState && curState == jobdef.Disabled {
			// The file leaves the state to the operators: keep the pause.
			put = withState(put, hasPath(put, "properties"), string(curState), curNote)
		}
		plan = append(plan, change{stage: stageJobs, action: "update", what: "job", id: id, src: wj.src,
			before: before, after: after, upstreams: triggerKeys(ref.Subscription, wj.def), apply: func(ctx context.Context) (string, error) {
				_, err := c.PutJob(ctx, ref, name, put)
				return "", err
			}})
	}
	if prune {
		for _, name := range order {
			if named[strings.ToLower(name)] {
				continue
			}
			curDef, _, _ := serverJob(have[strings.ToLower(name)])
			before := ""
			if curDef != nil {
				before = normJob(curDef)
			}
			plan = append(plan, change{stage: stageDeleteJobs, action: "delete", what: "job", id: ref.String() + "/" + name,
				before: before, upstreams: triggerKeys(ref.Subscription, curDef), apply: func(ctx context.Context) (string, error) {
					return "", c.DeleteJob(ctx, ref, name)
				}})
		}
	}
	return plan, nil
}

// objectPlan is the plan of the objects of kind in workspace ws.
func objectPlan(ctx context.Context, c *client.Client, want *desired, ws string, kind client.Kind, prune bool) ([]change, error) {
	docs, err := c.Objects(ctx, ws, kind)
	if err != nil {
		return nil, fmt.Errorf("list the %s of workspace %s: %w", kind, ws, err)
	}
	have := map[string]json.RawMessage{}
	var order []string
	for _, doc := range docs {
		var head struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(doc, &head)
		have[strings.ToLower(head.Name)] = doc
		order = append(order, head.Name)
	}
	stage, delStage := stageCalendars, stageDeleteCalendars
	switch kind {
	case client.Channels:
		stage, delStage = stageChannels, stageDeleteChannels
	case client.Alerts:
		stage, delStage = stageAlerts, stageDeleteAlerts
	case client.Monitors:
		stage, delStage = stageMonitors, stageDeleteMonitors
	}
	var plan []change
	named := map[string]bool{}
	for _, wo := range want.objects {
		if !strings.EqualFold(wo.ws, ws) || wo.kind != kind {
			continue
		}
		named[strings.ToLower(wo.name)] = true
		cur, ok := have[strings.ToLower(wo.name)]
		before := ""
		if ok {
			before = normObject(kind, cur, nil)
		}
		after := normObject(kind, wo.body, cur)
		if ok && before == after {
			continue
		}
		action := "create"
		if ok {
			action = "update"
		}
		name, body := wo.name, wo.body
		plan = append(plan, change{stage: stage, action: action, what: kindNoun(kind), id: ws + "/" + name, src: wo.src,
			before: before, after: after, apply: func(ctx context.Context) (string, error) {
				out, err := c.PutObject(ctx, ws, kind, name, body)
				if err != nil || kind != client.Channels {
					return "", err
				}
				var secret struct {
					Secret string `json:"secret"`
				}
				if json.Unmarshal(out, &secret) == nil && secret.Secret != "" {
					return "signing secret (shown once): " + secret.Secret, nil
				}
				return "", nil
			}})
	}
	if prune {
		for _, name := range order {
			if named[strings.ToLower(name)] {
				continue
			}
			plan = append(plan, change{stage: delStage, action: "delete", what: kindNoun(kind), id: ws + "/" + name,
				before: normObject(kind, have[strings.ToLower(name)], nil), apply: func(ctx context.Context) (string, error) {
					return "", c.DeleteObject(ctx, ws, kind, name)
				}})
		}
	}
	return plan, nil
}

// serverCollectionBody is a collection as the server answered it, in
// the shape ParseCollection reads.
func serverCollectionBody(r client.Resource) json.RawMessage {
	out, _ := json.Marshal(map[string]json.RawMessage{"location": mustJSON(r.Location), "tags": r.Tags, "properties": r.Properties})
	return out
}

// normCollection is a collection's settings as compared and shown: its
// location, tags, SKU and effective quota, and its state and note when
// withState.
func normCollection(def *models.JobCollection, withState bool) string {
	if def == nil {
		return ""
	}
	q := def.Quota()
	quota := map[string]any{"maxJobCount": q.MaxJobCount,
		"maxRecurrence": map[string]any{"frequency": q.MaxRecurrence.Frequency, "interval": q.MaxRecurrence.Interval}}
	if q.MaxJobOccurrence > 0 {
		quota["maxJobOccurrence"] = q.MaxJobOccurrence
	}
	props := map[string]any{"sku": map[string]string{"name": def.SKU}, "quota": quota}
	if withState {
		props["state"] = def.State
		if def.StateNote != "" {
			props["stateNote"] = def.StateNote
		}
	}
	var tags map[string]string
	_ = json.Unmarshal(def.Tags, &tags)
	if tags == nil {
		tags = map[string]string{}
	}
	out, _ := json.MarshalIndent(map[string]any{"location": def.Location, "tags": tags, "properties": props}, "", "  ")
	return string(out)
}

// serverJob reads a job as the server answered it: its definition (nil
// when it does not read back), state and state note.
func serverJob(r client.Resource) (*jobdef.Job, jobdef.State, string) {
	var props map[string]json.RawMessage
	_ = json.Unmarshal(r.Properties, &props)
	var state jobdef.State
	var note string
	_ = json.Unmarshal(props["state"], &state)
	_ = json.Unmarshal(props["stateNote"], &note)
	state = jobdef.State(strings.ToLower(string(state)))
	for _, k := range []string{"status", "stateChangedBy", "stateChangedAt"} {
		delete(props, k)
	}
	body, _ := json.Marshal(props)
	def, err := jobdef.ParseWith(body, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return nil, state, note
	}
	def.State, def.StateNote = state, note
	return def, state, note
}

// normJob is a job's definition as compared and shown: the canonical
// properties the server answers (times with their offsets, no secrets),
// indented.
func normJob(def *jobdef.Job) string {
	return indentJSON(def.MarshalProperties(jobdef.MarshalOptions{ResolveLocal: recurrence.WallInstant}))
}

// normObject is a calendar, monitor, channel or alert rule as compared and shown:
// as the server stores it, keys sorted, indented, without the name and
// times. For a channel, secrets are left out, and a Slack or Teams URL
// the file leaves out (the server keeps it) is taken from cur, the
// server's document, when given.
func normObject(kind client.Kind, doc, cur json.RawMessage) string {
	var canon json.RawMessage
	switch kind {
	case client.Calendars:
		cal, err := caldef.Parse(doc)
		if err != nil {
			return string(doc)
		}
		canon = cal.Marshal()
	case client.Alerts:
		r, err := notifydef.ParseRule(doc)
		if err != nil {
			return string(doc)
		}
		canon = r.Marshal()
	case client.Channels:
		canon = normChannel(doc, cur)
	case client.Monitors:
		m, err := monitordef.Parse(doc)
		if err != nil {
			return string(doc)
		}
		canon = m.Marshal()
	}
	var v any
	if json.Unmarshal(canon, &v) != nil {
		return string(canon)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// normChannel is normObject of a channel.
func normChannel(doc, cur json.RawMessage) json.RawMessage {
	var d struct {
		Type        string          `json:"type"`
		Description string          `json:"description"`
		Properties  json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(doc, &d)
	props := d.Properties
	if ch, err := notifydef.ParseChannel(doc, secretStub(doc)); err == nil {
		d.Type, d.Description, props = string(ch.Type), ch.Description, ch.Config()
		if (ch.Type == notifydef.Slack || ch.Type == notifydef.Teams) && !hasPath(doc, "properties", "url") {
			// No URL (a secret): the server's document shows its host,
			// and a file that leaves it out keeps the server's.
			switch {
			case hasPath(doc, "properties", "urlHost"):
				props = d.Properties
			case cur != nil:
				var c struct {
					Properties json.RawMessage `json:"properties"`
				}
				_ = json.Unmarshal(cur, &c)
				props = c.Properties
			}
		}
	} else {
		// The server's own document: its properties without the
		// password's flag, which the file cannot state.
		var m map[string]json.RawMessage
		if json.Unmarshal(props, &m) == nil {
			delete(m, "passwordSet")
			props, _ = json.Marshal(m)
		}
	}
	out, _ := json.Marshal(map[string]any{"type": strings.ToLower(d.Type), "description": d.Description, "properties": props})
	return out
}

// withState returns a job or collection body with state and note set
// (inside "properties" when inProps).
func withState(body json.RawMessage, inProps bool, state, note string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	target := m
	var props map[string]json.RawMessage
	if inProps {
		for k, v := range m {
			if strings.EqualFold(k, "properties") {
				_ = json.Unmarshal(v, &props)
				delete(m, k)
			}
		}
		if props == nil {
			props = map[string]json.RawMessage{}
		}
		target = props
	}
	target["state"] = mustJSON(state)
	if note != "" {
		target["stateNote"] = mustJSON(note)
	}
	if inProps {
		m["properties"] = mustJSON(props)
	}
	out, _ := json.Marshal(m)
	return out
}

// mustJSON marshals v, which cannot fail.
func mustJSON(v any) json.RawMessage {
	out, _ := json.Marshal(v)
	return out
}

// indentJSON indents raw.
func indentJSON(raw json.RawMessage) string {
	var b strings.Builder
	out, err := json.MarshalIndent(json.RawMessage(raw), "", "  ")
	if err != nil {
		return string(raw)
	}
	b.Write(out)
	return b.String()
}

// printPlan writes the plan: one line per change, an update followed by
// the difference of its definition, then the counts.
func printPlan(w io.Writer, plan []change) {
	if len(plan) == 0 {
		fmt.Fprintln(w, "No changes: the server matches the files.")
		return
	}
	counts := map[string]int{}
	for _, ch := range plan {
		counts[ch.action]++
		mark := map[string]string{"create": "+", "update": "~", "delete": "-"}[ch.action]
		line := fmt.Sprintf("%s %s %s %s", mark, ch.action, ch.what, ch.id)
		if ch.src.file != "" {
			line += "  (" + ch.src.String() + ")"
		}
		fmt.Fprintln(w, line)
		if ch.action == "update" {
			for _, l := range lineDiff(ch.before, ch.after) {
				fmt.Fprintln(w, "    "+l)
			}
		}
	}
	fmt.Fprintf(w, "Plan: %d to create, %d to update, %d to delete.\n", counts["create"], counts["update"], counts["delete"])
}

// pastTense is how the apply reports a change it made.
func pastTense(action string) string {
	return map[string]string{"create": "created", "update": "updated", "delete": "deleted"}[action]
}

// plural picks one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
