package web

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"sked/models"
)

func TestAlertSummaryAndScope(t *testing.T) {
	for _, tc := range []struct {
		events    []string
		threshold int
		want      string
	}{
		{[]string{"occurrenceFaulted", "recovered"}, 0, "faulted, recovered → #ops-slack"},
		{[]string{"consecutiveFailures"}, 3, "3 failures in a row → #ops-slack"},
		{[]string{"attemptFailed", "missed", "jobFaulted", "jobCompleted"}, 0, "attempt failed, missed, job faulted, job completed → #ops-slack"},
	} {
		if got := AlertSummary(tc.events, tc.threshold, "ops-slack"); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.events, got, tc.want)
		}
	}
	for _, tc := range []struct{ rg, coll, job, want string }{
		{"", "", "", "whole workspace"}, {"rg", "", "", "resource group rg"},
		{"rg", "jc", "", "collection rg / jc"}, {"rg", "jc", "j", "job jc / j"},
	} {
		if got := ScopeText(tc.rg, tc.coll, tc.job); got != tc.want {
			t.Errorf("%v: %q", tc, got)
		}
	}
}

// rule is a stored rule for the presenters.
func rule(name, channel, rg, coll, job string, events ...string) models.AlertRule {
	ev, _ := json.Marshal(events)
	return models.AlertRule{Name: name, ChannelName: channel, ScopeResourceGroup: rg, ScopeCollection: coll, ScopeJob: job, Events: ev}
}

func TestNewAlertsPanel(t *testing.T) {
	rules := []models.AlertRule{
		rule("all", "ops", "", "", "", "jobFaulted"),
		rule("group", "ops", "RG", "", "", "missed"),
		rule("coll", "ops", "rg", "jc", "", "recovered"),
		rule("other", "ops", "rg", "other", "", "recovered"),
		rule("nightly", "ops", "rg", "jc", "nightly", "occurrenceFaulted"),
		rule("weekly", "ops", "rg", "jc", "weekly", "occurrenceFaulted"),
	}
	rules[2].MinIntervalMs = (15 * time.Minute).Milliseconds()
	channels := []models.Channel{{Name: "ops", Type: "slack"}, {Name: "pager", Type: "webhook"}}
	names := func(p AlertsPanel) string {
		var out []string
		for _, r := range p.Rules {
			out = append(out, r.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name           string
		in             AlertsIn
		rules, bell    string
		bellOn, button bool
	}{
		{"workspace", AlertsIn{}, "all group coll other nightly weekly", "", false, false},
		{"collection", AlertsIn{ResourceGroup: "rg", Collection: "JC"}, "all group coll nightly weekly", "", false, false},
		{"watched job", AlertsIn{ResourceGroup: "rg", Collection: "jc", Job: "nightly", Bell: true}, "all group coll nightly",
			"Alerts on: you hear when this job fails", true, false},
		{"unwatched job", AlertsIn{ResourceGroup: "rg", Collection: "jc", Job: "daily", Bell: true}, "all group coll",
			"Tell me when this job fails (→ #ops)", false, true},
	} {
		tc.in.Workspace, tc.in.Rules, tc.in.Channels, tc.in.CanManage = "default", rules, channels, true
		p := NewAlertsPanel(tc.in)
		if got := names(p); got != tc.rules {
			t.Errorf("%s: rules %q, want %q", tc.name, got, tc.rules)
		}
		if tc.bell == "" {
			if p.Bell != nil {
				t.Errorf("%s: a bell", tc.name)
			}
			continue
		}
		if p.Bell == nil || p.Bell.Label != tc.bell || p.Bell.On != tc.bellOn || (p.Bell.URL != "") != tc.button {
			t.Errorf("%s: bell %+v", tc.name, p.Bell)
		}
	}
	p := NewAlertsPanel(AlertsIn{Workspace: "default", ResourceGroup: "rg", Collection: "jc", Rules: rules, Channels: channels})
	if p.Rules[2].Throttle != "at most one message per 15 min per job (a digest of the rest)" || p.Rules[2].Scope != "collection rg / jc" {
		t.Errorf("row %+v", p.Rules[2])
	}
	if p.Rules[2].RemoveURL != "/w/default/alerts/coll/delete" || p.AddURL != "/w/default/alerts" || len(p.Channels) != 2 {
		t.Errorf("urls %q %q, channels %v", p.Rules[2].RemoveURL, p.AddURL, p.Channels)
	}
	checked := 0
	for _, e := range p.Events {
		if e.Checked {
			checked++
		}
	}
	if checked != 2 || !p.Events[0].Checked || !p.Events[1].Checked {
		t.Errorf("default events %+v", p.Events)
	}
	// No channel: the bell leads to the Channels page.
	p = NewAlertsPanel(AlertsIn{Workspace: "w s", ResourceGroup: "rg", Collection: "jc", Job: "j", Bell: true})
	if p.Bell.SetupURL != "/w/w%20s/channels" || p.Bell.URL != "" {
		t.Errorf("bell without channels %+v", p.Bell)
	}
}

func TestAlertBodyAndErrors(t *testing.T) {
	for _, tc := range []struct {
		events []string
		form   AlertForm
		want   string
	}{
		{[]string{"recovered"}, AlertForm{Channel: "ops"},
			`{"channel":"ops","events":["recovered"],"scope":{"collection":"jc","job":"","resourceGroup":"rg"}}`},
		{nil, AlertForm{Channel: "ops", Threshold: "3"},
			`{"channel":"ops","events":[],"scope":{"collection":"jc","job":"","resourceGroup":"rg"}}`},
		{[]string{"consecutiveFailures"}, AlertForm{Channel: "ops", Threshold: "three", MinInterval: " PT5M "},
			`{"channel":"ops","events":["consecutiveFailures"],"minInterval":"PT5M","scope":{"collection":"jc","job":"","resourceGroup":"rg"},"threshold":"three"}`},
	} {
		got, err := AlertBody("rg", "jc", "", tc.events, tc.form)
		if err != nil || string(got) != tc.want {
			t.Errorf("%v %+v: %s, %v", tc.events, tc.form, got, err)
		}
	}
	got := AlertFormErrors(FieldErrors{"events[1]": "a", "scope.job": "b", "channel": "c"})
	if got["events"] != "a" || got["scope"] != "b" || got["channel"] != "c" || len(got) != 3 {
		t.Errorf("errors %v", got)
	}
}

func TestNewChannelsPanelAndRows(t *testing.T) {
	chans := []models.Channel{
		{ID: 1, Name: "mail", Type: "email", Config: json.RawMessage(`{"host":"smtp.example.com","port":587,"security":"starttls","from":"s@example.com","to":["a@example.com","b@example.com"]}`)},
		{ID: 2, Name: "ops", Type: "slack", Description: "On call", Config: json.RawMessage(`{"urlHost":"hooks.slack.com"}`)},
		{ID: 3, Name: "hook", Type: "webhook", Config: json.RawMessage(`{"url":"https://example.com/in"}`)},
	}
	rules := []models.AlertRule{{ChannelID: 2}, {ChannelID: 2}, {ChannelID: 3}}
	sub := ChannelForm{Type: "slack", Name: "x", URL: "http://no", Errors: FieldErrors{"url": "The URL must be an https URL."}}
	p := NewChannelsPanel(ChannelsIn{Workspace: "default", CSRFToken: "tok", CanManage: true, Channels: chans, Rules: rules, Submitted: &sub})
	for i, want := range []struct{ id, label, target, rules string }{
		{"channel-mail", "Email", "smtp.example.com:587 → a@example.com, b@example.com", "0 alert rules"},
		{"channel-ops", "Slack", "hooks.slack.com", "2 alert rules"},
		{"channel-hook", "Webhook", "https://example.com/in", "1 alert rule"},
	} {
		r := p.Channels[i]
		if r.ID != want.id || r.TypeLabel != want.label || r.Target != want.target || r.Rules != want.rules || r.CSRFToken != "tok" || !r.CanManage {
			t.Errorf("row %d: %+v", i, r)
		}
		if r.Default != (i == 0) {
			t.Errorf("row %d: default %v", i, r.Default)
		}
	}
	if p.Channels[1].TestURL != "/w/default/channels/ops/test" || p.Channels[1].DeleteURL != "/w/default/channels/ops/delete" {
		t.Errorf("urls %+v", p.Channels[1])
	}
	if len(p.Forms) != 4 || p.Forms[1].Type != "slack" || !p.Forms[1].Open || p.Forms[1].URL != "http://no" || p.Forms[1].Title != "Slack" ||
		p.Forms[0].Open || p.Forms[3].Port != "587" {
		t.Errorf("forms %+v", p.Forms)
	}
}

func TestChannelBodyAndAnswer(t *testing.T) {
	for _, tc := range []struct {
		form     ChannelForm
		password string
		want     string
	}{
		{ChannelForm{Type: "webhook", URL: "https://e.com/h", Description: "d"}, "",
			`{"description":"d","properties":{"url":"https://e.com/h"},"type":"webhook"}`},
		{ChannelForm{Type: "email", Host: "smtp", Port: "25", Security: "none", From: "s@e.com", To: "a@e.com, b@e.com;c@e.com", User: "u"}, "pw",
			`{"description":"","properties":{"from":"s@e.com","host":"smtp","password":"pw","port":25,"security":"none","to":["a@e.com","b@e.com","c@e.com"],"user":"u"},"type":"email"}`},
		{ChannelForm{Type: "email", Port: "x"}, "",
			`{"description":"","properties":{"from":"","host":"","port":"x","security":"","to":[]},"type":"email"}`},
	} {
		got, err := ChannelBody(tc.form, tc.password)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s, %v", tc.form, got, err)
		}
	}
	if e := ChannelFormErrors(FieldErrors{"properties.to[2]": "x", "name": "y"}); e["to"] != "x" || e["name"] != "y" {
		t.Errorf("errors %v", e)
	}
	a := NewTestAnswer(true, "HTTP 200 OK ", "", 12*time.Millisecond)
	if a.Badge.Text != "Delivered" || a.Badge.Tone != ToneGood || a.Text != "HTTP 200 OK · 12 ms" {
		t.Errorf("answer %+v", a)
	}
	a = NewTestAnswer(false, "", "connection refused", time.Second)
	if a.Badge.Tone != ToneBad || a.Text != "No answer · 1000 ms" || a.Error != "connection refused" {
		t.Errorf("answer %+v", a)
	}
}

func TestNewDeliveryLog(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var rows []models.Notification
	for i := range DeliveryPageSize + 1 {
		rows = append(rows, models.Notification{ID: int64(100 - i), ChannelName: "ops", EventType: "occurrenceFaulted",
			Status: models.NotificationDelivered, Attempts: 1, CreatedAt: now.Add(-time.Duration(i) * time.Minute),
			LastStatusCode: 200, LastAnswer: "HTTP 200 OK", Event: json.RawMessage(`{"collection":"jc","job":"nightly"}`)})
	}
	p := DeliveryParams{Channel: "ops", Status: "delivered"}
	l := NewDeliveryLog("default", p, []string{"ops"}, rows, time.UTC, now)
	if len(l.Rows) != DeliveryPageSize || l.NewestURL != "" || !l.Filtered {
		t.Fatalf("%d rows, newest %q", len(l.Rows), l.NewestURL)
	}
	older, _ := url.Parse(l.OlderURL)
	if q := older.Query(); q.Get("before") != "51" || q.Get("channel") != "ops" || q.Get("status") != "delivered" {
		t.Errorf("older %q", l.OlderURL)
	}
	if r := l.Rows[0]; r.ID != "delivery-100" || r.Event != "faulted" || r.Job != "jc / nightly" || r.Answer != "HTTP 200 OK" ||
		r.Tries != "1 try" || r.Badge.Text != "Delivered" {
		t.Errorf("row %+v", r)
	}
	p.Before = 51
	l = NewDeliveryLog("default", p, nil, rows[:2], time.UTC, now)
	if l.OlderURL != "" || l.NewestURL != "/w/default/channels?channel=ops&status=delivered" {
		t.Errorf("later page: older %q newest %q", l.OlderURL, l.NewestURL)
	}
	if last := l.Filter.Channels[len(l.Filter.Channels)-1]; last.Label != "ops (deleted)" {
		t.Errorf("a deleted channel's filter %+v", last)
	}
	pending := NewDeliveryRow(&models.Notification{ID: 1, Status: models.NotificationPending, Attempts: 2, NextAttemptAt: now.Add(4 * time.Minute),
		LastStatusCode: 503, LastAnswer: "busy", LastError: "HTTP 503"}, time.UTC, now)
	if pending.Badge.Text != "Waiting to retry" || pending.Next != "next try in 4 min" || pending.Answer != "HTTP 503 · busy · HTTP 503" || pending.Tries != "2 tries" {
		t.Errorf("pending %+v", pending)
	}
	if f := (DeliveryParams{Since: "7d"}).Filter("default", now); !f.Since.Equal(now.Add(-7*24*time.Hour)) || f.Limit != DeliveryPageSize+1 {
		t.Errorf("filter %+v", f)
	}
	for v, ok := range map[string]bool{"": true, "failed": true, "lost": false} {
		if ValidDeliveryStatus(v) != ok {
			t.Errorf("status %q", v)
		}
	}
	for v, ok := range map[string]bool{"": true, "test": true, "recovered": true, "exploded": false} {
		if ValidDeliveryEvent(v) != ok {
			t.Errorf("event %q", v)
		}
	}
}

func TestNewSigningPanel(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	p := NewSigningPanel(SigningIn{Workspace: "default", ResourceGroup: "rg", Collection: "jc", CanEdit: true}, time.UTC, now)
	if p.Enabled || p.NewURL != "/c/default/rg/jc/signing-secret" || p.RemoveURL != "/c/default/rg/jc/signing-secret/remove" || p.NewSecret != nil {
		t.Errorf("unsigned %+v", p)
	}
	until := now.Add(time.Hour)
	g := &models.Signing{Current: "whsec_new", Previous: "whsec_old", PreviousUntil: &until, UpdatedAt: now.Add(-time.Minute)}
	p = NewSigningPanel(SigningIn{Collection: "jc", Signing: g, NewSecret: "whsec_new"}, time.UTC, now)
	if !p.Enabled || !strings.Contains(p.Overlap, "Sat 21 Nov 2026 13:00:00 UTC") || p.NewSecret == nil || p.NewSecret.Value != "whsec_new" {
		t.Errorf("rotating %+v", p)
	}
	p = NewSigningPanel(SigningIn{Signing: g}, time.UTC, now.Add(2*time.Hour))
	if p.Overlap != "" {
		t.Errorf("overlap after it ended: %q", p.Overlap)
	}
	for v, want := range map[string]time.Duration{"": 24 * time.Hour, "1h": time.Hour, "0": 0} {
		if d, ok := SigningOverlap(v); !ok || d != want {
			t.Errorf("overlap %q: %v %v", v, d, ok)
		}
	}
	if _, ok := SigningOverlap("1y"); ok {
		t.Error("1y is an overlap")
	}
	if got := g.Secrets(now); len(got) != 2 || got[0] != "whsec_new" {
		t.Errorf("secrets during the overlap %v", got)
	}
	if got := g.Secrets(until); len(got) != 1 {
		t.Errorf("secrets at the end of the overlap %v", got)
	}
}
