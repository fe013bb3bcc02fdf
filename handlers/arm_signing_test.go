package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
)

// Tests of properties.signing of the ARM job collection (SPEC §13.3,
// signed job requests; arm_signing.go).

// armSigningOf is properties.signing of an ARM collection answer.
func armSigningOf(t *testing.T, r *response) map[string]any {
	t.Helper()
	var out struct {
		Properties struct {
			Signing map[string]any `json:"signing"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.Properties.Signing == nil {
		t.Fatalf("no properties.signing in %s (%v)", r.body, err)
	}
	return out.Properties.Signing
}

// signingAudits counts the audit log's entries of action op.
func (f *pgFixture) signingAudits(op string) int {
	f.t.Helper()
	var n int
	if err := openDB(f.t, f.app).QueryRow(`SELECT count(*) FROM audit_entries WHERE action = $1`, op).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// TestARMCollectionSigning enables signing by PUT (the secret is shown
// once and signs a request as the engine sends it), keeps it through a
// PUT that says nothing of signing and through enabled true again,
// removes it by PATCH, and creates a signing collection by PUT.
func TestARMCollectionSigning(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	path := rgPath("rg") + "/jc"

	r := f.arm(http.MethodGet, path, "")
	wantStatus(t, r, http.StatusOK)
	if g := armSigningOf(t, r); len(g) != 1 || g["enabled"] != false {
		t.Errorf("GET of an unsigned collection: signing %v", g)
	}

	r = f.arm(http.MethodPut, path, `{"location":"westus","properties":{"sku":{"name":"Standard"},"signing":{"enabled":true}}}`)
	wantStatus(t, r, http.StatusOK)
	g := armSigningOf(t, r)
	secret, _ := g["secret"].(string)
	stored := f.signingOf()
	if g["enabled"] != true || !strings.HasPrefix(secret, "whsec_") || stored == nil || stored.Current != secret || g["createdAt"] == nil {
		t.Fatalf("PUT enabling: signing %v, stored %+v", g, stored)
	}
	if n := f.signingAudits("collection.signing.put"); n != 1 {
		t.Errorf("%d audit entries of the generated secret, want 1", n)
	}
	if strings.Contains(f.logs.String(), secret) {
		t.Error("the secret was logged")
	}

	// Shown once: GET and the list say enabled, without the secret.
	r = f.arm(http.MethodGet, path, "")
	if g := armSigningOf(t, r); g["enabled"] != true || g["secret"] != nil || g["createdAt"] == nil || strings.Contains(r.body, "whsec_") {
		t.Errorf("GET after enabling: %s", r.body)
	}
	r = f.arm(http.MethodGet, rgPath("rg"), "")
	wantStatus(t, r, http.StatusOK)
	list := decode[struct {
		Value []struct {
			Properties struct {
				Signing map[string]any `json:"signing"`
			} `json:"properties"`
		} `json:"value"`
	}](t, r)
	if len(list.Value) != 1 || list.Value[0].Properties.Signing["enabled"] != true || strings.Contains(r.body, "whsec_") {
		t.Errorf("list after enabling: %s", r.body)
	}

	// A request as the engine sends it for a job of the collection (the
	// store's secrets of the job, the dispatcher's signature) verifies
	// with the secret shown.
	got := make(chan signedTarget, 1)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- signedTarget{r.Header.Clone(), b}
	}))
	defer target.Close()
	r = f.arm(http.MethodPut, path+"/jobs/nightly", fmt.Sprintf(`{"properties":{"action":{"type":"Http","request":{"uri":%q,"method":"POST","body":"{\"report\":\"nightly\"}"}},"recurrence":{"frequency":"day","interval":1}}}`, target.URL))
	wantStatus(t, r, http.StatusCreated)
	req := f.engineRequest("nightly", got)
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(req.body, req.header); err != nil {
		t.Errorf("the job's request does not verify with the secret shown: %v (%v)", err, req.header)
	}

	// Enabled true again, or a PUT that says nothing of signing (an Azure
	// client's): the secret stays, not shown.
	for _, body := range []string{
		`{"location":"westus","properties":{"sku":{"name":"Standard"},"signing":{"enabled":true,"createdAt":"2020-01-01T00:00:00Z"}}}`,
		`{"location":"westus","properties":{"sku":{"name":"P10Premium"}}}`,
		`{"location":"westus","properties":{"sku":{"name":"P10Premium"},"signing":null}}`,
	} {
		r = f.arm(http.MethodPut, path, body)
		wantStatus(t, r, http.StatusOK)
		if g := armSigningOf(t, r); g["enabled"] != true || strings.Contains(r.body, "whsec_") {
			t.Errorf("PUT %s: %s", body, r.body)
		}
		if now := f.signingOf(); now == nil || now.Current != secret || now.Previous != "" {
			t.Errorf("PUT %s changed the secret: %+v", body, now)
		}
	}
	r = f.arm(http.MethodPatch, path, `{"tags":{"team":"ops"}}`)
	wantStatus(t, r, http.StatusOK)
	if now := f.signingOf(); now == nil || now.Current != secret {
		t.Error("a PATCH without signing changed the secret")
	}

	// During a rotation's overlap the collection says until when the
	// previous secret signs.
	wantStatus(t, f.api(http.MethodPost, signingAPIPath, `{"overlap":"PT1H"}`), http.StatusCreated)
	r = f.arm(http.MethodGet, path, "")
	if g := armSigningOf(t, r); g["enabled"] != true || g["previousValidUntil"] == nil || strings.Contains(r.body, "whsec_") {
		t.Errorf("GET during a rotation's overlap: %s", r.body)
	}

	// PATCH enabled false removes it; again is no change.
	for range 2 {
		r = f.arm(http.MethodPatch, path, `{"properties":{"signing":{"enabled":false}}}`)
		wantStatus(t, r, http.StatusOK)
		if g := armSigningOf(t, r); len(g) != 1 || g["enabled"] != false || f.signingOf() != nil {
			t.Errorf("PATCH disabling: %s, stored %+v", r.body, f.signingOf())
		}
	}
	if n := f.signingAudits("collection.signing.delete"); n != 1 {
		t.Errorf("%d audit entries of the removal, want 1", n)
	}
	// PATCH enabled true generates a new one.
	r = f.arm(http.MethodPatch, path, `{"Properties":{"Signing":{"Enabled":true}}}`)
	wantStatus(t, r, http.StatusOK)
	if again, _ := armSigningOf(t, r)["secret"].(string); again == "" || again == secret || f.signingOf().Current != again {
		t.Errorf("PATCH enabling again: %s", r.body)
	}

	// A PUT that creates a collection may enable signing too.
	r = f.arm(http.MethodPut, rgPath("rg")+"/fresh", `{"location":"westus","properties":{"signing":{"enabled":true}}}`)
	wantStatus(t, r, http.StatusCreated)
	fresh, err := f.store.CollectionByRef(context.Background(), models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.store.SigningOf(context.Background(), fresh.ID)
	if s, _ := armSigningOf(t, r)["secret"].(string); err != nil || s == "" || st.Current != s {
		t.Errorf("PUT creating a signing collection: %s, stored %+v %v", r.body, st, err)
	}
}

// signedTarget is what the target of TestARMCollectionSigning received.
type signedTarget struct {
	header http.Header
	body   []byte
}

// engineRequest sends one attempt of job name as the engine does: with
// the signing secrets the store gives for the job, through the action
// dispatcher, and returns what the target received.
func (f *pgFixture) engineRequest(name string, got <-chan signedTarget) signedTarget {
	f.t.Helper()
	ctx := context.Background()
	j, err := f.store.JobByName(ctx, f.coll.ID, name)
	if err != nil {
		f.t.Fatal(err)
	}
	spec, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		f.t.Fatal(err)
	}
	secrets, err := f.store.SigningSecretsOfJob(ctx, j.ID, time.Now())
	if err != nil || len(secrets) != 1 {
		f.t.Fatalf("signing secrets of the job: %v %v", secrets, err)
	}
	d, err := action.NewDispatcher(action.Config{AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	if err != nil {
		f.t.Fatal(err)
	}
	defer d.CloseIdleConnections()
	res := d.Execute(ctx, &action.Attempt{JobID: j.ID, AttemptID: 1, ExpectedTime: time.Now().UTC(), Spec: spec.Action,
		Timeout: 10 * time.Second, SigningSecrets: secrets})
	if !res.Succeeded {
		f.t.Fatalf("the attempt failed: %+v", res)
	}
	return <-got
}

// TestARMCollectionSigningBadInput: a signing that is not an object,
// enabled missing or not a boolean, a secret given, an unknown field: 400
// naming the field, and nothing changed (neither the collection nor its
// secret).
func TestARMCollectionSigningBadInput(t *testing.T) {
	f := newPGFixture(t)
	f.app.token = tokenOf(t, f.app, 1)
	path := rgPath("rg") + "/jc"
	wantStatus(t, f.arm(http.MethodPatch, path, `{"properties":{"signing":{"enabled":true}}}`), http.StatusOK)
	secret := f.signingOf().Current
	before, audits := f.fingerprint(), f.signingAudits("collection.put")
	for _, tc := range []struct{ method, props, target string }{
		{http.MethodPut, `"signing":true`, "properties.signing"},
		{http.MethodPut, `"signing":[{"enabled":false}]`, "properties.signing"},
		{http.MethodPut, `"signing":{}`, "properties.signing.enabled"},
		{http.MethodPut, `"signing":{"enabled":"false"}`, "properties.signing.enabled"},
		{http.MethodPut, `"signing":{"enabled":0}`, "properties.signing.enabled"},
		{http.MethodPut, `"signing":{"enabled":false,"rotate":true}`, "properties.signing.rotate"},
		{http.MethodPut, `"signing":{"enabled":true,"secret":"whsec_bWluZQ=="}`, "properties.signing.secret"},
		{http.MethodPatch, `"signing":{"enabled":null}`, "properties.signing.enabled"},
		{http.MethodPatch, `"signing":"off"`, "properties.signing"},
	} {
		body := `{"location":"eastus","properties":{"sku":{"name":"Free"},` + tc.props + `}}`
		r := f.arm(tc.method, path, body)
		wantStatus(t, r, http.StatusBadRequest)
		if p := decode[problemBody](t, r); len(p.Error.Details) != 1 || p.Error.Details[0].Target != tc.target {
			t.Errorf("%s %s: %s, want one problem at %s", tc.method, tc.props, r.body, tc.target)
		}
	}
	// With another field's problem, both are named.
	r := f.arm(http.MethodPut, path, `{"properties":{"sku":{"name":"Gold"},"signing":{"enabled":"yes"}}}`)
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "properties.sku.name") || !strings.Contains(r.body, "properties.signing.enabled") {
		t.Errorf("both problems: %s", r.body)
	}
	if f.fingerprint() != before || f.signingAudits("collection.put") != audits {
		t.Error("a refused write changed the collection or was audited")
	}
	if g := f.signingOf(); g == nil || g.Current != secret {
		t.Errorf("a refused write changed the secret: %+v", g)
	}
}

// TestARMCollectionSigningRoles: readers and operators may neither enable
// nor remove signing through the ARM collection (editor, as for the
// signing-secret routes): 403, nothing changed; they see whether it signs.
func TestARMCollectionSigningRoles(t *testing.T) {
	f := newPGFixture(t)
	path := rgPath("rg") + "/jc"
	other := models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "signed"}
	f.app.token = tokenOf(t, f.app, 1)
	r := f.arm(http.MethodPut, rgPath("rg")+"/signed", `{"properties":{"signing":{"enabled":true}}}`)
	wantStatus(t, r, http.StatusCreated)
	signed, err := f.store.CollectionByRef(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := armSigningOf(t, r)["secret"].(string)
	for _, role := range []models.Role{models.RoleReader, models.RoleOperator} {
		u, err := f.store.CreateUser(context.Background(), models.NewUser{Username: "u-" + string(role), Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.store.SetMemberRole(context.Background(), "default", u.ID, role); err != nil {
			t.Fatal(err)
		}
		f.app.token = tokenOf(t, f.app, u.ID)
		before := f.fingerprint()
		for _, tc := range []struct{ method, path, body string }{
			{http.MethodPatch, path, `{"properties":{"signing":{"enabled":true}}}`},
			{http.MethodPut, path, `{"properties":{"signing":{"enabled":true}}}`},
			{http.MethodPatch, rgPath("rg") + "/signed", `{"properties":{"signing":{"enabled":false}}}`},
		} {
			r := f.arm(tc.method, tc.path, tc.body)
			wantStatus(t, r, http.StatusForbidden)
			if !strings.Contains(r.body, "editor") {
				t.Errorf("%s %s %s: the 403 does not name the editor role: %s", role, tc.method, tc.path, r.body)
			}
		}
		if f.signingOf() != nil || f.fingerprint() != before {
			t.Errorf("%s changed the collection or enabled signing", role)
		}
		if g, err := f.store.SigningOf(context.Background(), signed.ID); err != nil || g.Current != secret {
			t.Errorf("%s removed the secret: %+v %v", role, g, err)
		}
		r := f.arm(http.MethodGet, rgPath("rg")+"/signed", "")
		wantStatus(t, r, http.StatusOK)
		if g := armSigningOf(t, r); g["enabled"] != true || strings.Contains(r.body, "whsec_") {
			t.Errorf("%s GET: %s", role, r.body)
		}
	}
}

// arm sends an ARM request (with the api-version) with the app's token.
func (f *pgFixture) arm(method, path, body string) *response {
	f.t.Helper()
	return f.api(method, path+apiVersion, body)
}
