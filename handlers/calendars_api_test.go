package handlers_test

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"sked/models"
)

const calBase = "/api/v1/workspaces/default/calendars"

const holidaysJSON = `{"timeZone":"Europe/Berlin","description":"Public holidays","entries":[
	{"date":"2026-12-24","label":"Christmas Eve"},
	{"from":"2026-12-27","to":"2026-12-31","label":"Between the years"},
	{"yearly":"12-25","label":"Christmas Day","except":["2030-12-25"]}]}`

type calendarOut struct {
	Name      string           `json:"name"`
	Version   int64            `json:"version"`
	UpdatedAt string           `json:"updatedAt"`
	TimeZone  string           `json:"timeZone"`
	Entries   []map[string]any `json:"entries"`
}

// calendarRows digests the calendars table, to assert that a refused
// request changed nothing.
func (a *app) calendarRows() string {
	a.t.Helper()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		a.t.Fatal(err)
	}
	defer db.Close()
	var out string
	if err := db.QueryRow(`SELECT coalesce(md5(string_agg(c::text, '|' ORDER BY c.id)), '') FROM calendars c`).Scan(&out); err != nil {
		a.t.Fatal(err)
	}
	return out
}

func TestCalendarAPILifecycle(t *testing.T) {
	a := newApp(t, false).withToken()
	r := a.api(http.MethodPut, calBase+"/Holidays-DE", holidaysJSON)
	wantStatus(t, r, http.StatusCreated)
	got := decode[calendarOut](t, r)
	if got.Name != "Holidays-DE" || got.Version != 1 || got.TimeZone != "Europe/Berlin" || len(got.Entries) != 3 || got.UpdatedAt == "" {
		t.Errorf("created: %+v", got)
	}
	// GET answers the same document; it can be PUT back unchanged.
	r = a.api(http.MethodGet, calBase+"/holidays-de", "")
	wantStatus(t, r, http.StatusOK)
	doc := r.body
	if !strings.Contains(doc, `"yearly":"12-25","label":"Christmas Day","except":["2030-12-25"]`) {
		t.Errorf("GET: %s", doc)
	}
	r = a.api(http.MethodPut, calBase+"/holidays-de", doc)
	wantStatus(t, r, http.StatusOK)
	if v := decode[calendarOut](t, r); v.Version != 1 || v.Name != "Holidays-DE" {
		t.Errorf("unchanged replace: version %d name %q", v.Version, v.Name)
	}
	r = a.api(http.MethodPut, calBase+"/holidays-de", `{"entries":[{"date":"2027-01-01","label":"New Year"}]}`)
	wantStatus(t, r, http.StatusOK)
	if v := decode[calendarOut](t, r); v.Version != 2 || len(v.Entries) != 1 || v.TimeZone != "" {
		t.Errorf("replaced: %+v", v)
	}
	wantStatus(t, a.api(http.MethodPut, calBase+"/a-first", `{"entries":[]}`), http.StatusCreated)
	r = a.api(http.MethodGet, calBase, "")
	wantStatus(t, r, http.StatusOK)
	list := decode[struct{ Value []calendarOut }](t, r)
	if len(list.Value) != 2 || list.Value[0].Name != "a-first" || list.Value[1].Name != "Holidays-DE" {
		t.Errorf("list: %+v", list)
	}
	r = a.api(http.MethodDelete, calBase+"/a-first", "")
	wantStatus(t, r, http.StatusOK)
	r = a.api(http.MethodDelete, calBase+"/a-first", "")
	wantStatus(t, r, http.StatusNotFound)
	if e := decode[apiErr](t, r); e.Error.Code != "ResourceNotFound" || !strings.Contains(e.Error.Message, "a-first") {
		t.Errorf("404: %+v", e)
	}
	wantStatus(t, a.api(http.MethodGet, calBase+"/nope", ""), http.StatusNotFound)
}

func TestCalendarAPIRefusesBadCalendarsNamingFields(t *testing.T) {
	a := newApp(t, false).withToken()
	wantStatus(t, a.api(http.MethodPut, calBase+"/keep", holidaysJSON), http.StatusCreated)
	before := a.calendarRows()
	for _, tc := range []struct{ name, path, body, target string }{
		{"range ends before it starts", "/keep", `{"entries":[{"date":"2026-01-01"},{"from":"2026-05-02","to":"2026-05-01"}]}`, "entries[1].to"},
		{"unknown zone", "/keep", `{"timeZone":"Mars/Olympus","entries":[]}`, "timeZone"},
		{"bad yearly", "/fresh", `{"entries":[{"yearly":"13-01"}]}`, "entries[0].yearly"},
		{"rule with hours", "/fresh", `{"entries":[{"rule":{"frequency":"day","schedule":{"hours":[9]}}}]}`, "entries[0].rule.schedule"},
		{"not JSON", "/fresh", `nope`, "calendar"},
		{"bad name", "/bad%20name", `{"entries":[]}`, "name"},
	} {
		r := a.api(http.MethodPut, calBase+tc.path, tc.body)
		if r.StatusCode != http.StatusBadRequest || !strings.Contains(r.body, `"target":"`+tc.target+`"`) {
			t.Errorf("%s: status %d, want 400 naming %s: %s", tc.name, r.StatusCode, tc.target, r.body)
		}
	}
	if a.calendarRows() != before {
		t.Error("a refused PUT changed the calendars")
	}
}

func TestCalendarAPIOtherWorkspaceIsForbidden(t *testing.T) {
	a := newApp(t, false).withToken()
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO workspaces (id) VALUES ('other')`); err != nil {
		t.Fatal(err)
	}
	const other = "/api/v1/workspaces/other/calendars"
	for _, r := range []*response{
		a.api(http.MethodPut, other+"/x", `{"entries":[]}`),
		a.api(http.MethodGet, other+"/x", ""),
		a.api(http.MethodGet, other, ""),
		a.api(http.MethodDelete, other+"/x", ""),
		a.api(http.MethodPost, other+"/x/import", "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"),
	} {
		if r.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s: %d, want 403", r.Request.Method, r.Request.URL.Path, r.StatusCode)
		}
	}
	if a.calendarRows() != "" {
		t.Error("a forbidden request stored a calendar")
	}
	a.token = ""
	wantStatus(t, a.api(http.MethodGet, calBase, ""), http.StatusUnauthorized)
}

func TestCalendarAPIDeleteInUseIsConflict(t *testing.T) {
	a := newApp(t, false).withToken()
	ctx := context.Background()
	wantStatus(t, a.api(http.MethodPut, calBase+"/holidays", holidaysJSON), http.StatusCreated)
	coll := &models.JobCollection{Name: "jc"}
	if err := a.store.CreateCollection(ctx, models.DefaultWorkspaceID, "rg", coll); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"job2", "job1"} {
		def := `{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},` +
			`"recurrence":{"frequency":"day","calendars":{"exclude":["HOLIDAYS"],"onExcluded":"nextDay"}}}`
		if _, _, err := a.store.SaveJob(ctx, models.JobWrite{CollectionID: coll.ID, Name: name, Definition: []byte(def)}); err != nil {
			t.Fatal(err)
		}
	}
	r := a.api(http.MethodDelete, calBase+"/holidays", "")
	wantStatus(t, r, http.StatusConflict)
	if e := decode[apiErr](t, r); e.Error.Code != "Conflict" || !strings.Contains(e.Error.Message, "used by 2 jobs: rg/jc/job1, rg/jc/job2") {
		t.Errorf("409: %+v", e)
	}
	wantStatus(t, a.api(http.MethodGet, calBase+"/holidays", ""), http.StatusOK)
}
