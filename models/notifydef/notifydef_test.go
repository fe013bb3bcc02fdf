package notifydef

import (
	"testing"
	"time"

	"sked/models/problem"
)

func TestParseChannelProblems(t *testing.T) {
	tests := []struct {
		name, in, path string
	}{
		{"not an object", `[]`, "channel"},
		{"no type", `{"properties":{}}`, "type"},
		{"unknown type", `{"type":"pager","properties":{}}`, "type"},
		{"unknown field", `{"type":"webhook","colour":1,"properties":{"url":"https://x.example"}}`, "colour"},
		{"webhook without url", `{"type":"webhook","properties":{}}`, "properties.url"},
		{"webhook bad url", `{"type":"webhook","properties":{"url":"ftp://x"}}`, "properties.url"},
		{"slack http", `{"type":"slack","properties":{"url":"http://hooks.slack.com/x"}}`, "properties.url"},
		{"teams http", `{"type":"teams","properties":{"url":"http://x.example"}}`, "properties.url"},
		{"slack unknown property", `{"type":"slack","properties":{"url":"https://hooks.slack.com/x","channel":"#ops"}}`, "properties.channel"},
		{"email port 0", `{"type":"email","properties":{"host":"smtp.example.com","port":0,"from":"a@example.com","to":["b@example.com"]}}`, "properties.port"},
		{"email port 70000", `{"type":"email","properties":{"host":"smtp.example.com","port":70000,"from":"a@example.com","to":["b@example.com"]}}`, "properties.port"},
		{"email security", `{"type":"email","properties":{"host":"smtp.example.com","security":"ssl","from":"a@example.com","to":["b@example.com"]}}`, "properties.security"},
		{"email no host", `{"type":"email","properties":{"from":"a@example.com","to":["b@example.com"]}}`, "properties.host"},
		{"email bad to", `{"type":"email","properties":{"host":"h","from":"a@example.com","to":["b@example.com","nope"]}}`, "properties.to[1]"},
		{"email empty to", `{"type":"email","properties":{"host":"h","from":"a@example.com","to":[]}}`, "properties.to"},
		{"email user without password", `{"type":"email","properties":{"host":"h","user":"u","from":"a@example.com","to":["b@example.com"]}}`, "properties.password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseChannel([]byte(tt.in), nil)
			l := problem.As(err)
			if l == nil || l.For(tt.path) == "" {
				t.Fatalf("got %v, want a problem at %s", err, tt.path)
			}
		})
	}
}

func TestParseChannelKeepsSecrets(t *testing.T) {
	stored, err := ParseChannel([]byte(`{"type":"email","properties":{"host":"smtp.example.com","user":"u","password":"p","from":"a@example.com","to":["b@example.com"]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Email.Port != 587 || stored.Email.Security != StartTLS {
		t.Errorf("defaults: %+v", stored.Email)
	}
	again, err := ParseChannel([]byte(`{"type":"email","properties":{"host":"smtp.example.com","port":465,"security":"tls","user":"u","from":"a@example.com","to":["b@example.com"]}}`), stored)
	if err != nil {
		t.Fatal(err)
	}
	if again.Email.Password != "p" || again.Email.Port != 465 {
		t.Errorf("kept: %+v", again.Email)
	}
	if got := string(again.Config()); got != `{"host":"smtp.example.com","port":465,"security":"tls","user":"u","from":"a@example.com","to":["b@example.com"]}` {
		t.Errorf("config: %s", got)
	}
	back, err := FromStored("email", "", again.Config(), again.Secrets())
	if err != nil || back.Email.Password != "p" || back.Email.Host != "smtp.example.com" {
		t.Errorf("from stored: %+v %v", back, err)
	}
	slack, err := ParseChannel([]byte(`{"type":"slack","properties":{"url":"https://hooks.slack.com/services/T/B/x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(slack.Config()) != `{"urlHost":"hooks.slack.com"}` || slack.Secrets()[SecretURL] == "" {
		t.Errorf("slack: %s %v", slack.Config(), slack.Secrets())
	}
	kept, err := ParseChannel([]byte(`{"type":"slack","properties":{"urlHost":"hooks.slack.com"}}`), slack)
	if err != nil || kept.URL != slack.URL {
		t.Errorf("slack kept: %+v %v", kept, err)
	}
}

func TestParseRule(t *testing.T) {
	r, err := ParseRule([]byte(`{"channel":"ops","scope":{"resourceGroup":"rg","collection":"jc"},"events":["occurrenceFaulted","CONSECUTIVEFAILURES"],"threshold":3,"minInterval":"PT15M"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Threshold != 3 || r.MinInterval != 15*time.Minute || !r.Has(ConsecutiveFailures) || !r.Scope.Matches("RG", "jc", "any") || r.Scope.Matches("rg", "other", "j") {
		t.Errorf("rule: %+v", r)
	}
	if got := string(r.Marshal()); got != `{"channel":"ops","scope":{"resourceGroup":"rg","collection":"jc"},"events":["occurrenceFaulted","consecutiveFailures"],"threshold":3,"minInterval":"PT15M"}` {
		t.Errorf("marshal: %s", got)
	}
	tests := []struct {
		name, in, path string
	}{
		{"unknown event", `{"channel":"ops","events":["attemptFailed","exploded","missed"]}`, "events[1]"},
		{"duplicate event", `{"channel":"ops","events":["missed","missed"]}`, "events[1]"},
		{"no events", `{"channel":"ops","events":[]}`, "events"},
		{"events missing", `{"channel":"ops"}`, "events"},
		{"no channel", `{"events":["missed"]}`, "channel"},
		{"threshold missing", `{"channel":"ops","events":["consecutiveFailures"]}`, "threshold"},
		{"threshold 1", `{"channel":"ops","events":["consecutiveFailures"],"threshold":1}`, "threshold"},
		{"threshold without event", `{"channel":"ops","events":["missed"],"threshold":3}`, "threshold"},
		{"bad interval", `{"channel":"ops","events":["missed"],"minInterval":"15m"}`, "minInterval"},
		{"job without collection", `{"channel":"ops","events":["missed"],"scope":{"job":"j"}}`, "scope.collection"},
		{"unknown scope field", `{"channel":"ops","events":["missed"],"scope":{"workspace":"w"}}`, "scope.workspace"},
		{"unknown field", `{"channel":"ops","events":["missed"],"severity":"high"}`, "severity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRule([]byte(tt.in))
			l := problem.As(err)
			if l == nil || l.For(tt.path) == "" {
				t.Fatalf("got %v, want a problem at %s", err, tt.path)
			}
		})
	}
}
