package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"sked/models"
)

const targetBase = "/api/v1/workspaces/default/targets"

// targetRows digests the stored target limits, to assert that a refused
// request stored nothing.
func (f *pgFixture) targetRows() string {
	f.t.Helper()
	rows, err := f.store.TargetStatuses(context.Background(), "default")
	if err != nil {
		f.t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.Host)
		if r.MaxConcurrent != nil {
			b.WriteString(" c" + string(rune('0'+*r.MaxConcurrent%10)))
		}
		if r.MaxPerSecond != nil {
			b.WriteString(" s" + string(rune('0'+*r.MaxPerSecond%10)))
		}
		b.WriteString(r.UpdatedAt.String() + ";")
	}
	return b.String()
}

// TestTargetAPILifecycle: PUT creates (201) and replaces (200) a host's
// limit, the host normalised (case, a default port); GET, the list (with
// in flight and waiting) and DELETE; 404 for a host without a limit; the
// audit log records both changes.
func TestTargetAPILifecycle(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	r := f.api(http.MethodPut, targetBase+"/API.Example.com:443", `{"maxConcurrent": 10, "maxPerSecond": 50}`)
	wantStatus(t, r, http.StatusCreated)
	got := decode[map[string]any](t, r)
	if got["host"] != "api.example.com" || got["maxConcurrent"] != float64(10) || got["maxPerSecond"] != float64(50) {
		t.Fatalf("created: %s", r.body)
	}
	r = f.api(http.MethodPut, targetBase+"/api.example.com", `{"maxPerSecond": 5}`)
	wantStatus(t, r, http.StatusOK)
	got = decode[map[string]any](t, r)
	if _, ok := got["maxConcurrent"]; ok || got["maxPerSecond"] != float64(5) {
		t.Fatalf("replaced: %s", r.body)
	}
	r = f.api(http.MethodPut, targetBase+"/queue.example.net:8443", `{"maxConcurrent": 3, "maxPerSecond": null}`)
	wantStatus(t, r, http.StatusCreated)
	r = f.api(http.MethodGet, targetBase+"/api.example.com", "")
	wantStatus(t, r, http.StatusOK)
	if got := decode[map[string]any](t, r); got["host"] != "api.example.com" || got["maxPerSecond"] != float64(5) {
		t.Fatalf("GET: %s", r.body)
	}
	r = f.api(http.MethodGet, targetBase, "")
	wantStatus(t, r, http.StatusOK)
	list := decode[struct {
		Value []struct {
			Host          string `json:"host"`
			MaxConcurrent *int   `json:"maxConcurrent"`
			InFlight      *int64 `json:"inFlight"`
			Waiting       *int64 `json:"waiting"`
		} `json:"value"`
	}](t, r)
	if len(list.Value) != 2 || list.Value[0].Host != "api.example.com" || list.Value[1].Host != "queue.example.net:8443" ||
		list.Value[1].MaxConcurrent == nil || *list.Value[1].MaxConcurrent != 3 ||
		list.Value[0].InFlight == nil || *list.Value[0].InFlight != 0 || list.Value[0].Waiting == nil {
		t.Fatalf("list: %s", r.body)
	}
	r = f.api(http.MethodDelete, targetBase+"/api.example.com", "")
	wantStatus(t, r, http.StatusOK)
	r = f.api(http.MethodGet, targetBase+"/api.example.com", "")
	wantStatus(t, r, http.StatusNotFound)
	if !strings.Contains(r.body, "api.example.com") {
		t.Errorf("404 does not name the host: %s", r.body)
	}
	wantStatus(t, f.api(http.MethodDelete, targetBase+"/api.example.com", ""), http.StatusNotFound)
	page, err := f.store.AuditEntries(context.Background(), models.AuditFilter{WorkspaceID: "default", Resource: "targets/api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range page.Entries {
		actions = append(actions, e.Action)
	}
	if strings.Join(actions, ",") != "target.delete,target.put,target.put" {
		t.Errorf("audit actions: %v", actions)
	}
}

// TestTargetAPIBadInput: a 400 naming the field for a host that cannot
// be one and for every bad limit; nothing is stored.
func TestTargetAPIBadInput(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	before := f.targetRows()
	for _, tc := range []struct{ host, body, field string }{
		{"bad_host!", `{"maxConcurrent": 1}`, "host"},
		{"api.example.com:0", `{"maxConcurrent": 1}`, "host"},
		{"api.example.com:99999", `{"maxConcurrent": 1}`, "host"},
		{"-api.example.com", `{"maxConcurrent": 1}`, "host"},
		{"api.example.com", `{}`, "maxConcurrent"},
		{"api.example.com", `{"maxConcurrent": 0}`, "maxConcurrent"},
		{"api.example.com", `{"maxConcurrent": -3}`, "maxConcurrent"},
		{"api.example.com", `{"maxConcurrent": 2.5}`, "maxConcurrent"},
		{"api.example.com", `{"maxConcurrent": "10"}`, "maxConcurrent"},
		{"api.example.com", `{"maxPerSecond": 100001}`, "maxPerSecond"},
		{"api.example.com", `{"maxPerSecond": 5, "maxConcurent": 3}`, "maxConcurent"},
		{"api.example.com", `[1]`, ""},
	} {
		r := f.api(http.MethodPut, targetBase+"/"+tc.host, tc.body)
		wantStatus(t, r, http.StatusBadRequest)
		p := decode[problemBody](t, r)
		found := false
		for _, d := range p.Error.Details {
			found = found || d.Target == tc.field
		}
		if !found && tc.field != "" {
			t.Errorf("PUT %s %s: no detail names %q: %s", tc.host, tc.body, tc.field, r.body)
		}
	}
	wantStatus(t, f.api(http.MethodGet, targetBase+"/bad_host!", ""), http.StatusBadRequest)
	if f.targetRows() != before {
		t.Errorf("a refused request stored a limit")
	}
}

// TestTargetAPIRoles: readers and operators read the limits but may not
// change them (403 naming the editor role, nothing stored); editors may.
func TestTargetAPIRoles(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	wantStatus(t, f.api(http.MethodPut, targetBase+"/api.example.com", `{"maxConcurrent": 2}`), http.StatusCreated)
	for _, role := range []models.Role{models.RoleReader, models.RoleOperator, models.RoleEditor} {
		u, err := f.store.CreateUser(context.Background(), models.NewUser{Username: "u-" + string(role), Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.SetMemberRole(context.Background(), "default", u.ID, role); err != nil {
			t.Fatal(err)
		}
		f.app.token = tokenOf(t, f.app, u.ID)
		wantStatus(t, f.api(http.MethodGet, targetBase, ""), http.StatusOK)
		wantStatus(t, f.api(http.MethodGet, targetBase+"/api.example.com", ""), http.StatusOK)
		before := f.targetRows()
		put := f.api(http.MethodPut, targetBase+"/api.example.com", `{"maxConcurrent": 7}`)
		del := f.api(http.MethodDelete, targetBase+"/other.example.com", "")
		if role == models.RoleEditor {
			wantStatus(t, put, http.StatusOK)
			wantStatus(t, del, http.StatusNotFound)
			continue
		}
		for _, r := range []*response{put, del} {
			wantStatus(t, r, http.StatusForbidden)
			if !strings.Contains(r.body, "editor") {
				t.Errorf("%s: the 403 does not name the editor role: %s", role, r.body)
			}
		}
		if f.targetRows() != before {
			t.Errorf("%s changed a limit", role)
		}
	}
}
