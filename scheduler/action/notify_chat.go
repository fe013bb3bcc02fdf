package action

import (
	"encoding/json"
	"strings"
	"time"

	"sked/models/notifydef"
)

// slackMessage is the Slack incoming-webhook body of ev: a text (shown in
// notifications) and blocks with the title linked to the job page, the
// message quoted and the time.
func slackMessage(ev *notifydef.Event) []byte {
	title := slackEscape(ev.Title())
	if ev.URL != "" {
		title = "<" + ev.URL + "|" + title + ">"
	}
	text := "*" + title + "*"
	if m := ev.Message(); m != "" {
		text += "\n>" + strings.ReplaceAll(slackEscape(clip(m, 2000)), "\n", "\n>")
	}
	blocks := []any{
		map[string]any{"type": "section", "text": map[string]string{"type": "mrkdwn", "text": text}},
		map[string]any{"type": "context", "elements": []map[string]string{{"type": "mrkdwn",
			"text": slackEscape(eventFacts(ev))}}},
	}
	out, _ := json.Marshal(map[string]any{"text": ev.Title(), "blocks": blocks})
	return out
}

// slackEscape escapes the characters Slack's mrkdwn reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// teamsMessage is the Teams incoming-webhook (Workflows) body of ev: a
// message with one Adaptive Card holding the title, the message, the
// facts and a button to the job page.
func teamsMessage(ev *notifydef.Event) []byte {
	body := []any{
		map[string]any{"type": "TextBlock", "text": ev.Title(), "weight": "Bolder", "size": "Medium", "wrap": true},
	}
	if m := ev.Message(); m != "" {
		body = append(body, map[string]any{"type": "TextBlock", "text": clip(m, 2000), "wrap": true})
	}
	facts := []map[string]string{{"title": "Event", "value": string(ev.Type)}, {"title": "Workspace", "value": ev.Workspace}}
	if p := ev.JobPath(); p != "" {
		facts = append(facts, map[string]string{"title": "Job", "value": p})
	}
	facts = append(facts, map[string]string{"title": "Time", "value": ev.Time.UTC().Format(time.RFC3339)})
	body = append(body, map[string]any{"type": "FactSet", "facts": facts})
	card := map[string]any{
		"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
		"type":    "AdaptiveCard", "version": "1.4", "body": body,
	}
	if ev.URL != "" {
		card["actions"] = []map[string]string{{"type": "Action.OpenUrl", "title": "Open the job", "url": ev.URL}}
	}
	out, _ := json.Marshal(map[string]any{"type": "message", "attachments": []map[string]any{{
		"contentType": "application/vnd.microsoft.card.adaptive", "content": card}}})
	return out
}

// eventFacts is one line of the event's facts: its type, workspace and
// time.
func eventFacts(ev *notifydef.Event) string {
	return string(ev.Type) + " · workspace " + ev.Workspace + " · " + ev.Time.UTC().Format(time.RFC3339)
}

// clip cuts s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// utf8RuneStart reports whether b starts a UTF-8 sequence.
func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
