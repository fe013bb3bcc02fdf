package main

import (
	"strings"
	"testing"
)

// TestWorkspaceCommands creates, lists, renames and deletes a workspace
// with sked workspace, and issues a scoped token with sked token add.
func TestWorkspaceCommands(t *testing.T) {
	env := dbEnv(t)
	if code, out, errOut := runForTest([]string{"user", "add", "bob"}, env, "correct horse battery\n"); code != 0 {
		t.Fatalf("user add: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runForTest([]string{"workspace", "add", "team-a", "--name", "Team A", "--owner", "bob"}, env, "")
	if code != 0 || !strings.Contains(out, "created workspace team-a (Team A), owned by bob") {
		t.Fatalf("workspace add: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runForTest([]string{"workspace", "add", "TEAM-A", "--owner", "bob"}, env, ""); code != 2 || !strings.Contains(errOut, "already exists") {
		t.Errorf("workspace add twice: %d %s", code, errOut)
	}
	if code, out, _ := runForTest([]string{"workspace", "rename", "team-a", "The A team"}, env, ""); code != 0 || !strings.Contains(out, "The A team") {
		t.Errorf("workspace rename: %d %s", code, out)
	}
	if code, out, _ := runForTest([]string{"workspace", "list"}, env, ""); code != 0 || !strings.Contains(out, "team-a") || !strings.Contains(out, "bob (owner)") {
		t.Errorf("workspace list: %d %s", code, out)
	}
	code, out, errOut = runForTest([]string{"token", "add", "bob", "--workspace", "team-a", "--role", "reader", "--expires", "2099-01-01"}, env, "")
	if code != 0 || !strings.HasPrefix(out, "sked_") {
		t.Errorf("token add: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runForTest([]string{"token", "add", "bob", "--role", "king"}, env, ""); code != 2 || !strings.Contains(errOut, "not a role") {
		t.Errorf("token add with a bad role: %d %s", code, errOut)
	}
	if code, _, errOut := runForTest([]string{"token", "add", "bob", "--expires", "2001-01-01"}, env, ""); code != 2 || !strings.Contains(errOut, "future") {
		t.Errorf("token add expired: %d %s", code, errOut)
	}
	if code, out, errOut := runForTest([]string{"workspace", "delete", "team-a"}, env, ""); code != 0 || !strings.Contains(out, "deleted workspace team-a") {
		t.Errorf("workspace delete: %d %s%s", code, out, errOut)
	}
	if code, _, errOut := runForTest([]string{"workspace", "delete", "team-a"}, env, ""); code != 2 {
		t.Errorf("deleting again: %d %s", code, errOut)
	}
	if code, _, _ := runForTest([]string{"workspace"}, env, ""); code != 2 {
		t.Errorf("bare workspace: %d", code)
	}
}
