// Package notifydef is the wire format of notifications (SPEC §13.3): the
// channels a workspace sends to, its alert rules, and the event JSON a
// channel receives. It parses and validates channels and rules and writes
// them back in canonical form. It is pure: no clock, no database, no
// network. Input errors are a *problem.List whose paths are JSON paths
// ("properties.url", "events[2]").
//
// A channel:
//
//	{"type": "webhook", "description": "On-call receiver",
//	 "properties": {"url": "https://hooks.example.com/sked"}}
//	{"type": "slack", "properties": {"url": "https://hooks.slack.com/services/T/B/x"}}
//	{"type": "teams", "properties": {"url": "https://example.webhook.office.com/…"}}
//	{"type": "email", "properties": {"host": "smtp.example.com", "port": 587,
//	  "security": "starttls", "user": "sked", "password": "…",
//	  "from": "Sked <sked@example.com>", "to": ["ops@example.com"]}}
//
// An alert rule:
//
//	{"channel": "ops", "scope": {"resourceGroup": "rg", "collection": "jc", "job": "j"},
//	 "events": ["occurrenceFaulted", "recovered"], "minInterval": "PT15M"}
package notifydef

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"sked/models/problem"
)

// ChannelType is the kind of a channel.
type ChannelType string

// The channel types.
const (
	Webhook ChannelType = "webhook" // a signed POST of the event JSON
	Slack   ChannelType = "slack"   // a Slack incoming webhook
	Teams   ChannelType = "teams"   // a Microsoft Teams incoming webhook
	Email   ChannelType = "email"   // a mail over SMTP
)

// Security is how an email channel protects its SMTP connection.
type Security string

// The SMTP securities.
const (
	StartTLS Security = "starttls" // plain connection upgraded with STARTTLS (required)
	TLS      Security = "tls"      // TLS from the first byte (SMTPS)
	NoTLS    Security = "none"     // no encryption (a relay on a trusted network)
)

// Keys of Channel.Secrets: the fields that are sealed and never returned.
const (
	SecretSigning  = "signingSecret" // a webhook's whsec_… secret
	SecretURL      = "url"           // a Slack or Teams webhook URL (it carries the credential)
	SecretPassword = "password"      // an email channel's SMTP password
)

// Limits of a channel.
const (
	MaxURL         = 2048
	MaxDescription = 1000
	MaxRecipients  = 50
)

// Channel is a parsed channel. Which fields apply depends on Type.
type Channel struct {
	Type        ChannelType
	Description string
	// URL is the address of a webhook, Slack or Teams channel. For Slack
	// and Teams it is a secret (see SecretURL).
	URL string
	// SigningSecret is a webhook's secret ("whsec_" and base64); empty
	// until the catalog generates one.
	SigningSecret string
	// Email is the SMTP setting of an email channel.
	Email *EmailConfig
}

// EmailConfig is the SMTP setting of an email channel.
type EmailConfig struct {
	Host     string   `json:"host"`
	Port     int      `json:"port"`
	Security Security `json:"security"`
	User     string   `json:"user,omitempty"`
	Password string   `json:"-"`
	From     string   `json:"from"`
	To       []string `json:"to"`
}

// ParseChannel reads and validates a channel document. stored is the
// channel as it is stored now (secrets opened), or nil when it is being
// created: secret fields the input leaves out (a Slack or Teams URL, an
// SMTP password) keep their stored values when the type does not change,
// and a webhook keeps its signing secret. Every problem is reported at
// once in a *problem.List.
func ParseChannel(data []byte, stored *Channel) (*Channel, error) {
	ps := &problem.List{}
	doc, ok := object(data)
	if !ok {
		ps.Add("channel", `must be a JSON object with "type" and "properties"`)
		return nil, ps
	}
	ch := &Channel{}
	var props json.RawMessage
	for _, key := range sortedKeys(doc) {
		raw := doc[key]
		switch strings.ToLower(key) {
		case "type":
			s, _ := str(raw)
			switch t := ChannelType(strings.ToLower(s)); t {
			case Webhook, Slack, Teams, Email:
				ch.Type = t
			default:
				ps.Add("type", fmt.Sprintf("%s is not a channel type (webhook, slack, teams, email)", string(raw)))
			}
		case "description":
			s, ok := str(raw)
			switch {
			case !ok && !isNull(raw):
				ps.Add("description", "must be a string")
			case utf8.RuneCountInString(s) > MaxDescription:
				ps.Add("description", fmt.Sprintf("is longer than %d characters", MaxDescription))
			default:
				ch.Description = s
			}
		case "properties":
			props = raw
		case "name", "createdat", "updatedat":
			// Written by answers; the name comes from the URL.
		default:
			ps.Add(key, "is not a field of a channel (type, description, properties)")
		}
	}
	if ch.Type == "" && ps.For("type") == "" {
		ps.Add("type", "is required (webhook, slack, teams or email)")
	}
	if ch.Type != "" {
		if stored != nil && stored.Type != ch.Type {
			stored = nil
		}
		parseProperties(ch, props, stored, ps)
	}
	if err := ps.OrNil(); err != nil {
		return nil, err
	}
	return ch, nil
}

// parseProperties reads the properties of ch.Type.
func parseProperties(ch *Channel, raw json.RawMessage, stored *Channel, ps *problem.List) {
	o, ok := object(raw)
	if !ok {
		ps.Add("properties", "must be an object")
		return
	}
	if ch.Type == Email {
		parseEmail(ch, o, stored, ps)
		return
	}
	for _, key := range sortedKeys(o) {
		switch strings.ToLower(key) {
		case "url", "urlhost":
		default:
			ps.Add("properties."+key, fmt.Sprintf("is not a field of a %s channel (url)", ch.Type))
		}
	}
	raw, ok = lookup(o, "url")
	if !ok || isNull(raw) {
		if stored != nil && ch.Type != Webhook {
			ch.URL = stored.URL
			return
		}
		ps.Add("properties.url", "is required")
		return
	}
	s, ok := str(raw)
	if !ok {
		ps.Add("properties.url", "must be a string")
		return
	}
	if msg := checkURL(s, ch.Type != Webhook); msg != "" {
		ps.Add("properties.url", msg)
		return
	}
	ch.URL = s
	if stored != nil {
		ch.SigningSecret = stored.SigningSecret
	}
}

// checkURL returns what is wrong with a channel URL, or "".
func checkURL(s string, httpsOnly bool) string {
	if len(s) > MaxURL {
		return fmt.Sprintf("is longer than %d characters", MaxURL)
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "is not an absolute http or https URL"
	}
	if httpsOnly && u.Scheme != "https" {
		return "must be an https URL"
	}
	if u.User != nil {
		return "must not carry a user name or password"
	}
	return ""
}

// parseEmail reads the properties of an email channel.
func parseEmail(ch *Channel, o map[string]json.RawMessage, stored *Channel, ps *problem.List) {
	e := &EmailConfig{Security: StartTLS}
	ch.Email = e
	for _, key := range sortedKeys(o) {
		raw, path := o[key], "properties."+key
		switch strings.ToLower(key) {
		case "host":
			s, ok := str(raw)
			if !ok || s == "" || len(s) > 253 || strings.ContainsAny(s, " /:@\t") {
				ps.Add(path, "must be a host name or address (without scheme or port)")
			}
			e.Host = s
		case "port":
			var n float64
			if err := json.Unmarshal(raw, &n); err != nil || n != float64(int(n)) || n < 1 || n > 65535 {
				ps.Add(path, fmt.Sprintf("%s is not a port (1–65535)", string(raw)))
			} else {
				e.Port = int(n)
			}
		case "security":
			s, _ := str(raw)
			switch sec := Security(strings.ToLower(s)); sec {
			case StartTLS, TLS, NoTLS:
				e.Security = sec
			default:
				ps.Add(path, fmt.Sprintf("%s is not starttls, tls or none", string(raw)))
			}
		case "user":
			if s, ok := str(raw); ok || isNull(raw) {
				e.User = s
			} else {
				ps.Add(path, "must be a string")
			}
		case "password":
			if s, ok := str(raw); ok {
				e.Password = s
			} else if !isNull(raw) {
				ps.Add(path, "must be a string")
			}
		case "from":
			s, _ := str(raw)
			if _, err := mail.ParseAddress(s); err != nil {
				ps.Add(path, fmt.Sprintf("%s is not a mail address", string(raw)))
			}
			e.From = s
		case "to":
			e.To = parseRecipients(raw, ps)
		case "passwordset":
		default:
			ps.Add(path, "is not a field of an email channel (host, port, security, user, password, from, to)")
		}
	}
	for _, req := range []struct {
		key string
		set bool
	}{{"host", e.Host != "" || ps.For("properties.host") != ""}, {"from", e.From != "" || ps.For("properties.from") != ""},
		{"to", len(e.To) > 0 || ps.For("properties.to") != ""}} {
		if !req.set {
			ps.Add("properties."+req.key, "is required")
		}
	}
	if e.Port == 0 && ps.For("properties.port") == "" {
		e.Port = map[Security]int{StartTLS: 587, TLS: 465, NoTLS: 25}[e.Security]
	}
	if e.Password == "" && stored != nil && stored.Email != nil {
		e.Password = stored.Email.Password
	}
	if e.User != "" && e.Password == "" {
		ps.Add("properties.password", "is required with a user")
	}
	if e.User == "" && e.Password != "" {
		ps.Add("properties.user", "is required with a password")
	}
}

// parseRecipients reads properties.to.
func parseRecipients(raw json.RawMessage, ps *problem.List) []string {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		ps.Add("properties.to", "must be an array of mail addresses")
		return nil
	}
	switch {
	case len(items) == 0:
		ps.Add("properties.to", "must name at least one recipient")
		return nil
	case len(items) > MaxRecipients:
		ps.Add("properties.to", fmt.Sprintf("has %d recipients, over the maximum of %d", len(items), MaxRecipients))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		s, _ := str(item)
		if _, err := mail.ParseAddress(s); err != nil {
			ps.Add(fmt.Sprintf("properties.to[%d]", i), fmt.Sprintf("%s is not a mail address", string(item)))
			continue
		}
		out = append(out, s)
	}
	return out
}

// lookup finds key in o without regard to case.
func lookup(o map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	for _, k := range sortedKeys(o) {
		if strings.EqualFold(k, key) {
			return o[k], true
		}
	}
	return nil, false
}
