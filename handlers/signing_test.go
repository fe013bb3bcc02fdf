package handlers_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"sked/models"
)

// Tests of a collection's signing secret: the collection page's panel
// (signing_pages.go) and the API (signing_api.go).

const signingAPIPath = "/api/v1/workspaces/default/collections/rg/jc/signing-secret"

// signingOf is the stored signing secret of the fixture's collection, nil
// when it does not sign.
func (f *pgFixture) signingOf() *models.Signing {
	f.t.Helper()
	g, err := f.store.SigningOf(context.Background(), f.coll.ID)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return g
}

func TestSigningPanel(t *testing.T) {
	f := newPGFixture(t)
	r := f.get(f.base)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#collection-signing").Text(), "Not signed") || r.doc.Find("#signing-generate").Length() != 1 {
		t.Fatalf("panel of an unsigned collection: %s", r.doc.Find("#collection-signing").Text())
	}
	r = f.hxPost(f.base+"/signing-secret", nil)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "collection-signing")
	secret := strings.TrimSpace(r.doc.Find("#signing-secret-value").Text())
	if g := f.signingOf(); !strings.HasPrefix(secret, "whsec_") || g == nil || g.Current != secret {
		t.Fatalf("secret shown %q, stored %+v", secret, g)
	}
	if r.doc.Find(`#signing-secret-value-copy[data-copy-target="signing-secret-value"]`).Length() != 1 {
		t.Error("no copy button")
	}
	// Shown once: the page then says signed, without the secret.
	r = f.get(f.base)
	if strings.Contains(r.body, secret) || !strings.Contains(r.doc.Find("#collection-signing").Text(), "Signed") ||
		r.doc.Find("#signing-rotate").Length() != 1 || r.doc.Find("#signing-remove").Length() != 1 {
		t.Errorf("panel after: %s", r.doc.Find("#collection-signing").Text())
	}
	// Rotate with a week's overlap: both sign, the page says until when.
	r = f.hxPost(f.base+"/signing-secret", url.Values{"overlap": {"7d"}})
	wantStatus(t, r, http.StatusOK)
	rotated := strings.TrimSpace(r.doc.Find("#signing-secret-value").Text())
	if g := f.signingOf(); g.Current != rotated || g.Previous != secret || g.PreviousUntil == nil {
		t.Errorf("after rotation %+v", g)
	}
	if !strings.Contains(r.doc.Find("#signing-message").Text(), "rotated") {
		t.Errorf("message %q", r.doc.Find("#signing-message").Text())
	}
	if !strings.Contains(f.get(f.base).doc.Find("#signing-overlap").Text(), "previous secret also signs until") {
		t.Error("the overlap is not said")
	}
	r = f.hxPost(f.base+"/signing-secret", url.Values{"overlap": {"forever"}})
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "overlap") {
		t.Errorf("400 does not name the overlap: %s", r.body)
	}
	if g := f.signingOf(); g.Current != rotated {
		t.Error("a refused rotation changed the secret")
	}
	// Without htmx: the collection page with the new secret.
	r = f.formPost(f.base+"/signing-secret", url.Values{"overlap": {"0"}})
	wantStatus(t, r, http.StatusOK)
	if v := r.doc.Find("#signing-secret-value").Text(); !strings.HasPrefix(v, "whsec_") || r.doc.Find("#collection-jobs").Length() != 1 {
		t.Error("the page answer lacks the secret or the jobs")
	}
	if g := f.signingOf(); g.Previous != "" {
		t.Errorf("overlap 0 kept the previous secret: %+v", g)
	}
	r = f.hxPost(f.base+"/signing-secret/remove", nil)
	wantStatus(t, r, http.StatusOK)
	if f.signingOf() != nil || r.doc.Find("#signing-generate").Length() != 1 {
		t.Error("remove did not remove")
	}
}

func TestSigningPanelForOperators(t *testing.T) {
	f := newPGFixture(t)
	f.hxPost(f.base+"/signing-secret", nil)
	before := f.signingOf()
	f.asMember("otto", models.RoleOperator)
	r := f.get(f.base)
	if !strings.Contains(r.doc.Find("#collection-signing").Text(), "Signed") || r.doc.Find("#collection-signing form").Length() != 0 {
		t.Error("an operator sees the controls, or not the state")
	}
	for _, p := range []string{f.base + "/signing-secret", f.base + "/signing-secret/remove"} {
		r := f.formPost(p, nil)
		wantStatus(t, r, http.StatusForbidden)
		if !strings.Contains(r.body, "editor role") {
			t.Errorf("POST %s: the 403 does not name the editor role", p)
		}
	}
	if g := f.signingOf(); g == nil || g.Current != before.Current {
		t.Error("an operator changed the secret")
	}
}

func TestSigningAPI(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	r := f.api(http.MethodGet, signingAPIPath, "")
	wantStatus(t, r, http.StatusOK)
	if strings.TrimSpace(r.body) != `{"enabled":false}` {
		t.Errorf("GET unsigned: %s", r.body)
	}
	r = f.api(http.MethodPost, signingAPIPath, "")
	wantStatus(t, r, http.StatusCreated)
	first := decode[map[string]any](t, r)
	if s, _ := first["secret"].(string); !strings.HasPrefix(s, "whsec_") || first["rotated"] != false {
		t.Fatalf("POST: %s", r.body)
	}
	r = f.api(http.MethodGet, signingAPIPath, "")
	if strings.Contains(r.body, "whsec_") || !strings.Contains(r.body, `"enabled":true`) {
		t.Errorf("GET signed: %s", r.body)
	}
	before := f.signingOf()
	for body, field := range map[string]string{`{"overlap":"soon"}`: "overlap", `{"overlap":"P60D"}`: "overlap", `[1]`: "body"} {
		r = f.api(http.MethodPost, signingAPIPath, body)
		wantStatus(t, r, http.StatusBadRequest)
		if p := decode[problemBody](t, r); len(p.Error.Details) == 0 || p.Error.Details[0].Target != field {
			t.Errorf("%s: %s, want a problem at %s", body, r.body, field)
		}
	}
	if g := f.signingOf(); g.Current != before.Current || g.Previous != "" {
		t.Error("a refused rotation changed the secret")
	}
	r = f.api(http.MethodPost, signingAPIPath, `{"overlap":"PT1H"}`)
	wantStatus(t, r, http.StatusCreated)
	second := decode[map[string]any](t, r)
	if second["rotated"] != true || second["previousValidUntil"] == nil || second["secret"] == first["secret"] {
		t.Errorf("rotation: %s", r.body)
	}
	if r = f.api(http.MethodGet, signingAPIPath, ""); !strings.Contains(r.body, "previousValidUntil") {
		t.Errorf("GET during the overlap: %s", r.body)
	}
	wantStatus(t, f.api(http.MethodDelete, signingAPIPath, ""), http.StatusOK)
	wantStatus(t, f.api(http.MethodDelete, signingAPIPath, ""), http.StatusNotFound)
	wantStatus(t, f.api(http.MethodPost, "/api/v1/workspaces/default/collections/rg/missing/signing-secret", ""), http.StatusNotFound)
}
