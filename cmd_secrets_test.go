package main

import (
	"encoding/hex"
	"strings"
	"testing"
)

// TestSecretsRotate imports a job with a secret under one key, rotates to
// a new key, and exports with the new key alone.
func TestSecretsRotate(t *testing.T) {
	env := dbEnv(t)
	file := writeFile(t, "jobs.json", "["+secretJob+"]")
	if code, out, errOut := runForTest([]string{"import", file, "--resource-group", "rg", "--collection", "jc"}, env, ""); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	oldKey := env["SKED_SECRET_KEY"]
	newKey := hex.EncodeToString([]byte(strings.Repeat("k", 32)))
	env["SKED_SECRET_KEY"] = newKey + "," + oldKey
	code, out, errOut := runForTest([]string{"secrets", "rotate"}, env, "")
	if code != 0 || !strings.Contains(out, "re-encrypted the secrets of 1 jobs") {
		t.Fatalf("rotate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runForTest([]string{"secrets", "rotate"}, env, ""); code != 0 || !strings.Contains(out, "of 0 jobs") {
		t.Errorf("second rotate: %d %s", code, out)
	}
	if code, _, errOut := runForTest([]string{"secrets"}, env, ""); code != 2 || !strings.Contains(errOut, "secrets rotate") {
		t.Errorf("bare secrets: %d %s", code, errOut)
	}
	// With only the new key, the job's secrets still open: replacing the
	// job without its password keeps it.
	env["SKED_SECRET_KEY"] = newKey
	kept := strings.Replace(secretJob, `, "password": "hunter2"`, "", 1)
	file = writeFile(t, "again.json", "["+kept+"]")
	if code, out, errOut := runForTest([]string{"import", file, "--resource-group", "rg", "--collection", "jc"}, env, ""); code != 0 {
		t.Fatalf("import with the new key only: exit %d\n%s%s", code, out, errOut)
	}
}
