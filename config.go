package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"sked/models"
	"sked/scheduler/action"
	"sked/scheduler/engine"
)

// Config is Sked's configuration. Each setting comes from a flag, else from
// its SKED_* environment variable, else from its default (the settings
// table). Each command builds it once from its command line (parseFlags)
// and passes it down; nothing reads it globally. The zero Config is not
// valid: Validate refuses, among others, an empty Listen and DataDir.
type Config struct {
	// Listen is the HTTP listen address (--listen, SKED_LISTEN). Default ":8080".
	Listen string
	// DataDir holds the embedded PostgreSQL cluster, the generated session
	// secret and job secrets key, and the serve lock (--data-dir,
	// SKED_DATA_DIR). Default "./data".
	DataDir string
	// DatabaseURL names an external PostgreSQL database (--database-url,
	// SKED_DATABASE_URL). Empty (the default) means the embedded one.
	DatabaseURL string
	// DatabasePooler says what --database-url points at
	// (--database-pooler, SKED_DATABASE_POOLER): models.PoolerNone (the
	// default, "none"; empty means the same) for PostgreSQL itself, models.PoolerTransaction
	// ("transaction") for a pooler such as PgBouncer in transaction mode,
	// with which Sked uses no session state and no server-side prepared
	// statements. It needs DatabaseURL.
	DatabasePooler models.Pooler
	// ListenDatabaseURL is a direct PostgreSQL URL used only for LISTEN
	// (--listen-database-url, SKED_LISTEN_DATABASE_URL), for when
	// DatabaseURL points at a pooler in transaction mode (LISTEN needs a
	// session of its own). Empty (the default) means DatabaseURL's
	// database, or behind such a pooler no LISTEN: the engine polls every
	// second (Polls). It needs DatabaseURL.
	ListenDatabaseURL string
	// BaseURL is the address users reach Sked at (--base-url,
	// SKED_BASE_URL). An https URL makes cookies Secure. Default empty.
	BaseURL string
	// SessionSecret keys the CSRF tokens of visitors who have not signed
	// in and the OpenID Connect sign-in's flow cookie (--session-secret,
	// SKED_SESSION_SECRET), at least 32 characters; sessions themselves
	// are kept in the database. Empty (the default)
	// means a random secret generated once and kept in the data directory.
	SessionSecret string
	// SessionIdleTimeout ends a session that has not been used for this
	// long (--session-idle-timeout, SKED_SESSION_IDLE_TIMEOUT, a duration;
	// "d" means days). Default 12h; at least 1m.
	SessionIdleTimeout time.Duration
	// SessionMaxAge ends a session this long after sign-in, however busy
	// (--session-max-age, SKED_SESSION_MAX_AGE). Default 14d; at least 1m.
	SessionMaxAge time.Duration
	// TrustedProxies lists the reverse proxies whose X-Forwarded-For (or
	// X-Real-IP) names the client (--trusted-proxies, SKED_TRUSTED_PROXIES,
	// comma-separated CIDRs or addresses). Default none: the client is the
	// connection's peer, and loopback or private peers are not trusted
	// unless listed.
	TrustedProxies []netip.Prefix
	// AllowTargets lists the outbound networks that jobs may call although
	// they are loopback, private or link-local (--allow-targets,
	// SKED_ALLOW_TARGETS, comma-separated CIDRs or addresses). Default none.
	AllowTargets []netip.Prefix
	// SecretKey encrypts the secrets of jobs at rest (--secret-key,
	// SKED_SECRET_KEY): 64 hex digits (AES-256), or several separated by
	// commas to rotate (the first encrypts, all decrypt). Empty (the
	// default) means a key generated once and kept in the data directory.
	SecretKey string
	// OAuthAuthority is the base URL of the activeDirectoryOAuth token
	// authority (--oauth-authority, SKED_OAUTH_AUTHORITY). Default
	// https://login.microsoftonline.com.
	OAuthAuthority string
	// StorageEndpoint is the Azure Storage queue endpoint with {account}
	// (--storage-endpoint, SKED_STORAGE_ENDPOINT). Default
	// https://{account}.queue.core.windows.net.
	StorageEndpoint string
	// ServiceBusEndpoint is the Service Bus endpoint with {namespace}
	// (--servicebus-endpoint, SKED_SERVICEBUS_ENDPOINT). Default
	// https://{namespace}.servicebus.windows.net.
	ServiceBusEndpoint string
	// LogLevel is the lowest level logged (--log-level, SKED_LOG_LEVEL:
	// debug, info, warn, error). Default info.
	LogLevel slog.Level
	// ShutdownTimeout bounds a graceful shutdown (--shutdown-timeout,
	// SKED_SHUTDOWN_TIMEOUT, a Go duration). Default 30s.
	ShutdownTimeout time.Duration
	// MaxClockOffset is the largest offset of the instance's clock from the
	// database's at which the engine starts attempts (--max-clock-offset,
	// SKED_MAX_CLOCK_OFFSET, a Go duration). Default 5s; 0 turns the check
	// off.
	MaxClockOffset time.Duration
	// Workers caps the job attempts the engine runs at once (--workers,
	// SKED_WORKERS). Default 256.
	Workers int
	// ClaimOverlap is how many claims the engine runs at once during a
	// burst of due jobs (--claim-overlap, SKED_CLAIM_OVERLAP; see
	// engine.Config.ClaimOverlap). Default 2; 1 claims one batch at a time.
	ClaimOverlap int
	// HistoryMaxAge deletes history entries older than this
	// (--history-max-age, SKED_HISTORY_MAX_AGE, a duration; "d" means
	// days). Default 60d; 0 keeps them.
	HistoryMaxAge time.Duration
	// HistoryPerJob keeps only the newest entries of each job
	// (--history-per-job, SKED_HISTORY_PER_JOB); the others go once their
	// UTC day has closed. Default 1000; 0 keeps all.
	HistoryPerJob int
	// FinishedJobMaxAge deletes completed and faulted jobs this long after
	// they ended (--finished-job-max-age, SKED_FINISHED_JOB_MAX_AGE).
	// Default 60d; 0 keeps them.
	FinishedJobMaxAge time.Duration
	// AuditMaxAge deletes audit log entries older than this
	// (--audit-max-age, SKED_AUDIT_MAX_AGE). Default 400d; 0 keeps them;
	// otherwise at least 1d.
	AuditMaxAge time.Duration
	// OIDC is the OpenID Connect sign-in (--oidc-*, config_oidc.go).
	OIDC OIDCConfig
	// OpenWorkspaces lets every user create workspaces
	// (--open-workspaces, SKED_OPEN_WORKSPACES: true or false). Default
	// false: only instance administrators create them. The creator of a
	// workspace is its owner.
	OpenWorkspaces bool
}

// setting describes one configuration setting: its flag, its environment
// variable, its default and its help line, and apply, which parses a value
// into a Config (an error names what is wrong with the value).
type setting struct {
	flag, env, def, help string
	apply                func(c *Config, v string) error
}

// settings are every configuration setting, the OpenID Connect ones
// (config_oidc.go) last; the flags are registered in this order.
var settings = append([]setting{
	{"listen", "SKED_LISTEN", ":8080", "HTTP listen address", func(c *Config, v string) error { c.Listen = v; return nil }},
	{"data-dir", "SKED_DATA_DIR", "./data", "data directory (embedded PostgreSQL, session secret)", func(c *Config, v string) error { c.DataDir = v; return nil }},
	{"database-url", "SKED_DATABASE_URL", "", "PostgreSQL URL; empty runs the embedded PostgreSQL", func(c *Config, v string) error { c.DatabaseURL = v; return nil }},
	{"database-pooler", "SKED_DATABASE_POOLER", "none", "what --database-url points at: none (PostgreSQL) or transaction (PgBouncer in transaction mode)", func(c *Config, v string) error {
		var err error
		c.DatabasePooler, err = models.ParsePooler(v)
		return err
	}},
	{"listen-database-url", "SKED_LISTEN_DATABASE_URL", "", "direct PostgreSQL URL used only for LISTEN, when --database-url is a pooler", func(c *Config, v string) error { c.ListenDatabaseURL = v; return nil }},
	{"base-url", "SKED_BASE_URL", "", "public URL of Sked (https makes cookies Secure)", func(c *Config, v string) error { c.BaseURL = v; return nil }},
	{"session-secret", "SKED_SESSION_SECRET", "", "session cookie secret, 32+ characters; empty generates one in the data directory", func(c *Config, v string) error { c.SessionSecret = v; return nil }},
	{"session-idle-timeout", "SKED_SESSION_IDLE_TIMEOUT", "12h", `end a session unused for this long ("d" = days)`, func(c *Config, v string) error {
		return parseAge(&c.SessionIdleTimeout, v)
	}},
	{"session-max-age", "SKED_SESSION_MAX_AGE", "14d", `end a session this long after sign-in ("d" = days)`, func(c *Config, v string) error {
		return parseAge(&c.SessionMaxAge, v)
	}},
	{"trusted-proxies", "SKED_TRUSTED_PROXIES", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed", func(c *Config, v string) error {
		var err error
		c.TrustedProxies, err = parsePrefixes(v)
		return err
	}},
	{"allow-targets", "SKED_ALLOW_TARGETS", "", "comma-separated CIDRs that jobs may call although private or loopback", parseAllowTargets},
	{"secret-key", "SKED_SECRET_KEY", "", "job secrets encryption key, 64 hex digits (comma-separated to rotate); empty generates one in the data directory", parseSecretKey},
	{"oauth-authority", "SKED_OAUTH_AUTHORITY", action.DefaultOAuthAuthority, "base URL of the activeDirectoryOAuth token authority", parseBaseURL("oauth-authority", func(c *Config, v string) { c.OAuthAuthority = v })},
	{"storage-endpoint", "SKED_STORAGE_ENDPOINT", action.DefaultStorageEndpoint, "Azure Storage queue endpoint; {account} is the storage account", parseBaseURL("storage-endpoint", func(c *Config, v string) { c.StorageEndpoint = v })},
	{"servicebus-endpoint", "SKED_SERVICEBUS_ENDPOINT", action.DefaultServiceBusEndpoint, "Service Bus endpoint; {namespace} is the namespace", parseBaseURL("servicebus-endpoint", func(c *Config, v string) { c.ServiceBusEndpoint = v })},
	{"log-level", "SKED_LOG_LEVEL", "info", "log level: debug, info, warn, error", parseLogLevel},
	{"shutdown-timeout", "SKED_SHUTDOWN_TIMEOUT", "30s", "how long a graceful shutdown may take", parseShutdownTimeout},
	{"max-clock-offset", "SKED_MAX_CLOCK_OFFSET", "5s", "start no attempts while this instance's clock is further than this from the database's (0 turns the check off)", func(c *Config, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 {
			return fmt.Errorf("%q is not a duration such as 5s (0 turns the check off)", v)
		}
		c.MaxClockOffset = d
		return nil
	}},
	{"workers", "SKED_WORKERS", "256", "job attempts the engine runs at once (1–100000)", func(c *Config, v string) error {
		return parseCount(&c.Workers, v, 1, 100000)
	}},
	{"claim-overlap", "SKED_CLAIM_OVERLAP", "2", "claims the engine runs at once during a burst of due jobs (1–16)", func(c *Config, v string) error {
		return parseCount(&c.ClaimOverlap, v, 1, 16)
	}},
	{"history-max-age", "SKED_HISTORY_MAX_AGE", "60d", `delete history older than this ("d" = days; 0 keeps it)`, func(c *Config, v string) error {
		return parseAge(&c.HistoryMaxAge, v)
	}},
	{"history-per-job", "SKED_HISTORY_PER_JOB", "1000", "keep only this many newest history entries per job (0 keeps all)", func(c *Config, v string) error {
		return parseCount(&c.HistoryPerJob, v, 0, 1000000)
	}},
	{"open-workspaces", "SKED_OPEN_WORKSPACES", "false", "let every user create workspaces (not only administrators)", func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		c.OpenWorkspaces = b
		return nil
	}},
	{"finished-job-max-age", "SKED_FINISHED_JOB_MAX_AGE", "60d", "delete completed and faulted jobs this long after they ended (0 keeps them)", func(c *Config, v string) error {
		return parseAge(&c.FinishedJobMaxAge, v)
	}},
	{"audit-max-age", "SKED_AUDIT_MAX_AGE", "400d", "delete audit log entries older than this (0 keeps them; at least 1d)", func(c *Config, v string) error {
		return parseAge(&c.AuditMaxAge, v)
	}},
}, oidcSettings...)

// ConfigError names the setting that has a bad value.
type ConfigError struct {
	Flag, Env string
	Problem   string
}

// Error returns e.g. `invalid --listen (SKED_LISTEN): missing port in address`.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid --%s (%s): %s", e.Flag, e.Env, e.Problem)
}

// settingByFlag returns the setting of flag name; it panics for a name
// that is not a setting's flag (a mistake in the code).
func settingByFlag(name string) setting {
	for _, s := range settings {
		if s.flag == name {
			return s
		}
	}
	panic("no setting " + name)
}

// configError returns a ConfigError for the setting of flag flagName
// with the problem format makes of args.
func configError(flagName, format string, args ...any) *ConfigError {
	s := settingByFlag(flagName)
	return &ConfigError{Flag: s.flag, Env: s.env, Problem: fmt.Sprintf(format, args...)}
}

// registerConfigFlags adds every setting's flag to fs and returns a function
// that builds the Config from the flags given, the environment (getenv)
// and the defaults, and validates it.
func registerConfigFlags(fs *flag.FlagSet, getenv func(string) string) func() (Config, error) {
	values := make([]*string, len(settings))
	for i, s := range settings {
		help := fmt.Sprintf("%s (env %s)", s.help, s.env)
		values[i] = new(string)
		if s.def == "false" {
			// A switch: --open-workspaces alone means true.
			fs.Var(boolString{values[i]}, s.flag, help+defaultNote(s.def))
			continue
		}
		fs.StringVar(values[i], s.flag, "", help+defaultNote(s.def))
	}
	return func() (Config, error) {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		var c Config
		for i, s := range settings {
			v := s.def
			if given[s.flag] {
				v = *values[i]
			} else if e, ok := lookupEnv(getenv, s.env); ok {
				v = e
			}
			if err := s.apply(&c, v); err != nil {
				return Config{}, &ConfigError{Flag: s.flag, Env: s.env, Problem: err.Error()}
			}
		}
		return c, c.Validate()
	}
}

// boolString is a flag.Value kept as text, that may be given alone
// (--open-workspaces) to mean "true".
type boolString struct{ p *string }

func (b boolString) String() string {
	if b.p == nil {
		return ""
	}
	return *b.p
}
func (b boolString) Set(v string) error { *b.p = v; return nil }
func (b boolString) IsBoolFlag() bool   { return true }

// defaultNote is the end of a flag's help line naming its default def;
// "" when there is none.
func defaultNote(def string) string {
	if def == "" {
		return ""
	}
	return " (default " + strconv.Quote(def) + ")"
}

// lookupEnv treats an empty variable as unset.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// Validate checks every setting and returns a *ConfigError naming the first
// bad one.
func (c Config) Validate() error {
	host, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return configError("listen", "%q is not host:port (%v)", c.Listen, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return configError("listen", "port %q must be a number from 0 to 65535", port)
	}
	if host != "" && net.ParseIP(host) == nil && strings.ContainsAny(host, " /") {
		return configError("listen", "host %q is not an address or a name", host)
	}
	if strings.TrimSpace(c.DataDir) == "" {
		return configError("data-dir", "must not be empty")
	}
	if c.DatabaseURL != "" {
		if err := validateDatabaseURL(c.DatabaseURL); err != nil {
			return configError("database-url", "%v", err)
		}
	}
	if c.DatabasePooler == models.PoolerTransaction && c.DatabaseURL == "" {
		return configError("database-pooler", "%q needs --database-url (the embedded PostgreSQL has no pooler)", c.DatabasePooler)
	}
	if c.ListenDatabaseURL != "" {
		if c.DatabaseURL == "" {
			return configError("listen-database-url", "needs --database-url (Sked listens on the embedded PostgreSQL itself)")
		}
		if err := validateDatabaseURL(c.ListenDatabaseURL); err != nil {
			return configError("listen-database-url", "%v", err)
		}
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return configError("base-url", "%q must be an absolute http:// or https:// URL", c.BaseURL)
		}
	}
	if c.SessionSecret != "" && len(c.SessionSecret) < 32 {
		return configError("session-secret", "must be at least 32 characters (it has %d)", len(c.SessionSecret))
	}
	if c.SessionIdleTimeout < time.Minute {
		return configError("session-idle-timeout", "must be at least 1m")
	}
	if c.SessionMaxAge < time.Minute {
		return configError("session-max-age", "must be at least 1m")
	}
	if c.ShutdownTimeout <= 0 {
		return configError("shutdown-timeout", "must be positive")
	}
	if c.AuditMaxAge != 0 && c.AuditMaxAge < 24*time.Hour {
		return configError("audit-max-age", "must be 0 (keep the audit log) or at least 1d")
	}
	return c.OIDC.validate()
}

// validateDatabaseURL accepts postgres:// and postgresql:// URLs and
// keyword/value strings such as "host=/run/pg dbname=sked".
func validateDatabaseURL(s string) error {
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return errors.New("not a valid URL")
		}
		if u.Scheme != "postgres" && u.Scheme != "postgresql" {
			return fmt.Errorf("scheme %q is not postgres:// or postgresql://", u.Scheme)
		}
		return nil
	}
	if !strings.Contains(s, "=") {
		return errors.New("must be a postgres:// URL or key=value pairs such as \"host=/tmp dbname=sked\"")
	}
	return nil
}

// Polls reports whether the engine polls the database every second
// instead of listening for its notifications: behind a pooler in
// transaction mode without ListenDatabaseURL.
func (c Config) Polls() bool {
	return c.DatabasePooler == models.PoolerTransaction && c.ListenDatabaseURL == ""
}

// PollInterval is the engine's safety poll when it polls (Config.Polls).
const PollInterval = time.Second

// SecureCookies reports whether cookies must be marked Secure: when the
// base URL is https.
func (c Config) SecureCookies() bool {
	return strings.HasPrefix(strings.ToLower(c.BaseURL), "https://")
}

// parseAllowTargets sets c.AllowTargets from v (parsePrefixes).
func parseAllowTargets(c *Config, v string) error {
	var err error
	c.AllowTargets, err = parsePrefixes(v)
	return err
}

// parsePrefixes parses comma-separated CIDRs or addresses (an address is a
// prefix of its full length); "" gives none.
func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		addr, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or an IP address", part)
		}
		out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
	}
	return out, nil
}

// parseSecretKey checks that every comma-separated key is 64 hex digits.
func parseSecretKey(c *Config, v string) error {
	c.SecretKey = strings.TrimSpace(v)
	_, err := decodeSecretKeys(c.SecretKey)
	return err
}

// decodeSecretKeys decodes comma-separated hex keys; "" gives none.
func decodeSecretKeys(v string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, err := hex.DecodeString(part)
		if err != nil || len(k) != models.SecretKeySize {
			return nil, fmt.Errorf("key %d is not %d hex digits", i+1, 2*models.SecretKeySize)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// parseBaseURL returns a setting parser for an absolute http(s) URL.
func parseBaseURL(name string, set func(c *Config, v string)) func(c *Config, v string) error {
	return func(c *Config, v string) error {
		u, err := url.Parse(strings.ReplaceAll(strings.ReplaceAll(v, "{account}", "a"), "{namespace}", "n"))
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("%q is not an absolute http or https URL", v)
		}
		set(c, strings.TrimRight(v, "/"))
		return nil
	}
}

// parseLogLevel sets c.LogLevel from v: debug, info, warn or error.
func parseLogLevel(c *Config, v string) error {
	if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
		return fmt.Errorf("%q is not one of debug, info, warn, error", v)
	}
	return nil
}

// parseShutdownTimeout sets c.ShutdownTimeout from v, a Go duration.
func parseShutdownTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s", v)
	}
	c.ShutdownTimeout = d
	return nil
}

// parseCount parses a whole number from min to max into dst.
func parseCount(dst *int, v string, min, max int) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < min || n > max {
		return fmt.Errorf("%q is not a whole number from %d to %d", v, min, max)
	}
	*dst = n
	return nil
}

// parseAge parses a non-negative Go duration, or a whole number of days
// written with "d" (such as 60d), into dst.
func parseAge(dst *time.Duration, v string) error {
	v = strings.TrimSpace(v)
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(v, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		if err == nil && (n < 0 || n > 100000) {
			err = errors.New("out of range")
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(v)
	}
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration such as 60d or 720h", v)
	}
	*dst = d
	return nil
}

// Engine returns the engine's configuration: the outbound targets, the
// Azure endpoints, the workers and the retention settings of c, the
// safety poll of PollInterval when it polls (Polls), with the engine's
// own defaults for the rest. A zero retention setting means
// "keep", which the engine spells as a negative value.
func (c Config) Engine() engine.Config {
	keep := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	perJob := c.HistoryPerJob
	if perJob == 0 {
		perJob = -1
	}
	var poll time.Duration // the engine's default
	if c.Polls() {
		poll = PollInterval
	}
	return engine.Config{
		SafetyPoll: poll,
		Action: action.Config{
			AllowTargets:       c.AllowTargets,
			OAuthAuthority:     c.OAuthAuthority,
			StorageEndpoint:    c.StorageEndpoint,
			ServiceBusEndpoint: c.ServiceBusEndpoint,
		},
		MaxWorkers:        c.Workers,
		ClaimOverlap:      c.ClaimOverlap,
		MaxClockOffset:    keep(c.MaxClockOffset),
		HistoryMaxAge:     keep(c.HistoryMaxAge),
		HistoryPerJob:     perJob,
		FinishedJobMaxAge: keep(c.FinishedJobMaxAge),
		AuditMaxAge:       keep(c.AuditMaxAge),
	}
}
