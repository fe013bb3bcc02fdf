package main

import (
	"encoding/json"
	"strings"
	"testing"
)

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
