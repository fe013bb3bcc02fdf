package main

import "testing"

func TestVersionCommand(t *testing.T) {
	code, stdout, _ := runForTest([]string{"version"}, nil, "")
	if code != 0 || stdout != "sked "+version+"\n" {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}
