package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"sked/client"
)

// remoteFlags are the flags of the commands that talk to a running Sked
// over its REST API (SPEC §15.3): apply, diff, jobs, collections and targets. They
// take none of the configuration flags: these commands never open the
// database.
type remoteFlags struct {
	// server is the Sked's URL (--server, SKED_SERVER).
	server string
	// token is an API token (--token, SKED_TOKEN).
	token string
}

// parseRemoteFlags parses args for the remote command name with
// --server and --token plus the flags extra adds, flags and positional
// arguments in any order, and returns the flags and the positional
// arguments. SKED_SERVER and SKED_TOKEN are the defaults.
func parseRemoteFlags(name string, sio stdio, args []string, extra func(*flag.FlagSet)) (remoteFlags, []string, error) {
	var rf remoteFlags
	fs := flag.NewFlagSet("sked "+name, flag.ContinueOnError)
	fs.SetOutput(sio.err)
	// The environment fills in after parsing, so that --help never
	// prints the token as a default.
	fs.StringVar(&rf.server, "server", "", "URL of the Sked server, e.g. https://sked.example.com (default $SKED_SERVER)")
	fs.StringVar(&rf.token, "token", "", "API token (default $SKED_TOKEN; sked token add or the Tokens page issues one)")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return rf, nil, err
		}
		return rf, nil, usagef("%v", err)
	}
	positional := []string{}
	for fs.NArg() > 0 {
		positional = append(positional, fs.Arg(0))
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return rf, nil, usagef("%v", err)
		}
	}
	if rf.server == "" {
		rf.server = sio.getenv("SKED_SERVER")
	}
	if rf.token == "" {
		rf.token = sio.getenv("SKED_TOKEN")
	}
	return rf, positional, nil
}

// client returns the API client of the flags' server and token; a
// missing or bad one is a usage error saying how to give it.
func (rf remoteFlags) client() (*client.Client, error) {
	var missing []string
	if strings.TrimSpace(rf.server) == "" {
		missing = append(missing, "the server: give --server URL or set SKED_SERVER")
	}
	if strings.TrimSpace(rf.token) == "" {
		missing = append(missing, "an API token: give --token TOKEN or set SKED_TOKEN (sked token add USER issues one)")
	}
	if len(missing) > 0 {
		return nil, usagef("missing %s", strings.Join(missing, "; and "))
	}
	c, err := client.New(rf.server, rf.token)
	if err != nil {
		return nil, usagef("--server: %v", strings.TrimPrefix(err.Error(), "client: "))
	}
	return c, nil
}

// outputFormat is the --output flag of the listing commands: table (for
// people) or json (for scripts).
type outputFormat string

// Set accepts table or json.
func (o *outputFormat) Set(v string) error {
	switch strings.ToLower(v) {
	case "table", "json":
		*o = outputFormat(strings.ToLower(v))
		return nil
	}
	return fmt.Errorf("%q is not table or json", v)
}

func (o *outputFormat) String() string { return string(*o) }
