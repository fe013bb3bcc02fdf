package web

import (
	"net/url"
	"testing"
	"time"

	"sked/models"
)

func TestParseAuditParams(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		q        url.Values
		loc      *time.Location
		from, to time.Time
		action   string
		bad      string
	}{
		{name: "nothing", q: url.Values{}},
		{name: "days in the viewer's zone, until included", q: url.Values{"since": {"2026-03-01"}, "until": {"2026-03-02"}}, loc: berlin,
			from: time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC), to: time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)},
		{name: "RFC 3339 instants", q: url.Values{"since": {"2026-03-01T10:00:00Z"}, "until": {"2026-03-01T12:00:00+01:00"}},
			from: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), to: time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)},
		{name: "an empty range", q: url.Values{"since": {"2026-03-01T10:00:00Z"}, "until": {"2026-03-01T11:00:00+01:00"}}, bad: "until"},
		{name: "an action", q: url.Values{"action": {"job.put"}}, action: "job.put"},
		{name: "a family", q: url.Values{"action": {"member"}}, action: "member"},
		{name: "an unknown action", q: url.Values{"action": {"job.steal"}}, bad: "action"},
		{name: "a bad since", q: url.Values{"since": {"yesterday"}}, bad: "since"},
		{name: "until before since", q: url.Values{"since": {"2026-03-02"}, "until": {"2026-03-01"}}, bad: "until"},
		{name: "a bad cursor", q: url.Values{"before": {"-3"}}, bad: "before"},
		{name: "too many", q: url.Values{"$top": {"501"}}, bad: "$top"},
	} {
		p, err := ParseAuditParams(c.q, c.loc)
		if c.bad != "" {
			if pe, ok := err.(*ParamError); !ok || pe.Param != c.bad {
				t.Errorf("%s: error %v, want one naming %s", c.name, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !p.From.Equal(c.from) || !p.To.Equal(c.to) || p.Action != c.action {
			t.Errorf("%s: from %v to %v action %q, want %v %v %q", c.name, p.From, p.To, p.Action, c.from, c.to, c.action)
		}
	}
}

func TestNewAuditResults(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	entries := []models.AuditEntry{
		{ID: 9, At: now.Add(-3 * time.Hour), ActorKind: models.ActorToken, ActorName: "ada", TokenName: "ci", Via: "api", Addr: "192.0.2.1",
			Action: "job.put", Resource: "resourceGroups/rg/jobCollections/c/jobs/j", Detail: "created",
			Diff: []models.AuditChange{{Path: "recurrence.interval", New: "2"}, {Path: "action.request.authentication.password", Old: models.AuditSecretMask, New: models.AuditSecretMask}}},
		{ID: 8, At: now.Add(-time.Hour), ActorKind: models.ActorEngine, ActorName: models.EngineActorName, Via: "engine", Action: "job.complete",
			Resource: "resourceGroups/rg/jobCollections/c/jobs/j"},
		{ID: 7, At: now.Add(-time.Minute), ActorKind: models.ActorCLI, ActorName: "root", Via: "cli", Action: "workspace.rename"},
	}
	p := AuditParams{Actor: "ada"}
	r := NewAuditResults("team", p, models.AuditPage{Entries: entries, Next: 7}, now, time.UTC)
	if len(r.Rows) != 3 || r.Empty != "" {
		t.Fatalf("rows %+v", r)
	}
	row := r.Rows[0]
	if row.ID != "audit-9" || row.Actor != "ada with token ci" || row.Via != "API" || row.When.Relative != "3 h ago" ||
		row.ResourceURL != "/w/team/audit?resource=resourceGroups%2Frg%2FjobCollections%2Fc%2Fjobs%2Fj" {
		t.Errorf("row %+v", row)
	}
	if len(row.Changes) != 2 || row.Changes[0] != (AuditChangeRow{Path: "recurrence.interval", Old: "—", New: "2"}) ||
		row.Changes[1].Old != models.AuditSecretMask {
		t.Errorf("changes %+v", row.Changes)
	}
	if r.Rows[1].Actor != "the engine" || r.Rows[2].Actor != "root (command line)" || r.Rows[2].Resource != "workspace" || r.Rows[2].ResourceURL != "" {
		t.Errorf("engine and CLI rows %+v %+v", r.Rows[1], r.Rows[2])
	}
	if r.NextURL != "/w/team/audit?actor=ada&before=7" || r.FirstURL != "" {
		t.Errorf("paging %q %q", r.NextURL, r.FirstURL)
	}
	p.Before = 7
	r = NewAuditResults("team", p, models.AuditPage{}, now, time.UTC)
	if r.Empty != "No change matches this filter." || r.FirstURL != "/w/team/audit?actor=ada" || r.NextURL != "" {
		t.Errorf("an empty filtered page %+v", r)
	}
	if r := NewAuditResults("team", AuditParams{}, models.AuditPage{}, now, time.UTC); r.Empty != "Nothing was changed in this workspace yet." {
		t.Errorf("an empty log %+v", r)
	}
}

func TestNewLastChanged(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	res := "resourceGroups/rg/jobCollections/c/jobs/j"
	for _, c := range []struct {
		e    *models.AuditEntry
		want LastChangedView
	}{
		{nil, LastChangedView{}},
		{&models.AuditEntry{At: now.Add(-3 * time.Hour), ActorKind: models.ActorUser, ActorName: "ada"},
			LastChangedView{Text: "Last changed by ada, 3 h ago", When: "2026-03-01T09:00:00Z", URL: AuditOfPath("w", res)}},
		{&models.AuditEntry{At: now.Add(-72 * time.Hour), ActorKind: models.ActorEngine, ActorName: models.EngineActorName},
			LastChangedView{Text: "Last changed by the engine, 3 days ago", When: "2026-02-26T12:00:00Z", URL: AuditOfPath("w", res)}},
	} {
		if got := NewLastChanged("w", res, c.e, now); got != c.want {
			t.Errorf("NewLastChanged(%+v) = %+v, want %+v", c.e, got, c.want)
		}
	}
}
