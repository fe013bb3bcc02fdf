package client

import (
	"strings"
	"testing"
)

func TestNewChecksTheServerAndToken(t *testing.T) {
	for _, tc := range []struct{ server, token, want string }{
		{"", "t", "server URL is empty"},
		{"https://sked.example.com", " ", "API token is empty"},
		{"sked.example.com", "t", "not an http or https URL"},
		{"ftp://sked.example.com", "t", "not an http or https URL"},
	} {
		if _, err := New(tc.server, tc.token); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q): %v, want %q", tc.server, tc.token, err, tc.want)
		}
	}
	c, err := New(" https://sked.example.com/base/?x=1 ", "tok")
	if err != nil || c.Server() != "https://sked.example.com/base" {
		t.Fatalf("New: %v %v", c, err)
	}
}

func TestAnswerError(t *testing.T) {
	e := answerError("PUT", "/x", 400, []byte(`{"error": {"code": "BadRequest", "message": "The job is invalid: action.request.uri: is required",
		"details": [{"code": "BadRequest", "target": "action.request.uri", "message": "action.request.uri: is required"},
		{"code": "BadRequest", "target": "recurrence.interval", "message": "recurrence.interval: must be 1 or more"}]}}`))
	if e.Status != 400 || e.Code != "BadRequest" || len(e.Details) != 2 || e.Details[1].Target != "recurrence.interval" {
		t.Fatalf("answerError: %#v", e)
	}
	if got := e.Error(); got != "PUT /x: 400 BadRequest: The job is invalid: action.request.uri: is required; recurrence.interval: must be 1 or more" {
		t.Errorf("Error() = %q", got)
	}
	// An answer that is not the error shape (a proxy's page) keeps its text.
	if e := answerError("GET", "/y", 502, []byte("<html>Bad Gateway</html>")); e.Message != "<html>Bad Gateway</html>" || e.Code != "" {
		t.Errorf("a proxy's answer: %#v", e)
	}
	if e := answerError("GET", "/y", 503, nil); e.Message != "Service Unavailable" {
		t.Errorf("an empty answer: %#v", e)
	}
}
