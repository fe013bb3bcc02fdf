package web

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models"
)

// ChannelTypes are the channel types in the order the Channels page
// offers them, with their labels and what their form asks for.
var ChannelTypes = []ChannelForm{
	{Type: "webhook", Title: "Webhook", Summary: "Add a webhook channel", Help: "A signed POST of the event JSON (Standard Webhooks). Sked makes the signing secret and shows it once."},
	{Type: "slack", Title: "Slack", Summary: "Add a Slack channel", Help: "An incoming-webhook URL of a Slack app (https://hooks.slack.com/services/…)."},
	{Type: "teams", Title: "Microsoft Teams", Summary: "Add a Microsoft Teams channel", Help: "An incoming-webhook or workflow URL of a Teams channel (https)."},
	{Type: "email", Title: "Email", Summary: "Add an email channel", Help: "A mail over SMTP to one or more recipients.", Port: "587", Security: "starttls"},
}

// SecurityChoices are the email form's SMTP securities.
var SecurityChoices = []Choice{
	{"starttls", "STARTTLS (port 587)"},
	{"tls", "TLS from the start (port 465)"},
	{"none", "None (a relay on a trusted network)"},
}

// ChannelsIn is what NewChannelsPanel shows.
type ChannelsIn struct {
	Workspace, CSRFToken string
	CanManage            bool
	Channels             []models.Channel
	// Rules are the workspace's alert rules (counted per channel).
	Rules []models.AlertRule
	// Submitted is the form that was refused ("" for none), with its
	// errors.
	Submitted *ChannelForm
}

// NewChannelsPanel is the #channels panel: the channels in name order,
// the first marked as the bell's default, and the four forms (the refused
// one open with its values and errors).
func NewChannelsPanel(in ChannelsIn) ChannelsPanel {
	p := ChannelsPanel{Workspace: in.Workspace, CSRFToken: in.CSRFToken, CanManage: in.CanManage,
		CreateURL: ChannelsPath(in.Workspace)}
	counts := map[int64]int{}
	for _, r := range in.Rules {
		counts[r.ChannelID]++
	}
	for i := range in.Channels {
		row := NewChannelRow(in.Workspace, &in.Channels[i], counts[in.Channels[i].ID], i == 0)
		row.CSRFToken, row.CanManage = in.CSRFToken, in.CanManage
		p.Channels = append(p.Channels, row)
	}
	for _, f := range ChannelTypes {
		if in.Submitted != nil && in.Submitted.Type == f.Type {
			sub := *in.Submitted
			sub.Title, sub.Summary, sub.Help, sub.Open = f.Title, f.Summary, f.Help, len(sub.Errors) > 0
			f = sub
		}
		p.Forms = append(p.Forms, f)
	}
	return p
}

// channelConfig is the stored configuration of any channel type.
type channelConfig struct {
	URL      string   `json:"url"`
	URLHost  string   `json:"urlHost"`
	Host     string   `json:"host"`
	Port     int      `json:"port"`
	Security string   `json:"security"`
	From     string   `json:"from"`
	To       []string `json:"to"`
}

// NewChannelRow is one channel of the list; rules counts the rules that
// send to it, isDefault marks the bell's channel.
func NewChannelRow(ws string, ch *models.Channel, rules int, isDefault bool) ChannelRow {
	var cfg channelConfig
	_ = json.Unmarshal(ch.Config, &cfg) // a config that cannot be read shows no target
	r := ChannelRow{ID: "channel-" + ch.Name, Name: ch.Name, Description: ch.Description, Type: ch.Type,
		TypeLabel: channelTypeLabel(ch.Type), Default: isDefault, Rules: Plural(int64(rules), "alert rule", "alert rules"),
		TestURL: ChannelTestPath(ws, ch.Name), DeleteURL: ChannelDeletePath(ws, ch.Name)}
	switch ch.Type {
	case "webhook":
		r.Target = cfg.URL
	case "slack", "teams":
		r.Target = cfg.URLHost
	case "email":
		r.Target = fmt.Sprintf("%s:%d → %s", cfg.Host, cfg.Port, strings.Join(cfg.To, ", "))
	}
	return r
}

// channelTypeLabel is a channel type for people.
func channelTypeLabel(t string) string {
	for _, f := range ChannelTypes {
		if f.Type == t {
			return f.Title
		}
	}
	return t
}

// NewTestAnswer is the answer of "send a test event" for people: a badge
// (Delivered or Failed), the peer's answer and the time it took, and the
// error.
func NewTestAnswer(delivered bool, answer, errText string, took time.Duration) *TestAnswer {
	a := &TestAnswer{Badge: BadgeView{Text: wordFailed, Tone: ToneBad}, Error: errText}
	if delivered {
		a.Badge = BadgeView{Text: "Delivered", Tone: ToneGood}
	}
	a.Text = strings.TrimSpace(answer)
	if a.Text == "" {
		a.Text = "No answer"
	}
	a.Text += " · " + strconv.FormatInt(took.Milliseconds(), 10) + " ms"
	return a
}

// ChannelBody is the channel JSON (models/notifydef) of a submitted form:
// the fields of its type. A port that is not a number is passed as the
// text, for the parser to name.
func ChannelBody(f ChannelForm, password string) ([]byte, error) {
	props := map[string]any{}
	switch f.Type {
	case "email":
		props["host"], props["security"], props["from"] = f.Host, f.Security, f.From
		if p, err := strconv.Atoi(strings.TrimSpace(f.Port)); err == nil {
			props["port"] = p
		} else if strings.TrimSpace(f.Port) != "" {
			props["port"] = f.Port
		}
		if f.User != "" {
			props["user"] = f.User
		}
		if password != "" {
			props["password"] = password
		}
		to := []string{}
		for _, a := range strings.FieldsFunc(f.To, func(r rune) bool { return r == ',' || r == '\n' || r == ';' }) {
			if a = strings.TrimSpace(a); a != "" {
				to = append(to, a)
			}
		}
		props["to"] = to
	default:
		props["url"] = f.URL
	}
	out, err := json.Marshal(map[string]any{"type": f.Type, "description": f.Description, "properties": props})
	if err != nil {
		return nil, fmt.Errorf("channel form: %w", err)
	}
	return out, nil
}

// ChannelFormErrors moves a channel's problems to the form's fields:
// "properties.url" to "url", "properties.to[1]" to "to".
func ChannelFormErrors(errs FieldErrors) FieldErrors {
	out := FieldErrors{}
	for k, v := range errs {
		k = strings.TrimPrefix(k, "properties.")
		if i := strings.IndexByte(k, '['); i > 0 {
			k = k[:i]
		}
		if out[k] == "" {
			out[k] = v
		}
	}
	return out
}
