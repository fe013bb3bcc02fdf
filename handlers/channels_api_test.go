package handlers_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"sked/handlers"
	"sked/models"
)

const (
	chanBase  = "/api/v1/workspaces/default/channels"
	alertBase = "/api/v1/workspaces/default/alerts"
)

// notifyRows digests the channels, alert rules and notifications, to
// assert that a refused request stored nothing.
func (a *app) notifyRows() string {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	var out string
	err = db.QueryRow(`SELECT coalesce((SELECT md5(string_agg(c::text, '|' ORDER BY c.id)) FROM channels c), '') ||
		coalesce((SELECT md5(string_agg(r::text, '|' ORDER BY r.id)) FROM alert_rules r), '') ||
		coalesce((SELECT md5(string_agg(n::text, '|' ORDER BY n.id)) FROM notifications n), '')`).Scan(&out)
	if err != nil {
		a.t.Fatal(err)
	}
	return out
}

// exec runs SQL on the app's database.
func (a *app) exec(query string, args ...any) {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		a.t.Fatal(err)
	}
}

// problemBody is an API error with its details.
type problemBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details []struct {
			Target  string `json:"target"`
			Message string `json:"message"`
		} `json:"details"`
	} `json:"error"`
}

func TestChannelAPILifecycle(t *testing.T) {
	a := newApp(t, false).withToken()
	r := a.api(http.MethodPut, chanBase+"/Ops-Hook", `{"type":"webhook","description":"On-call","properties":{"url":"https://hooks.example.com/sked"}}`)
	wantStatus(t, r, http.StatusCreated)
	created := decode[map[string]any](t, r)
	secret, _ := created["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || created["name"] != "Ops-Hook" || created["type"] != "webhook" {
		t.Fatalf("created: %s", r.body)
	}
	// The secret is shown once: never by GET, list or a replace.
	r = a.api(http.MethodGet, chanBase+"/ops-hook", "")
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "whsec_") || !strings.Contains(r.body, `"properties":{"url":"https://hooks.example.com/sked"}`) {
		t.Errorf("GET: %s", r.body)
	}
	r = a.api(http.MethodPut, chanBase+"/ops-hook", r.body)
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "whsec_") || strings.Contains(r.body, `"secret"`) {
		t.Errorf("replace shows the secret: %s", r.body)
	}
	r = a.api(http.MethodPut, chanBase+"/slack", `{"type":"slack","properties":{"url":"https://hooks.slack.com/services/T0/B0/XyZsecret"}}`)
	wantStatus(t, r, http.StatusCreated)
	r = a.api(http.MethodPut, chanBase+"/mail", `{"type":"email","properties":{"host":"smtp.example.com","port":587,
		"security":"starttls","user":"sked","password":"hunter2-smtp","from":"sked@example.com","to":["ops@example.com"]}}`)
	wantStatus(t, r, http.StatusCreated)
	r = a.api(http.MethodGet, chanBase, "")
	wantStatus(t, r, http.StatusOK)
	for _, secretText := range []string{"whsec_", "XyZsecret", "hunter2-smtp"} {
		if strings.Contains(r.body, secretText) {
			t.Errorf("the list shows %s: %s", secretText, r.body)
		}
	}
	list := decode[struct{ Value []map[string]any }](t, r)
	if len(list.Value) != 3 || list.Value[0]["name"] != "mail" || list.Value[2]["name"] != "slack" {
		t.Errorf("list: %s", r.body)
	}
	if !strings.Contains(r.body, `"urlHost":"hooks.slack.com"`) || !strings.Contains(r.body, `"passwordSet":true`) {
		t.Errorf("list lacks the public parts: %s", r.body)
	}
	// Rules: create, read, refuse deleting their channel, delete.
	r = a.api(http.MethodPut, alertBase+"/faults", `{"channel":"ops-hook","scope":{"resourceGroup":"rg","collection":"jc"},
		"events":["occurrenceFaulted","consecutiveFailures"],"threshold":3,"minInterval":"PT15M"}`)
	wantStatus(t, r, http.StatusCreated)
	if !strings.Contains(r.body, `"channel":"Ops-Hook"`) || !strings.Contains(r.body, `"threshold":3,"minInterval":"PT15M"`) {
		t.Errorf("rule: %s", r.body)
	}
	r = a.api(http.MethodPut, alertBase+"/faults", `{"channel":"slack","events":["jobFaulted"]}`)
	wantStatus(t, r, http.StatusOK)
	r = a.api(http.MethodGet, alertBase, "")
	wantStatus(t, r, http.StatusOK)
	if rules := decode[struct{ Value []map[string]any }](t, r); len(rules.Value) != 1 || rules.Value[0]["channel"] != "slack" {
		t.Errorf("rules: %s", r.body)
	}
	r = a.api(http.MethodDelete, chanBase+"/slack", "")
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.body, "faults") {
		t.Errorf("409 does not name the rule: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodDelete, alertBase+"/faults", ""), http.StatusOK)
	wantStatus(t, a.api(http.MethodDelete, alertBase+"/faults", ""), http.StatusNotFound)
	wantStatus(t, a.api(http.MethodDelete, chanBase+"/slack", ""), http.StatusOK)
	r = a.api(http.MethodGet, chanBase+"/slack", "")
	wantStatus(t, r, http.StatusNotFound)
	if !strings.Contains(r.body, `The channel \"slack\" does not exist`) {
		t.Errorf("404: %s", r.body)
	}
}

func TestNotifyAPIBadInput(t *testing.T) {
	a := newApp(t, false).withToken()
	if _, err := a.store.PutChannel(context.Background(), models.ChannelWrite{WorkspaceID: models.DefaultWorkspaceID, Name: "ops",
		Type: "webhook", Config: []byte(`{"url":"https://example.com"}`), Secrets: map[string]string{"signingSecret": "whsec_AAAA"}}); err != nil {
		t.Fatal(err)
	}
	a.exec(`INSERT INTO workspaces (id) VALUES ('other')`)
	if _, err := a.store.PutChannel(context.Background(), models.ChannelWrite{WorkspaceID: "other", Name: "theirs",
		Type: "webhook", Config: []byte(`{"url":"https://example.com"}`), Secrets: map[string]string{"signingSecret": "whsec_AAAA"}}); err != nil {
		t.Fatal(err)
	}
	before := a.notifyRows()
	for _, tt := range []struct{ name, path, body, target string }{
		{"unknown event", alertBase + "/r", `{"channel":"ops","events":["occurrenceFaulted","exploded"]}`, "events[1]"},
		{"rule on another workspace's channel", alertBase + "/r", `{"channel":"theirs","events":["missed"]}`, "channel"},
		{"rule on an unknown channel", alertBase + "/r", `{"channel":"nope","events":["missed"]}`, "channel"},
		{"threshold below 2", alertBase + "/r", `{"channel":"ops","events":["consecutiveFailures"],"threshold":1}`, "threshold"},
		{"bad minInterval", alertBase + "/r", `{"channel":"ops","events":["missed"],"minInterval":"15 minutes"}`, "minInterval"},
		{"unknown rule field", alertBase + "/r", `{"channel":"ops","events":["missed"],"severity":1}`, "severity"},
		{"slack over http", chanBase + "/s", `{"type":"slack","properties":{"url":"http://hooks.slack.com/services/x"}}`, "properties.url"},
		{"teams over http", chanBase + "/t", `{"type":"teams","properties":{"url":"http://example.com/x"}}`, "properties.url"},
		{"smtp port out of range", chanBase + "/m", `{"type":"email","properties":{"host":"smtp.example.com","port":65536,"from":"a@example.com","to":["b@example.com"]}}`, "properties.port"},
		{"unknown channel type", chanBase + "/p", `{"type":"pager","properties":{}}`, "type"},
		{"unknown channel field", chanBase + "/w", `{"type":"webhook","properties":{"url":"https://x.example","secret":"mine"}}`, "properties.secret"},
		{"bad channel name", chanBase + "/-x", `{"type":"webhook","properties":{"url":"https://x.example"}}`, "name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := a.api(http.MethodPut, tt.path, tt.body)
			wantStatus(t, r, http.StatusBadRequest)
			got := decode[problemBody](t, r)
			found := false
			for _, d := range got.Error.Details {
				found = found || d.Target == tt.target
			}
			if got.Error.Code != "BadRequest" || !found {
				t.Errorf("want a detail at %s: %s", tt.target, r.body)
			}
		})
	}
	r := a.api(http.MethodGet, "/api/v1/workspaces/default/deliveries?status=lost", "")
	wantStatus(t, r, http.StatusBadRequest)
	if after := a.notifyRows(); after != before {
		t.Error("a refused request changed the stored channels, rules or deliveries")
	}
	// Another workspace's channels are not there for this token.
	wantStatus(t, a.api(http.MethodGet, "/api/v1/workspaces/other/channels/theirs", ""), http.StatusForbidden)
}

func TestChannelTestEvent(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	a := newApp(t, false, func(d *handlers.Deps) {
		d.AllowTargets = loopback
		d.BaseURL = "https://sked.example.com"
	}).withToken()
	type received struct {
		header http.Header
		body   []byte
	}
	got := make(chan received, 1)
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), body}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "thanks")
	}))
	defer srv.Close()
	r := a.api(http.MethodPut, chanBase+"/hook", `{"type":"webhook","properties":{"url":"`+srv.URL+`/in"}}`)
	wantStatus(t, r, http.StatusCreated)
	r = a.api(http.MethodPost, chanBase+"/hook/test", "")
	wantStatus(t, r, http.StatusOK)
	res := decode[map[string]any](t, r)
	if res["delivered"] != true || res["statusCode"] != float64(200) || !strings.Contains(res["answer"].(string), "thanks") {
		t.Errorf("test: %s", r.body)
	}
	in := <-got
	var ev map[string]any
	if err := json.Unmarshal(in.body, &ev); err != nil || ev["type"] != "test" || ev["workspace"] != "default" || ev["url"] != "https://sked.example.com/" {
		t.Errorf("event %s %v", in.body, err)
	}
	if in.header.Get("webhook-id") != ev["id"] || !strings.HasPrefix(in.header.Get("webhook-signature"), "v1,") {
		t.Errorf("headers %v", in.header)
	}
	status = http.StatusInternalServerError
	r = a.api(http.MethodPost, chanBase+"/hook/test", "")
	wantStatus(t, r, http.StatusOK)
	if res := decode[map[string]any](t, r); res["delivered"] != false || res["statusCode"] != float64(500) || !strings.Contains(res["error"].(string), "500") {
		t.Errorf("failed test: %s", r.body)
	}
	<-got
	r = a.api(http.MethodGet, "/api/v1/workspaces/default/deliveries?channel=HOOK", "")
	wantStatus(t, r, http.StatusOK)
	log := decode[struct {
		Value []struct {
			Channel, EventType, Status, EventID string
			StatusCode                          int
			Attempts                            int
		}
	}](t, r)
	if len(log.Value) != 2 || log.Value[0].Status != "failed" || log.Value[1].Status != "delivered" || log.Value[1].EventID != ev["id"] ||
		log.Value[0].StatusCode != 500 || log.Value[0].Attempts != 1 || log.Value[0].Channel != "hook" || log.Value[0].EventType != "test" {
		t.Errorf("log: %s", r.body)
	}
	r = a.api(http.MethodGet, "/api/v1/workspaces/default/deliveries?channel=other", "")
	if list := decode[struct{ Value []any }](t, r); len(list.Value) != 0 {
		t.Errorf("other channel's log: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodPost, chanBase+"/nope/test", ""), http.StatusNotFound)
}

func TestChannelTestEventRefused(t *testing.T) {
	a := newApp(t, false).withToken()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the guard let the test event through")
	}))
	defer srv.Close()
	wantStatus(t, a.api(http.MethodPut, chanBase+"/hook", `{"type":"webhook","properties":{"url":"`+srv.URL+`"}}`), http.StatusCreated)
	r := a.api(http.MethodPost, chanBase+"/hook/test", "")
	wantStatus(t, r, http.StatusOK)
	if res := decode[map[string]any](t, r); res["delivered"] != false || !strings.Contains(res["error"].(string), "--allow-targets") {
		t.Errorf("refused: %s", r.body)
	}
}
