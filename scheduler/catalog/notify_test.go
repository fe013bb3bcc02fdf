package catalog_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"sked/models"
	"sked/models/notifydef"
	"sked/models/problem"
	"sked/scheduler/action"
	"sked/scheduler/catalog"
)

func TestChannelsAndAlertRules(t *testing.T) {
	e := newEnv(t)
	e.exec(`INSERT INTO workspaces (id) VALUES ('other')`)
	var ops []string
	catalog.SetOnChange(e.cat, func(_ context.Context, _ catalog.Actor, ch catalog.Change) {
		ops = append(ops, string(ch.Op)+" "+ch.Channel+ch.Alert+" "+ch.Detail)
	})
	actor := catalog.Actor{UserID: e.user.ID}
	saved, err := e.cat.PutChannel(e.ctx, actor, models.DefaultWorkspaceID, "Ops", []byte(`{"type":"webhook","properties":{"url":"https://example.com/hook"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !saved.Created || !strings.HasPrefix(saved.Secret, "whsec_") || saved.Row.Secrets["signingSecret"] != saved.Secret {
		t.Fatalf("created %+v", saved)
	}
	doc, err := catalog.ChannelDocument(saved.Row)
	if err != nil || strings.Contains(string(doc), "whsec_") || !strings.Contains(string(doc), `"properties":{"url":"https://example.com/hook"}`) {
		t.Errorf("document %s %v", doc, err)
	}
	// A replace keeps the secret and does not show it again.
	again, err := e.cat.PutChannel(e.ctx, actor, models.DefaultWorkspaceID, "ops", []byte(`{"type":"webhook","properties":{"url":"https://example.com/other"}}`))
	if err != nil || again.Created || again.Secret != "" || again.Row.Secrets["signingSecret"] != saved.Secret || again.Row.Name != "Ops" {
		t.Fatalf("replaced %+v %v", again, err)
	}
	// The user is no member of "other": its channel is made by the zero
	// Actor (trusted as owner), as a member there would.
	if _, err := e.cat.PutChannel(e.ctx, catalog.System("test"), "other", "theirs", []byte(`{"type":"slack","properties":{"url":"https://hooks.slack.com/services/x"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, body, path string }{
		{"bad name", `{}`, "name"},
		{"another workspace's channel", `{"channel":"theirs","events":["missed"]}`, "channel"},
		{"unknown channel", `{"channel":"nope","events":["missed"]}`, "channel"},
		{"unknown event", `{"channel":"ops","events":["exploded"]}`, "events[0]"},
	} {
		name := "r1"
		if tt.name == "bad name" {
			name = "-bad"
		}
		_, _, err := e.cat.PutAlertRule(e.ctx, actor, models.DefaultWorkspaceID, name, []byte(tt.body))
		if l := problem.As(err); l == nil || l.For(tt.path) == "" {
			t.Errorf("%s: %v, want a problem at %s", tt.name, err, tt.path)
		}
	}
	row, created, err := e.cat.PutAlertRule(e.ctx, actor, models.DefaultWorkspaceID, "Faults",
		[]byte(`{"channel":"OPS","scope":{"resourceGroup":"rg"},"events":["occurrenceFaulted","recovered"],"minInterval":"PT10M"}`))
	if err != nil || !created {
		t.Fatalf("rule: %v", err)
	}
	rdoc, _ := catalog.AlertRuleDocument(row)
	if !strings.Contains(string(rdoc), `"name":"Faults","channel":"Ops","scope":{"resourceGroup":"rg"},"events":["occurrenceFaulted","recovered"],"minInterval":"PT10M"`) {
		t.Errorf("rule document %s", rdoc)
	}
	var ce *models.ConflictError
	if err := e.cat.DeleteChannel(e.ctx, actor, models.DefaultWorkspaceID, "ops"); !errors.As(err, &ce) || !strings.Contains(ce.Message, "Faults") {
		t.Errorf("delete a channel in use: %v", err)
	}
	if err := e.cat.DeleteAlertRule(e.ctx, actor, models.DefaultWorkspaceID, "faults"); err != nil {
		t.Fatal(err)
	}
	if err := e.cat.DeleteChannel(e.ctx, actor, models.DefaultWorkspaceID, "ops"); err != nil {
		t.Fatal(err)
	}
	want := []string{"channel.put Ops created", "channel.put Ops ", "channel.put theirs created", "alert.put Faults created",
		"alert.delete faults ", "channel.delete Ops "}
	if strings.Join(ops, "|") != strings.Join(want, "|") {
		t.Errorf("changes:\n%q\nwant\n%q", ops, want)
	}
}

func TestTestChannel(t *testing.T) {
	e := newEnv(t)
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	if _, err := e.cat.PutChannel(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "hook",
		[]byte(`{"type":"webhook","properties":{"url":"`+srv.URL+`"}}`)); err != nil {
		t.Fatal(err)
	}
	n := action.NewNotifier(action.Config{AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	res, err := e.cat.TestChannel(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "hook", "https://sked.example.com", n)
	if err != nil || !res.Delivered || res.StatusCode != http.StatusAccepted {
		t.Fatalf("test: %+v %v", res, err)
	}
	h := <-got
	log, err := e.store.Deliveries(e.ctx, models.DeliveryFilter{WorkspaceID: models.DefaultWorkspaceID, Channel: "hook"})
	if err != nil || len(log) != 1 || log[0].EventID != h.Get("webhook-id") || log[0].Status != models.NotificationDelivered || log[0].LastStatusCode != 202 {
		t.Errorf("log %+v %v", log, err)
	}
	// Without the allow list the guard refuses, and the log says so.
	res, err = e.cat.TestChannel(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "hook", "", action.NewNotifier(action.Config{}))
	if err != nil || res.Delivered || !strings.Contains(res.Error, "--allow-targets") {
		t.Errorf("refused: %+v %v", res, err)
	}
	if _, err := e.cat.TestChannel(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "nope", "", n); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown channel: %v", err)
	}
}

// okSender delivers every notification without sending it.
type okSender struct{}

func (okSender) Send(context.Context, *notifydef.Channel, *notifydef.Event) action.SendResult {
	return action.SendResult{Delivered: true, StatusCode: http.StatusOK}
}
