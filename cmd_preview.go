package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// maxPreviewInput bounds what `sked preview` reads; anything larger than a
// job may be (jobdef.MaxJobBytes) is refused by the parser with a message.
const maxPreviewInput = 4 * jobdef.MaxJobBytes

// cmdPreview implements `sked preview [--now RFC3339] [-n N] [--json]
// [--calendar NAME=FILE …] [FILE]` (SPEC §3): the next N occurrences of
// the job in FILE (or stdin) as if it were created at --now, with the
// warnings (targets that SKED_ALLOW_TARGETS would refuse among them). It
// needs no database. Invalid input: exit status 2, nothing on stdout, one
// validation error per line on stderr.
func cmdPreview(ctx context.Context, sio stdio, args []string) error {
	fs := flag.NewFlagSet("sked preview", flag.ContinueOnError)
	fs.SetOutput(sio.err)
	nowFlag := fs.String("now", "", "the creation time to preview from, RFC 3339 (default: the current time)")
	n := fs.Int("n", recurrence.DefaultPreviewCount, "how many occurrences to show (1–1000)")
	asJSON := fs.Bool("json", false, `print one JSON object {"occurrences", "description", "warnings"}`)
	var calFiles calendarFlags
	fs.Var(&calFiles, "calendar", "NAME=FILE: a calendar (its JSON, as GET /api/v1/workspaces/{ws}/calendars/{name} answers) that the job may exclude; repeatable")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 1 {
		return usagef("usage: sked preview [--now RFC3339] [-n N] [--json] [--calendar NAME=FILE …] [FILE]")
	}
	var problems []string
	now := time.Now()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--now: %q is not an RFC 3339 date-time such as 2026-01-02T15:04:05Z", *nowFlag))
		}
		now = t
	}
	if *n < 1 || *n > recurrence.MaxPreviewCount {
		problems = append(problems, fmt.Sprintf("-n: %d is not from 1 to %d", *n, recurrence.MaxPreviewCount))
	}
	input, err := readPreviewInput(sio, fs.Arg(0))
	if err != nil {
		return err
	}
	job, err := jobdef.Parse(input)
	if ve := problem.As(err); ve != nil {
		problems = append(problems, ve.Lines()...)
	} else if err != nil {
		return err
	}
	cals, calProblems := calFiles.load()
	problems = append(problems, calProblems...)
	var res recurrence.Result
	if len(problems) == 0 {
		res, err = recurrence.PreviewWith(job, now, *n, recurrence.Options{Calendars: cals})
		if ve := problem.As(err); ve != nil {
			problems = append(problems, ve.Lines()...)
		} else if err != nil {
			return err
		}
		// Targets the engine would refuse, given SKED_ALLOW_TARGETS.
		var allow Config
		_ = parseAllowTargets(&allow, sio.getenv("SKED_ALLOW_TARGETS"))
		res.Warnings = append(res.Warnings, catalog.TargetWarnings(job, allow.AllowTargets)...)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(sio.err, p)
		}
		return &reportedError{code: exitUsage}
	}
	if *asJSON {
		return json.NewEncoder(sio.out).Encode(res)
	}
	fmt.Fprintln(sio.out, res.Description)
	for _, o := range res.Occurrences {
		fmt.Fprintln(sio.out, o.Format(time.RFC3339))
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(sio.out, "warning:", w)
	}
	return nil
}

// readPreviewInput reads the job from path, or from stdin when path is
// empty or "-".
func readPreviewInput(sio stdio, path string) ([]byte, error) {
	r := sio.in
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, usagef("%v", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPreviewInput+1))
	if err != nil {
		return nil, fmt.Errorf("preview: read job: %w", err)
	}
	return data, nil
}

// calendarFlags are the --calendar NAME=FILE flags of `sked preview`.
type calendarFlags []string

// String returns the flags as given.
func (f *calendarFlags) String() string { return strings.Join(*f, ",") }

// Set adds one NAME=FILE.
func (f *calendarFlags) Set(v string) error {
	name, file, ok := strings.Cut(v, "=")
	if !ok || name == "" || file == "" {
		return fmt.Errorf("want NAME=FILE, not %q", v)
	}
	*f = append(*f, v)
	return nil
}

// load reads and compiles the calendars, returning one problem per line
// for those it cannot ("--calendar holidays: entries[2].to: …").
func (f calendarFlags) load() (recurrence.Calendars, []string) {
	cals := recurrence.Calendars{}
	var problems []string
	for _, v := range f {
		name, file, _ := strings.Cut(v, "=")
		prefix := "--calendar " + name + ": "
		if !jobdef.ValidCalendarName(name) {
			problems = append(problems, prefix+"not a calendar name (1–64 letters, digits, '-', '_' or '.')")
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			problems = append(problems, prefix+err.Error())
			continue
		}
		def, err := caldef.Parse(data)
		if ve := problem.As(err); ve != nil {
			for _, line := range ve.Lines() {
				problems = append(problems, prefix+line)
			}
			continue
		}
		cal, err := recurrence.CompileCalendar(name, def)
		if err != nil {
			problems = append(problems, prefix+err.Error())
			continue
		}
		cals[strings.ToLower(name)] = cal
	}
	return cals, problems
}
