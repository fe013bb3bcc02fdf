// Command sked is a self-hosted job scheduler that speaks the job JSON and
// the REST API of the retired Azure Scheduler.
//
// main only wires: it picks the command named on the command line
// (commands, runCLI), whose flags and environment build the Config
// (parseFlags, config.go), and calls it. Each command lives in its own
// file, cmd_NAME.go: serve (cmd_serve.go) runs the server; the others
// open the database (database.go) for their own duration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runCLI(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, getenv: os.Getenv}))
}

// stdio is the outside world of a command: its input and output streams
// and its environment.
type stdio struct {
	in     io.Reader
	out    io.Writer
	err    io.Writer
	getenv func(string) string
}

// command is one command of sked. A name of two words ("workspace add")
// is a subcommand of the first word's group.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, sio stdio, args []string) error
}

// commands lists every command, in the order of the help.
func commands() []command {
	return []command{
		{"serve", "run the web UI, the REST API and the engine (the default command)", cmdServe},
		{"migrate", "apply pending database migrations and exit", cmdMigrate},
		{"preview", "print the next occurrences of a job: sked preview [--now T] [-n N] [--json] [FILE]", cmdPreview},
		{"user add", "create a user: sked user add NAME [--admin], password read from stdin", cmdUserAdd},
		{"token add", "issue an API token: sked token add USER [--name NAME] [--workspace WS]... [--role ROLE] [--expires 2027-01-01], printed once on stdout", cmdTokenAdd},
		{"workspace add", "create a workspace: sked workspace add ID [--name DISPLAY] --owner USER", cmdWorkspaceAdd},
		{"workspace list", "list the workspaces with their members' roles", cmdWorkspaceList},
		{"workspace rename", "set a workspace's display name: sked workspace rename ID DISPLAY", cmdWorkspaceRename},
		{"workspace delete", "delete an empty workspace: sked workspace delete ID", cmdWorkspaceDelete},
		{"audit list", "print a workspace's audit log: sked audit list --workspace WS [--actor USER] [--resource PATH] [--action A] [--since DAY] [--until DAY]", cmdAuditList},
		{"channel list", "list a workspace's notification channels: sked channel list [--workspace WS]", cmdChannelList},
		{"channel add", "add a channel: sked channel add NAME --type webhook|slack|teams|email [--url URL] [--host H --port N --security S --smtp-user U --from F --to T...]; a webhook's secret is printed once", cmdChannelAdd},
		{"channel delete", "delete a channel no alert rule uses: sked channel delete NAME", cmdChannelDelete},
		{"channel test", "send a test event to a channel and print the answer: sked channel test NAME", cmdChannelTest},
		{"alert list", "list a workspace's alert rules: sked alert list [--workspace WS]", cmdAlertList},
		{"alert add", "add or replace an alert rule: sked alert add NAME --channel C --event E... [--resource-group RG [--collection JC [--job J]]] [--threshold N] [--min-interval PT15M]", cmdAlertAdd},
		{"alert delete", "delete an alert rule: sked alert delete NAME", cmdAlertDelete},
		{"import", "import jobs from a JSON file: sked import FILE [--dry-run] [--mode all|valid] [--on-conflict skip|replace] …", cmdImport},
		{"export", "print jobs as JSON, without secrets: sked export [--resource-group RG --collection JC [--job NAME]] …", cmdExport},
		{"apply", "make a server match JSON files (over the REST API): sked apply -f PATH [--prune] [--dry-run] --server URL --token T", cmdApply},
		{"diff", "print what sked apply would change; exit 2 when there are changes: sked diff -f PATH [--prune]", cmdDiff},
		{"jobs list", "list a server's jobs: sked jobs list [--subscription WS] [--resource-group RG] [--collection JC] [--state S] [--output json]", cmdJobsList},
		{"jobs show", "show a job: sked jobs show JOB --resource-group RG --collection JC [--output json]", cmdJobsShow},
		{"jobs run", "run a job now, optionally with changes for this run: sked jobs run JOB --resource-group RG --collection JC [--header 'Name: value'...] [--body TEXT | --body-file FILE]", cmdJobsRun},
		{"jobs backfill", "backfill a job's past occurrences: sked jobs backfill JOB --resource-group RG --collection JC --from T --to T [--only missing|failed|all] [--order oldestFirst|newestFirst] [--max-concurrent N] [--dry-run]", cmdJobsBackfill},
		{"jobs history", "a job's history, newest first: sked jobs history JOB --resource-group RG --collection JC [--status S] [-n N]", cmdJobsHistory},
		{"targets list", "list a workspace's target limits on a server: sked targets list [--workspace WS] [--output json]", cmdTargetsList},
		{"targets set", "limit what a workspace's jobs send to one host: sked targets set HOST [--max-concurrent N] [--max-per-second N] [--workspace WS]", cmdTargetsSet},
		{"targets delete", "remove a host's limit: sked targets delete HOST [--workspace WS]", cmdTargetsDelete},
		{"collections list", "list a server's job collections: sked collections list [--subscription WS] [--resource-group RG] [--output json]", cmdCollectionsList},
		{"secrets rotate", "re-encrypt job secrets with the first --secret-key, so older keys can go", cmdSecretsRotate},
		{"version", "print the version", cmdVersion},
		{"help", "show this help", nil},
	}
}

// runCLI runs the command named by args (serve when args start with a
// flag or are empty) and returns the exit status.
func runCLI(ctx context.Context, args []string, sio stdio) int {
	name, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
		if subs := subcommands(name); len(subs) > 0 {
			if len(rest) == 0 || !slices.Contains(subs, rest[0]) {
				fmt.Fprintf(sio.err, "sked: usage: sked %s %s …; run \"sked --help\"\n", name, strings.Join(subs, "|"))
				return exitUsage
			}
			name, rest = name+" "+rest[0], rest[1:]
		}
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help") {
		printHelp(sio.out)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return exitStatus(sio, c.run(ctx, sio, rest))
		}
	}
	fmt.Fprintf(sio.err, "sked: unknown command %q; run \"sked --help\" for the list\n", name)
	return exitUsage
}

// subcommands returns the subcommands of the group named group ("add",
// "list", … for "workspace"), in the order of commands; none when group
// is not a group.
func subcommands(group string) []string {
	var subs []string
	for _, c := range commands() {
		if g, sub, ok := strings.Cut(c.name, " "); ok && g == group {
			subs = append(subs, sub)
		}
	}
	return subs
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "Sked is a self-hosted job scheduler that speaks the Azure Scheduler API.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: sked [COMMAND] [FLAGS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "sked COMMAND --help" for the flags of a command. Every flag also`)
	fmt.Fprintln(w, "has an environment variable (SKED_LISTEN for --listen, and so on).")
}

// parseFlags parses args for command name with the configuration flags plus
// those extra adds, and returns the configuration and the positional
// arguments.
func parseFlags(name string, sio stdio, args []string, extra func(*flag.FlagSet)) (Config, []string, error) {
	fs := flag.NewFlagSet("sked "+name, flag.ContinueOnError)
	fs.SetOutput(sio.err)
	load := registerConfigFlags(fs, sio.getenv)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, nil, err
		}
		return Config{}, nil, usagef("%v", err)
	}
	// Flags may also follow positional arguments: sked user add NAME --admin.
	positional := []string{}
	for fs.NArg() > 0 {
		positional = append(positional, fs.Arg(0))
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return Config{}, nil, usagef("%v", err)
		}
	}
	cfg, err := load()
	return cfg, positional, err
}

// stringList is a flag that may be repeated (--workspace a --workspace b).
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// newLogger returns the logger of a command: text on w, from cfg.LogLevel.
func newLogger(w io.Writer, cfg Config) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel}))
}
