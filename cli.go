package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// stdio is the outside world of a command: its input and output streams
// and its environment.
type stdio struct {
	in     io.Reader
	out    io.Writer
	err    io.Writer
	getenv func(string) string
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the command failed
	exitUsage = 2 // bad command line, configuration or input
)

// usageError is a mistake in the command line or the input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand of sked.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, sio stdio, args []string) error
}

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
		{"secrets rotate", "re-encrypt job secrets with the first --secret-key, so older keys can go", cmdSecretsRotate},
		{"version", "print the version", cmdVersion},
		{"help", "show this help", nil},
	}
}

// runCLI runs the command named by args and returns the exit status.
func runCLI(ctx context.Context, args []string, sio stdio) int {
	name, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
		if name == "user" || name == "token" {
			if len(rest) == 0 || rest[0] != "add" {
				fmt.Fprintf(sio.err, "sked: usage: sked %s add …; run \"sked --help\"\n", name)
				return exitUsage
			}
			name, rest = name+" add", rest[1:]
		}
		if name == "workspace" {
			if len(rest) == 0 || !slices.Contains([]string{"add", "list", "rename", "delete"}, rest[0]) {
				fmt.Fprintln(sio.err, "sked: usage: sked workspace add|list|rename|delete …; run \"sked --help\"")
				return exitUsage
			}
			name, rest = "workspace "+rest[0], rest[1:]
		}
		if name == "audit" {
			if len(rest) == 0 || rest[0] != "list" {
				fmt.Fprintln(sio.err, "sked: usage: sked audit list --workspace WS …; run \"sked --help\"")
				return exitUsage
			}
			name, rest = "audit list", rest[1:]
		}
		if sub, ok := notifyCommands[name]; ok {
			if len(rest) == 0 || !slices.Contains(sub, rest[0]) {
				fmt.Fprintf(sio.err, "sked: usage: sked %s %s …; run \"sked --help\"\n", name, strings.Join(sub, "|"))
				return exitUsage
			}
			name, rest = name+" "+rest[0], rest[1:]
		}
		if name == "secrets" {
			if len(rest) == 0 || rest[0] != "rotate" {
				fmt.Fprintln(sio.err, "sked: usage: sked secrets rotate --secret-key NEW,OLD; run \"sked --help\"")
				return exitUsage
			}
			name, rest = "secrets rotate", rest[1:]
		}
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help") {
		printHelp(sio.out)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			err := c.run(ctx, sio, rest)
			switch {
			case err == nil:
				return exitOK
			case errors.Is(err, flag.ErrHelp):
				return exitOK
			}
			var re *reportedError
			if errors.As(err, &re) {
				return re.code
			}
			fmt.Fprintln(sio.err, "sked:", err)
			var ue *usageError
			var ce *ConfigError
			if errors.As(err, &ue) || errors.As(err, &ce) {
				return exitUsage
			}
			return exitError
		}
	}
	fmt.Fprintf(sio.err, "sked: unknown command %q; run \"sked --help\" for the list\n", name)
	return exitUsage
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

func newLogger(w io.Writer, cfg Config) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel}))
}

func cmdServe(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("serve", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("serve takes no arguments, got %q", rest)
	}
	return run(ctx, cfg, newLogger(sio.err, cfg), nil)
}

func cmdMigrate(ctx context.Context, sio stdio, args []string) error {
	cfg, rest, err := parseFlags("migrate", sio, args, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("migrate takes no arguments, got %q", rest)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer db.Close()
	v, err := db.Store.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintf(sio.out, "database schema is at version %d\n", v)
	return nil
}

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

func cmdTokenAdd(ctx context.Context, sio stdio, args []string) error {
	var name, role, expires string
	var workspaces stringList
	cfg, rest, err := parseFlags("token add", sio, args, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "api", "a name that says what the token is for")
		fs.Var(&workspaces, "workspace", "a workspace the token covers (repeat for more; default: all the user's)")
		fs.StringVar(&role, "role", "owner", "the most the token may do: reader, operator, editor or owner (capped by the user's role)")
		fs.StringVar(&expires, "expires", "", "the day (YYYY-MM-DD, UTC) from which the token is refused; default never")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("usage: sked token add USER [--name NAME] [--workspace WS]... [--role ROLE] [--expires 2027-01-01]")
	}
	scope, err := tokenScope(workspaces, role, expires)
	if err != nil {
		return usagef("token add: %v", err)
	}
	db, err := openDatabase(ctx, cfg, newLogger(sio.err, cfg))
	if err != nil {
		return fmt.Errorf("token add: %w", err)
	}
	defer db.Close()
	user, err := db.Store.UserByName(ctx, rest[0])
	if errors.Is(err, models.ErrNotFound) {
		return usagef("token add: there is no user %q", rest[0])
	}
	if err != nil {
		return fmt.Errorf("token add: %w", err)
	}
	_, token, err := catalog.New(db.Store, nil).CreateToken(ctx, cliActor(nil), user, name, scope)
	var ve *problem.List
	if errors.As(err, &ve) {
		return usagef("token add: %v", err)
	}
	if err != nil {
		return fmt.Errorf("token add: %w", err)
	}
	fmt.Fprintln(sio.out, token)
	return nil
}

func cmdVersion(ctx context.Context, sio stdio, args []string) error {
	fmt.Fprintln(sio.out, "sked", version)
	return nil
}
