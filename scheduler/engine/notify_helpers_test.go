package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"sked/models"
	"sked/models/notifydef"
	"sked/scheduler/action"
)

// hookEvent is one delivery a hook received and verified.
type hookEvent struct {
	ID    string
	Event notifydef.Event
	At    time.Time
}

// hook is a real webhook receiver: it verifies every request's Standard
// Webhooks signature with the specification's own library (a request
// that does not verify is counted in bad and answered 401) and records
// the events. handle, when set, answers instead of the default 204 (after
// the verification and the recording).
type hook struct {
	*httptest.Server
	secret string
	mu     sync.Mutex
	got    []hookEvent
	bad    int
	handle func(w http.ResponseWriter, r *http.Request)
	// seen, when not nil, receives every recorded event.
	seen chan hookEvent
}

func newHook(t testing.TB, handle func(w http.ResponseWriter, r *http.Request)) *hook {
	t.Helper()
	secret, err := action.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	h := &hook{secret: secret, handle: handle}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(body, r.Header); err != nil {
			h.mu.Lock()
			h.bad++
			h.mu.Unlock()
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		ev := hookEvent{ID: r.Header.Get("webhook-id"), At: time.Now()}
		if err := json.Unmarshal(body, &ev.Event); err != nil || ev.Event.ID != ev.ID {
			h.mu.Lock()
			h.bad++
			h.mu.Unlock()
			http.Error(w, "bad event", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.got = append(h.got, ev)
		seen := h.seen
		h.mu.Unlock()
		if seen != nil {
			seen <- ev
		}
		if h.handle != nil {
			h.handle(w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

// events returns what the hook received, in order.
func (h *hook) events() []hookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookEvent(nil), h.got...)
}

// summary lists the received events as "type job count", sorted.
func (h *hook) summary() []string {
	var out []string
	for _, ev := range h.events() {
		out = append(out, eventLine(&ev.Event))
	}
	sort.Strings(out)
	return out
}

// eventLine summarises an event for comparisons: "type rg/coll/job",
// with " ×count" for a digest.
func eventLine(ev *notifydef.Event) string {
	s := string(ev.Type) + " " + ev.JobPath()
	if ev.Monitor != "" {
		s += "monitor " + ev.Monitor
	}
	if ev.Count > 0 {
		s += " ×" + strconv.Itoa(ev.Count)
	}
	return s
}

// addWebhook stores the webhook channel name of workspace ws posting to
// url signed with secret.
func addWebhook(t testing.TB, store *models.Store, ws, name, url, secret string) {
	t.Helper()
	ch := &notifydef.Channel{Type: notifydef.Webhook, URL: url, SigningSecret: secret}
	if _, err := store.PutChannel(context.Background(), models.ChannelWrite{WorkspaceID: ws, Name: name,
		Type: string(ch.Type), Config: ch.Config(), Secrets: ch.Secrets()}); err != nil {
		t.Fatal(err)
	}
}

// addRule stores the alert rule name of workspace ws from its JSON
// (notifydef.ParseRule's input).
func addRule(t testing.TB, store *models.Store, ws, name, body string) {
	t.Helper()
	ctx := context.Background()
	r, err := notifydef.ParseRule([]byte(body))
	if err != nil {
		t.Fatalf("rule %s: %v", name, err)
	}
	ch, err := store.ChannelByName(ctx, ws, r.Channel)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := json.Marshal(r.Events)
	if _, err := store.PutAlertRule(ctx, models.AlertRuleWrite{WorkspaceID: ws, Name: name, ChannelID: ch.ID,
		ScopeResourceGroup: r.Scope.ResourceGroup, ScopeCollection: r.Scope.Collection, ScopeJob: r.Scope.Job,
		ScopeMonitor: r.Scope.Monitor, Events: events, Threshold: r.Threshold, MinInterval: r.MinInterval}); err != nil {
		t.Fatal(err)
	}
}

// deliveries returns the delivery log of the default workspace, oldest
// first.
func deliveries(t testing.TB, store *models.Store) []models.Notification {
	t.Helper()
	ns, err := store.Deliveries(context.Background(), models.DeliveryFilter{WorkspaceID: models.DefaultWorkspaceID, Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i].ID < ns[j].ID })
	return ns
}

// sendAll sends every notification due at the env's clock.
func (e *env) sendAll() {
	e.t.Helper()
	for range 20 {
		n, err := e.engine.outbox.sendDue(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	e.t.Fatal("sendAll: still claiming after 20 rounds")
}

func wantSummary(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
