package main

import (
	"strings"
	"testing"
)

func TestUserAddRejectsBadInputBeforeTouchingTheDatabase(t *testing.T) {
	// The data directory does not exist and is never created: validation
	// happens first.
	dir := t.TempDir() + "/never"
	env := map[string]string{"SKED_DATA_DIR": dir}
	code, _, stderr := runForTest([]string{"user", "add", "bob"}, env, "")
	if code != exitUsage || !strings.Contains(stderr, "no password on stdin") {
		t.Errorf("empty stdin: exit %d, %q", code, stderr)
	}
	code, _, stderr = runForTest([]string{"user", "add", "bob"}, env, "short\n")
	if code != exitUsage || !strings.Contains(stderr, "password: must be at least 8 characters") {
		t.Errorf("short password: exit %d, %q", code, stderr)
	}
	code, _, stderr = runForTest([]string{"user", "add", "b b", "--admin"}, env, "password123\n")
	if code != exitUsage || !strings.Contains(stderr, "username: must be") {
		t.Errorf("bad name: exit %d, %q", code, stderr)
	}
}
