package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyOrdersJobsThatRunAfterOthers applies a file whose jobs run
// after jobs listed after them, in another collection too: sked apply
// creates the upstreams first, a second apply changes nothing, and
// --prune of an empty collection file deletes the downstreams before
// their upstreams (the server refuses the other order with a 409).
func TestApplyOrdersJobsThatRunAfterOthers(t *testing.T) {
	env := remoteSked(t)
	run := func(args ...string) (int, string, string) { return runForTest(args, env, "") }
	dir := t.TempDir()
	file := filepath.Join(dir, "jobs.json")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	action := `"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}`
	write(`{"jobCollections": [{
  "id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/a",
  "properties": {"sku": {"name": "standard"}},
  "jobs": [
    {"name": "report", "properties": {` + action + `, "trigger": {"after": ["ops/a/load", "ops/b/extract"], "within": "PT6H"}}},
    {"name": "load", "properties": {` + action + `, "trigger": {"after": ["ops/b/extract"]}}}
  ]}, {
  "id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/b",
  "properties": {"sku": {"name": "standard"}},
  "jobs": [{"name": "extract", "properties": {` + action + `, "recurrence": {"frequency": "day"}}}]}]}`)
	code, out, errOut := run("apply", "-f", file)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	ex, ld, rp := strings.Index(out, "created job default/ops/b/extract"), strings.Index(out, "created job default/ops/a/load"),
		strings.Index(out, "created job default/ops/a/report")
	if ex < 0 || ld < 0 || rp < 0 || ex > ld || ld > rp {
		t.Fatalf("apply did not create the upstreams first:\n%s", out)
	}
	if code, out, errOut := run("diff", "-f", file); code != 0 {
		t.Fatalf("diff after apply: exit %d, want 0 (no changes)\n%s%s", code, out, errOut)
	}
	write(`{"jobCollections": [{
  "id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/a",
  "properties": {"sku": {"name": "standard"}}, "jobs": []}, {
  "id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/b",
  "properties": {"sku": {"name": "standard"}}, "jobs": []}]}`)
	code, out, errOut = run("apply", "--prune", "-f", file)
	if code != 0 {
		t.Fatalf("apply --prune: exit %d\n%s%s", code, out, errOut)
	}
	ex, ld, rp = strings.Index(out, "deleted job default/ops/b/extract"), strings.Index(out, "deleted job default/ops/a/load"),
		strings.Index(out, "deleted job default/ops/a/report")
	if ex < 0 || ld < 0 || rp < 0 || rp > ld || ld > ex {
		t.Fatalf("--prune did not delete the downstreams first:\n%s", out)
	}
}
