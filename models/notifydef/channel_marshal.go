package notifydef

import (
	"encoding/json"
	"fmt"
	"net/url"
)

// Config returns the channel's properties without its secrets, as they
// are stored (jsonb) and answered: a webhook's url; a Slack or Teams
// channel's urlHost (its URL is a secret); an email channel's host, port,
// security, user, from and to.
func (c *Channel) Config() json.RawMessage {
	var v any
	switch c.Type {
	case Webhook:
		v = map[string]string{"url": c.URL}
	case Slack, Teams:
		host := ""
		if u, err := url.Parse(c.URL); err == nil {
			host = u.Host
		}
		v = map[string]string{"urlHost": host}
	case Email:
		v = c.Email
	default:
		v = map[string]string{}
	}
	out, _ := json.Marshal(v)
	return out
}

// Secrets returns the channel's secret fields by the Secret… keys; empty
// values are left out.
func (c *Channel) Secrets() map[string]string {
	out := map[string]string{}
	switch c.Type {
	case Webhook:
		if c.SigningSecret != "" {
			out[SecretSigning] = c.SigningSecret
		}
	case Slack, Teams:
		if c.URL != "" {
			out[SecretURL] = c.URL
		}
	case Email:
		if c.Email != nil && c.Email.Password != "" {
			out[SecretPassword] = c.Email.Password
		}
	}
	return out
}

// FromStored rebuilds a channel from its stored type, description,
// config (Config's JSON) and opened secrets.
func FromStored(typ, description string, config json.RawMessage, secrets map[string]string) (*Channel, error) {
	c := &Channel{Type: ChannelType(typ), Description: description}
	switch c.Type {
	case Webhook:
		var v struct{ URL string }
		if err := json.Unmarshal(config, &v); err != nil {
			return nil, fmt.Errorf("notifydef: stored channel: %w", err)
		}
		c.URL, c.SigningSecret = v.URL, secrets[SecretSigning]
	case Slack, Teams:
		c.URL = secrets[SecretURL]
	case Email:
		c.Email = &EmailConfig{}
		if err := json.Unmarshal(config, c.Email); err != nil {
			return nil, fmt.Errorf("notifydef: stored channel: %w", err)
		}
		c.Email.Password = secrets[SecretPassword]
	default:
		return nil, fmt.Errorf("notifydef: stored channel: unknown type %q", typ)
	}
	return c, nil
}

// Properties returns what an answer shows of the channel's properties:
// Config, and for an email channel whether a password is set.
func (c *Channel) Properties() json.RawMessage {
	if c.Type != Email || c.Email == nil {
		return c.Config()
	}
	out, _ := json.Marshal(struct {
		*EmailConfig
		PasswordSet bool `json:"passwordSet"`
	}{c.Email, c.Email.Password != ""})
	return out
}
