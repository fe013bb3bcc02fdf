package action

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"sked/models/jobdef"
)

func TestRedactorApplyPrefix(t *testing.T) {
	r := &redactor{}
	r.add("hunter22", "hunter2", "")
	for _, c := range []struct {
		text string
		keep int
		want string
	}{
		{"pw=hunter22;", 100, "pw=[redacted];"},
		{"hunter2hunter2", 100, "[redacted][redacted]"},
		{"abc hunter22", 6, "abc [redacted]"}, // cut inside the secret: none of it is kept
		{"abc hunter22", 4, "abc "},
		{"nothing here", 7, "nothing"},
	} {
		if got := r.applyPrefix(c.text, c.keep); got != c.want {
			t.Errorf("applyPrefix(%q, %d) = %q, want %q", c.text, c.keep, got, c.want)
		}
	}
	s := &redactor{}
	s.addSASToken("?sv=2018-03-28&sp=a&sig=ab%2Bcd%3D")
	if got := s.apply("url ...?sv=2018-03-28&sp=a&sig=ab%2Bcd%3D, sig ab+cd="); got != "url ...?[redacted], sig [redacted]" {
		t.Errorf("SAS token: %q", got)
	}
}

// TestSecretsCutAtTheBodyLimit: a target echoing a password across the
// 2,048-byte limit leaves no part of it in the history message.
func TestSecretsCutAtTheBodyLimit(t *testing.T) {
	const password = "0123456789-secret-password"
	for _, at := range []int{MaxBodyKept - 30, MaxBodyKept - 10, MaxBodyKept - 1, MaxBodyKept} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, p, _ := r.BasicAuth()
			fmt.Fprint(w, strings.Repeat(".", at)+p+strings.Repeat(".", 100))
		}))
		d := newTestDispatcher(t, Config{})
		auth := &jobdef.Authentication{Kind: jobdef.AuthBasic, Username: "u", Password: password}
		res := d.Execute(context.Background(), attempt(httpAction(srv.URL, "GET", "", auth), 5*time.Second))
		srv.Close()
		body := strings.TrimPrefix(res.Message, "HTTP 200 OK\n")
		if strings.Contains(body, "0123") || strings.Contains(body, "password") {
			t.Errorf("at %d: the message keeps part of the password: …%s", at, body[max(0, len(body)-60):])
		}
		if at < MaxBodyKept && !strings.HasSuffix(body, "[redacted]") && !strings.Contains(body, "[redacted]") {
			t.Errorf("at %d: no redaction mark", at)
		}
	}
}
