package main

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sked/models/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// dbEnv is the environment of a command on a test database of t's own,
// with an administrator "ada" (member of the default workspace).
func dbEnv(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{
		"SKED_DATABASE_URL": testdb.DSN(t),
		"SKED_SECRET_KEY":   hex.EncodeToString(testdb.SecretKey),
		"SKED_DATA_DIR":     t.TempDir(),
	}
	if code, _, stderr := runForTest([]string{"user", "add", "ada", "--admin"}, env, "password123\n"); code != 0 {
		t.Fatalf("user add: exit %d: %s", code, stderr)
	}
	return env
}

// writeFile writes content to a file in a new temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// namedSeedJob is seedDaily with a name.
func namedSeedJob(name string) string {
	return `{"name": "` + name + `", ` + strings.TrimSpace(seedDaily)[1:]
}

const secretJob = `{"name": "hook", "action": {"type": "http", "request": {"uri": "https://example.com/hook", "method": "POST",
 "authentication": {"type": "basic", "username": "u", "password": "hunter2"}}}, "recurrence": {"frequency": "hour"}}`

func TestImportAndExportCommands(t *testing.T) {
	env := dbEnv(t)
	file := writeFile(t, "jobs.json", "["+namedSeedJob("a")+", "+secretJob+"]")
	target := []string{"--resource-group", "rg", "--collection", "jc"}

	code, stdout, stderr := runForTest(append([]string{"import", file, "--dry-run"}, target...), env, "")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"ACTION  COLLECTION  JOB   STATE    NEXT", "\nnew     rg/jc       a     enabled  ",
		"At 05:15 and 17:15", "Collections:\n  new      default/rg/jc", "2 jobs: 2 new, 0 to replace, 0 to skip, 0 invalid. Dry run: nothing was written."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runForTest([]string{"export"}, env, "")
	if code != 0 || !strings.Contains(stdout, `"jobCollections": []`) {
		t.Fatalf("the dry run wrote: exit %d\n%s", code, stdout)
	}

	code, stdout, stderr = runForTest(append([]string{"import", file}, target...), env, "")
	if code != 0 || !strings.Contains(stdout, "Imported 2 jobs.") {
		t.Fatalf("import: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = runForTest([]string{"export", "--resource-group", "RG", "--collection", "JC"}, env, "")
	if code != 0 || stderr != "" {
		t.Fatalf("export collection: exit %d: %s", code, stderr)
	}
	var list struct {
		Value []struct {
			Name       string
			Properties map[string]any
		}
		SecretsOmitted bool
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, stdout)
	}
	if len(list.Value) != 2 || list.Value[0].Name != "jc/a" || list.Value[1].Name != "jc/hook" || !list.SecretsOmitted ||
		strings.Contains(stdout, "hunter2") {
		t.Errorf("export collection:\n%s", stdout)
	}
	code, stdout, _ = runForTest([]string{"export", "--resource-group", "rg", "--collection", "jc", "--job", "hook"}, env, "")
	if code != 0 || !strings.Contains(stdout, `"name": "jc/hook"`) || strings.Contains(stdout, "hunter2") {
		t.Errorf("export job: exit %d\n%s", code, stdout)
	}
	code, all, _ := runForTest([]string{"export", "--user", "ADA"}, env, "")
	if code != 0 || !strings.Contains(all, `"name": "jc/a"`) {
		t.Fatalf("export --user: exit %d\n%s", code, all)
	}

	// The export imports again from stdin: every job a replacement, the
	// stored secret kept.
	code, stdout, stderr = runForTest([]string{"import", "-", "--dry-run", "--user", "ada"}, env, all)
	if code != 0 || !strings.Contains(stdout, "2 jobs: 0 new, 2 to replace, 0 to skip, 0 invalid.") || strings.Contains(stdout, "secret is not in the file") {
		t.Errorf("re-import: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runForTest([]string{"import", "-", "--on-conflict", "skip"}, env, all)
	if code != 0 || !strings.Contains(stdout, "2 jobs: 0 new, 0 to replace, 2 to skip, 0 invalid. Nothing was written.") {
		t.Errorf("re-import skipping: exit %d\n%s", code, stdout)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--user", "nobody"}, `there is no user "nobody"`},
		{[]string{"export", "--subscription", "nowhere"}, `there is no workspace "nowhere"`},
		{[]string{"export", "--resource-group", "rg", "--collection", "nope"}, "there is no collection rg/nope"},
		{[]string{"export", "--resource-group", "rg", "--collection", "jc", "--job", "nope"}, `there is no job "nope" in collection rg/jc`},
		{[]string{"export", "--job", "a"}, "--job needs --collection"},
		{[]string{"export", "--collection", "jc"}, "--collection needs --resource-group"},
		{[]string{"import", file, "--user", "nobody"}, `there is no user "nobody"`},
	} {
		code, stdout, stderr := runForTest(tc.args, env, "")
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

func TestImportCommandInvalidInput(t *testing.T) {
	// The bad files and flags are refused before the database is opened
	// (the data directory does not exist and is never created).
	noDB := map[string]string{"SKED_DATA_DIR": filepath.Join(t.TempDir(), "never")}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no file", []string{"import"}, "", "usage: sked import FILE"},
		{"missing file", []string{"import", filepath.Join(t.TempDir(), "nope.json")}, "", "no such file or directory"},
		{"not JSON", []string{"import", "-"}, `{"startTime": `, "file: not valid JSON: unexpected end of JSON input (at byte 14)"},
		{"wrong shape", []string{"import", "-"}, `[1] [2]`, "file: not valid JSON"},
		{"a number", []string{"import", "-"}, `7`, "file: must be a job, an array of jobs"},
		{"bad mode", []string{"import", "-", "--mode", "most"}, seedDaily, `--mode "most" is not all or valid`},
		{"bad on-conflict", []string{"import", "-", "--on-conflict", "merge"}, seedDaily, `--on-conflict "merge" is not replace or skip`},
		{"collection without group", []string{"import", "-", "--collection", "jc"}, seedDaily, "give --resource-group and --collection together"},
	} {
		code, stdout, stderr := runForTest(tc.args, noDB, tc.stdin)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", tc.name, code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(noDB["SKED_DATA_DIR"]); !os.IsNotExist(err) {
		t.Errorf("the data directory was created: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 50<<20+1); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runForTest([]string{"import", big}, noDB, "")
	if code != exitUsage || !strings.Contains(stderr, "is 52428801 bytes, over the maximum of 52428800 (50 MB)") {
		t.Errorf("a file over 50 MB: exit %d, %q", code, stderr)
	}

	// Invalid jobs: mode all writes nothing, mode valid the valid ones;
	// both exit 2 with the problems on stderr.
	env := dbEnv(t)
	bad := `{"name": "bad", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "minute", "interval": 2000}}`
	file := writeFile(t, "jobs.json", "["+namedSeedJob("good")+", "+bad+"]")
	code, stdout, stderr := runForTest([]string{"import", file, "--resource-group", "rg", "--collection", "jc"}, env, "")
	if code != exitUsage || !strings.Contains(stdout, "invalid  rg/jc       bad   -") || !strings.Contains(stdout, "Nothing was written.") ||
		stderr != "nothing was imported:\n[1].recurrence.interval: 2000 is over the maximum of 1000 for frequency \"minute\"\n" {
		t.Errorf("mode all: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runForTest([]string{"import", file, "--mode", "valid", "--resource-group", "rg", "--collection", "jc"}, env, "")
	if code != exitUsage || !strings.Contains(stdout, "Imported 1 jobs.") ||
		stderr != "[1] (jc/bad): recurrence.interval: 2000 is over the maximum of 1000 for frequency \"minute\"\n" {
		t.Errorf("mode valid: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Flat jobs without a target collection.
	code, _, stderr = runForTest([]string{"import", "-"}, env, seedDaily)
	if code != exitUsage || !strings.Contains(stderr, "jobCollection: the job does not name its collection") {
		t.Errorf("no target: exit %d, %q", code, stderr)
	}
}

func TestHelpListsImportAndExport(t *testing.T) {
	_, stdout, _ := runForTest([]string{"--help"}, nil, "")
	for _, c := range []string{"import", "export"} {
		if !strings.Contains(stdout, "\n  "+c+" ") {
			t.Errorf("help does not list %q:\n%s", c, stdout)
		}
	}
}

// TestMigrateOnAnExternalDatabase: migrate with --database-url on a data
// directory that does not exist yet creates it for the generated secret
// key, and a database it cannot reach is an error that names it, not a
// panic (openDatabase used to close a nil database on that path).
func TestMigrateOnAnExternalDatabase(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "new", "data")
	env := map[string]string{"SKED_DATABASE_URL": testdb.DSN(t), "SKED_DATA_DIR": dataDir}
	code, stdout, stderr := runForTest([]string{"migrate"}, env, "")
	if code != 0 || !strings.Contains(stdout, "database schema is at version") {
		t.Fatalf("migrate: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if fi, err := os.Stat(filepath.Join(dataDir, "secret.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret key in the new data directory: %v, %v", fi, err)
	}

	env["SKED_DATABASE_URL"] = "host=" + t.TempDir() + " user=nobody dbname=none sslmode=disable connect_timeout=2"
	code, stdout, stderr = runForTest([]string{"migrate"}, env, "")
	if code == 0 || !strings.HasPrefix(stderr, "sked: migrate: ") || strings.Contains(stderr, "panic") {
		t.Fatalf("migrate on a database that is not there: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
