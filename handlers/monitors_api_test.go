package handlers_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
)

const monBase = "/api/v1/workspaces/default/monitors"

type monitorOut struct {
	Name         string   `json:"name"`
	Grace        string   `json:"grace"`
	Description  string   `json:"description"`
	Paused       bool     `json:"paused"`
	Status       string   `json:"status"`
	PingURL      string   `json:"pingUrl"`
	NextExpected []string `json:"nextExpected"`
	Version      int64    `json:"version"`
	LastPing     *struct {
		At   string `json:"at"`
		Kind string `json:"kind"`
	} `json:"lastPing"`
	Schedule map[string]any `json:"schedule"`
}

// monitorRows digests the monitors table, to assert that a refused
// request changed nothing.
func (a *app) monitorRows() string {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	var out string
	if err := db.QueryRow(`SELECT coalesce(md5(string_agg(m::text, '|' ORDER BY m.id)), '') FROM monitors m`).Scan(&out); err != nil {
		a.t.Fatal(err)
	}
	return out
}

// pingPath is the path of a monitor's ping URL (with suffix).
func pingPath(t *testing.T, pingURL, suffix string) string {
	t.Helper()
	i := strings.Index(pingURL, "/ping/")
	if i < 0 {
		t.Fatalf("ping URL %q", pingURL)
	}
	return pingURL[i:] + suffix
}

func TestMonitorAPILifecycle(t *testing.T) {
	a := newApp(t, false).withToken()
	body := `{"schedule":{"frequency":"day","schedule":{"hours":[2],"minutes":[30]},"timeZone":"Europe/Berlin"},
		"grace":"PT15M","description":"nightly backup","deadline":{"maxDuration":"PT1H"}}`
	r := a.api(http.MethodPut, monBase+"/Backup", body)
	wantStatus(t, r, http.StatusCreated)
	got := decode[monitorOut](t, r)
	if got.Name != "Backup" || got.Grace != "PT15M" || got.Status != "new" || got.Description != "nightly backup" ||
		!strings.Contains(got.PingURL, "/ping/hb_") || len(got.NextExpected) != 5 || got.Version != 1 {
		t.Fatalf("created: %s", r.body)
	}
	// The next expected times are the schedule's, in its zone: 02:30
	// Berlin time is 00:30 or 01:30 UTC.
	if first, err := time.Parse(time.RFC3339, got.NextExpected[0]); err != nil || first.In(time.FixedZone("", 0)).Minute() != 30 {
		t.Errorf("next expected %v (%v)", got.NextExpected, err)
	}
	// A replacement keeps the token; GET answers the same document.
	r = a.api(http.MethodPut, monBase+"/backup", strings.Replace(body, "nightly backup", "the backup", 1))
	wantStatus(t, r, http.StatusOK)
	again := decode[monitorOut](t, r)
	if again.PingURL != got.PingURL || again.Name != "Backup" || again.Version != 2 {
		t.Errorf("replaced: %s", r.body)
	}
	r = a.api(http.MethodGet, monBase+"/BACKUP", "")
	wantStatus(t, r, http.StatusOK)
	if decode[monitorOut](t, r).Description != "the backup" {
		t.Errorf("GET: %s", r.body)
	}
	// The list has it.
	r = a.api(http.MethodGet, monBase, "")
	wantStatus(t, r, http.StatusOK)
	list := decode[struct{ Value []monitorOut }](t, r)
	if len(list.Value) != 1 || list.Value[0].Name != "Backup" {
		t.Errorf("list: %s", r.body)
	}
	// Rotation: a new URL, the old one is gone.
	r = a.api(http.MethodPost, monBase+"/Backup/rotate", "")
	wantStatus(t, r, http.StatusOK)
	rotated := decode[monitorOut](t, r)
	if rotated.PingURL == got.PingURL || rotated.PingURL == "" {
		t.Errorf("rotate: %s", r.body)
	}
	wantStatus(t, a.get(pingPath(t, got.PingURL, "")), http.StatusNotFound)
	wantStatus(t, a.get(pingPath(t, rotated.PingURL, "")), http.StatusOK)
	// The audit log has the three kinds of change.
	page, err := a.store.AuditEntries(context.Background(), models.AuditFilter{WorkspaceID: "default", Resource: "monitors/Backup"})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]bool{}
	for _, e := range page.Entries {
		if e.Resource == "monitors/Backup" {
			actions[e.Action] = true
		}
	}
	if !actions["monitor.put"] || !actions["monitor.rotate"] {
		t.Errorf("audit actions %v", actions)
	}
	r = a.api(http.MethodDelete, monBase+"/backup", "")
	wantStatus(t, r, http.StatusOK)
	wantStatus(t, a.api(http.MethodGet, monBase+"/backup", ""), http.StatusNotFound)
	wantStatus(t, a.api(http.MethodDelete, monBase+"/backup", ""), http.StatusNotFound)
	wantStatus(t, a.get(pingPath(t, rotated.PingURL, "")), http.StatusNotFound)
}

func TestMonitorAPIValidation(t *testing.T) {
	a := newApp(t, false).withToken()
	before := a.monitorRows()
	for _, tc := range []struct{ name, body, target string }{
		{"m", `{"schedule":{"frequency":"fortnight"}}`, "schedule.frequency"},
		{"m", `{"schedule":{"frequency":"minute","interval":2000}}`, "schedule.interval"},
		{"m", `{"schedule":{"frequency":"day","schedule":{"weekDays":["monday"]}}}`, "schedule.schedule.weekDays"},
		{"m", `{"schedule":{"frequency":"day","timeZone":"Mars/Olympus"}}`, "schedule.timeZone"},
		{"m", `{"schedule":{"frequency":"day","calendars":{"exclude":["nope"]}}}`, "schedule.calendars.exclude[0]"},
		{"m", `{"schedule":{"frequency":"day","count":3}}`, "schedule.count"},
		{"m", `{"grace":"PT5M"}`, "schedule"},
		{"m", `{"schedule":{"frequency":"day"},"grace":"P2D"}`, "grace"},
		{"m", `{"schedule":{"frequency":"day"},"grace":"soon"}`, "grace"},
		{"m", `{"schedule":{"frequency":"day"},"deadline":{"maxDuration":"PT0S"}}`, "deadline.maxDuration"},
		{"m", `{"schedule":{"frequency":"day"},"paused":"yes"}`, "paused"},
		{"m", `{"schedule":{"frequency":"day"},"colour":"red"}`, "colour"},
		{"m", `[1]`, "monitor"},
		{"new", `{"schedule":{"frequency":"day"}}`, "name"},
		{"-bad", `{"schedule":{"frequency":"day"}}`, "name"},
	} {
		r := a.api(http.MethodPut, monBase+"/"+tc.name, tc.body)
		wantStatus(t, r, http.StatusBadRequest)
		var e struct {
			Error struct {
				Details []struct{ Target string }
			}
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range e.Error.Details {
			found = found || d.Target == tc.target
		}
		if !found {
			t.Errorf("%s: want a problem at %s, got %s", tc.body, tc.target, r.body)
		}
	}
	if a.monitorRows() != before {
		t.Error("a refused PUT changed the monitors")
	}
}

func TestMonitorReadersSeeNoPingURL(t *testing.T) {
	a := newApp(t, false).withToken()
	wantStatus(t, a.api(http.MethodPut, monBase+"/m", `{"schedule":{"frequency":"hour"}}`), http.StatusCreated)
	ctx := context.Background()
	u, err := a.store.CreateUser(ctx, models.NewUser{Username: "reed", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.SetMemberRole(ctx, "default", u.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}
	a.token = tokenOf(t, a, u.ID)
	r := a.api(http.MethodGet, monBase+"/m", "")
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "pingUrl") || strings.Contains(r.body, "hb_") {
		t.Errorf("a reader sees the token: %s", r.body)
	}
	r = a.api(http.MethodGet, monBase, "")
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "pingUrl") {
		t.Errorf("a reader's list shows the token: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodPost, monBase+"/m/rotate", ""), http.StatusForbidden)
}

func TestMonitorPings(t *testing.T) {
	a := newApp(t, false).withToken()
	r := a.api(http.MethodPut, monBase+"/m", `{"schedule":{"frequency":"hour"},"grace":"PT1M"}`)
	wantStatus(t, r, http.StatusCreated)
	url := decode[monitorOut](t, r).PingURL
	post := func(path, body string) *response {
		return a.do(a.client, http.MethodPost, path, nil, http.Header{"Content-Type": {"text/plain"}}, strings.NewReader(body))
	}

	wantStatus(t, a.get("/ping/hb_unknown"), http.StatusNotFound)
	wantStatus(t, a.get(pingPath(t, url, "")), http.StatusOK)
	wantStatus(t, post(pingPath(t, url, "/start"), ""), http.StatusOK)
	// A fail ping keeps at most 10 kB of its body, cut on a character.
	long := strings.Repeat("é", 6000) // 12,000 bytes
	wantStatus(t, post(pingPath(t, url, "/fail"), long), http.StatusOK)
	m, err := a.store.MonitorByName(context.Background(), "default", "m")
	if err != nil {
		t.Fatal(err)
	}
	pings, err := a.store.MonitorPings(context.Background(), m.ID, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(pings) != 3 || pings[0].Kind != "fail" || pings[1].Kind != "start" || pings[2].Kind != "success" {
		t.Fatalf("pings %+v", pings)
	}
	if len(pings[0].Message) != 10240 || pings[0].Message != strings.Repeat("é", 5120) {
		t.Errorf("fail message of %d bytes", len(pings[0].Message))
	}
	if m.Status != models.MonitorDown {
		t.Errorf("after a fail ping the monitor is %s", m.Status)
	}

	// Ten pings a second per token: the clock stands still, so the 11th
	// of this second (3 spent above, 7 more) is refused with Retry-After.
	for range 7 {
		wantStatus(t, a.get(pingPath(t, url, "")), http.StatusOK)
	}
	r = a.get(pingPath(t, url, ""))
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	// Another token is not limited by this one's pings.
	wantStatus(t, a.get("/ping/hb_other"), http.StatusNotFound)
	// A tenth of a second later one more is allowed.
	a.clock.Advance(100 * time.Millisecond)
	wantStatus(t, a.get(pingPath(t, url, "")), http.StatusOK)
	wantStatus(t, a.get(pingPath(t, url, "")), http.StatusTooManyRequests)
}

func TestMonitorPingWithoutDatabase(t *testing.T) {
	a := newApp(t, false).withToken()
	r := a.api(http.MethodPut, monBase+"/m", `{"schedule":{"frequency":"hour"}}`)
	wantStatus(t, r, http.StatusCreated)
	url := decode[monitorOut](t, r).PingURL
	if err := a.store.Close(); err != nil {
		t.Fatal(err)
	}
	// The one 5xx of a ping: the database cannot record it; the sender
	// is told to try again.
	r = a.get(pingPath(t, url, ""))
	wantStatus(t, r, http.StatusServiceUnavailable)
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

func TestCalendarOfAMonitorCannotBeDeleted(t *testing.T) {
	a := newApp(t, false).withToken()
	wantStatus(t, a.api(http.MethodPut, calBase+"/holidays", `{"entries":[{"yearly":"12-25"}]}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, monBase+"/m", `{"schedule":{"frequency":"day","calendars":{"exclude":["Holidays"]}}}`), http.StatusCreated)
	r := a.api(http.MethodDelete, calBase+"/holidays", "")
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.body, "heartbeat monitors m") {
		t.Errorf("409 without the monitor: %s", r.body)
	}
	wantStatus(t, a.api(http.MethodDelete, monBase+"/m", ""), http.StatusOK)
	wantStatus(t, a.api(http.MethodDelete, calBase+"/holidays", ""), http.StatusOK)
}
