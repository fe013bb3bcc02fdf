package handlers_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sked/handlers"
	"sked/models"
)

// Rules of the role matrix that are not a role.
const (
	rulePublic = "public" // no user or token: probes, assets, sign-in, the feed
	ruleSelf   = "self"   // any signed-in user or token, about the user's own things
	ruleAdmin  = "admin"  // instance administrators only
	ruleForm   = "form"   // the workspace is in the form or body: the write service decides
)

// roleMatrix is what each route of the route table needs (SPEC §13.4),
// written out by hand: TestRoleMatrix fails for a route without a rule,
// so a new route is given one on purpose.
var roleMatrix = map[string]string{
	"GET /healthz": rulePublic, "GET /readyz": rulePublic, "GET /metrics": rulePublic, "GET /static/*": rulePublic,
	"GET /setup": rulePublic, "POST /setup": rulePublic, "GET /signin": rulePublic, "POST /signin": rulePublic,
	"POST /signout": rulePublic, "GET /c/:ws/:rg/:jc/jobs/:job/calendar.ics": rulePublic,
	"GET /signin/oidc": rulePublic, "GET /signin/oidc/callback": rulePublic, "GET /api/openapi.json": rulePublic,
	"GET /ping/:token": rulePublic, "POST /ping/:token": rulePublic, "GET /ping/:token/start": rulePublic,
	"POST /ping/:token/start": rulePublic, "GET /ping/:token/fail": rulePublic, "POST /ping/:token/fail": rulePublic,

	"POST /api/v1/preview": ruleSelf, "GET /": ruleSelf, "GET /jobs": ruleSelf, "GET /calendars": ruleSelf,
	"GET /collections/new": ruleSelf, "POST /collections/new": ruleForm,
	"GET /import": ruleSelf, "POST /import": ruleForm, "GET /import/runs/:id": ruleSelf, "GET /export": ruleForm,
	"GET /account": ruleSelf, "POST /account/password": ruleSelf, "POST /account/sessions/:id/end": ruleSelf,
	"POST /account/sessions/end-others": ruleSelf, "POST /account/sessions/end-all": ruleSelf,
	"POST /account/time-zone": ruleSelf, "GET /tokens": ruleSelf, "POST /tokens": ruleSelf, "POST /tokens/:id/revoke": ruleSelf,
	"GET /users": ruleAdmin, "POST /users": ruleAdmin, "POST /users/:id/disable": ruleAdmin,
	"POST /users/:id/enable": ruleAdmin, "POST /users/:id/password": ruleAdmin,
	"POST /api/v1/import": ruleForm, "GET /api/v1/export": ruleForm,
	"POST /jobs/bulk": ruleForm, "POST /api/v1/jobs/bulk": ruleForm,
	"GET /workspaces": ruleSelf, "POST /workspaces": ruleForm, "GET /api/v1/workspaces": ruleSelf,

	"GET /workspaces/:ws/members":             models.RoleReader,
	"POST /workspaces/:ws/members":            models.RoleOwner,
	"POST /workspaces/:ws/members/:id/remove": models.RoleOwner,
	"POST /workspaces/:ws/members/:id/role":   models.RoleOwner,
	"POST /workspaces/:ws/rename":             models.RoleOwner,
	"POST /workspaces/:ws/delete":             models.RoleOwner,

	"GET /api/v1/workspaces/:ws":                      models.RoleReader,
	"PUT /api/v1/workspaces/:ws":                      models.RoleOwner,
	"PATCH /api/v1/workspaces/:ws":                    models.RoleOwner,
	"DELETE /api/v1/workspaces/:ws":                   models.RoleOwner,
	"GET /api/v1/workspaces/:ws/members":              models.RoleReader,
	"PUT /api/v1/workspaces/:ws/members/:username":    models.RoleOwner,
	"DELETE /api/v1/workspaces/:ws/members/:username": models.RoleOwner,
}

func init() {
	const (
		armRG    = "/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Scheduler/jobCollections"
		armJC    = armRG + "/:jc"
		armJob   = armJC + "/jobs/:job"
		coll     = "/c/:ws/:rg/:jc"
		job      = coll + "/jobs/:job"
		calAPI   = "/api/v1/workspaces/:ws/calendars"
		cal      = "/w/:ws/calendars"
		chanAPI  = "/api/v1/workspaces/:ws/channels"
		alertAPI = "/api/v1/workspaces/:ws/alerts"
		monAPI   = "/api/v1/workspaces/:ws/monitors"
		r, o, e  = models.RoleReader, models.RoleOperator, models.RoleEditor
		w        = models.RoleOwner
	)
	const signingAPI = "/api/v1/workspaces/:ws/collections/:rg/:jc/signing-secret"
	const backfillAPI = "/api/v1/workspaces/:ws/collections/:rg/:jc/jobs/:job"
	for k, v := range map[string]string{
		"GET /subscriptions/:sub/providers/Microsoft.Scheduler/jobCollections": r,
		"GET " + armRG: r, "GET " + armJC: r, "PUT " + armJC: e, "PATCH " + armJC: e, "DELETE " + armJC: e,
		"POST " + armJC + "/enable": o, "POST " + armJC + "/disable": o, "GET " + armJC + "/jobs": r,
		"GET " + armJob: r, "PUT " + armJob: e, "PATCH " + armJob: e, "DELETE " + armJob: e,
		"POST " + armJob + "/run": o, "GET " + armJob + "/history": r, "POST " + armJob + "/history/:id/rerun": o,

		"GET " + coll + "/jobs/new": e, "POST " + coll + "/jobs/new": e, "GET " + job + "/edit": e,
		"POST " + job + "/edit": e, "POST " + coll + "/jobs/preview": e,
		"GET " + coll: r, "POST " + coll + "/enable": o, "POST " + coll + "/disable": o,
		"GET " + job: r, "GET " + job + "/history": r, "GET " + job + "/timeline": r, "GET " + job + "/trends": r, "GET " + job + "/deadline": r,
		"POST " + job + "/run": o, "POST " + job + "/enable": o, "POST " + job + "/disable": o,
		"POST " + coll + "/note": o, "POST " + job + "/note": o,
		"GET " + job + "/delete": e, "POST " + job + "/delete": e, "GET " + job + "/export.json": e,
		"GET " + job + "/history/:id": r, "POST " + job + "/history/:id/rerun": o, "GET /w/:ws/running": r,

		"GET " + calAPI: r, "GET " + calAPI + "/:name": r, "PUT " + calAPI + "/:name": e,
		"DELETE " + calAPI + "/:name": e, "POST " + calAPI + "/:name/import": e,
		"GET " + cal: r, "GET " + cal + "/new": e, "POST " + cal + "/new": e,
		"GET " + cal + "/import": e, "POST " + cal + "/import": e,
		"GET " + cal + "/:name": r, "GET " + cal + "/:name/edit": e, "POST " + cal + "/:name/edit": e,
		"GET " + cal + "/:name/export.ics": e, "GET " + cal + "/:name/delete": e, "POST " + cal + "/:name/delete": e,
		"GET /w/:ws/month": r, "GET /w/:ws/month/day": r,

		"GET " + chanAPI: r, "GET " + chanAPI + "/:name": r, "PUT " + chanAPI + "/:name": w,
		"DELETE " + chanAPI + "/:name": w, "POST " + chanAPI + "/:name/test": w,
		"GET " + alertAPI: r, "GET " + alertAPI + "/:name": r, "PUT " + alertAPI + "/:name": w,
		"DELETE " + alertAPI + "/:name": w, "GET /api/v1/workspaces/:ws/deliveries": r,
		"GET /api/v1/workspaces/:ws/targets": r, "GET /api/v1/workspaces/:ws/targets/:host": r,
		"PUT /api/v1/workspaces/:ws/targets/:host": e, "DELETE /api/v1/workspaces/:ws/targets/:host": e,
		"GET /w/:ws/targets": r, "POST /w/:ws/targets": e, "POST /w/:ws/targets/:host/delete": e,

		"GET " + monAPI: r, "GET " + monAPI + "/:name": r, "PUT " + monAPI + "/:name": e,
		"DELETE " + monAPI + "/:name": e, "POST " + monAPI + "/:name/rotate": e,
		"GET /w/:ws/monitors": r, "GET /w/:ws/monitors/new": e, "POST /w/:ws/monitors/new": e,
		"GET /w/:ws/monitors/:name": r, "GET /w/:ws/monitors/:name/edit": e, "POST /w/:ws/monitors/:name/edit": e,
		"POST /w/:ws/monitors/:name/rotate": e, "POST /w/:ws/monitors/:name/delete": e,

		"GET /api/v1/workspaces/:ws/audit": r, "GET /w/:ws/audit": r,
		"GET " + signingAPI: r, "POST " + signingAPI: e, "DELETE " + signingAPI: e,
		"POST " + coll + "/signing-secret": e, "POST " + coll + "/signing-secret/remove": e,
		"GET /w/:ws/channels": r, "POST /w/:ws/channels": w, "POST /w/:ws/channels/:name/delete": w,
		"POST /w/:ws/channels/:name/test": w, "POST /w/:ws/alerts": w, "POST /w/:ws/alerts/:name/delete": w,
		"POST " + job + "/bell": w,

		"POST " + backfillAPI + "/backfill": o, "GET " + backfillAPI + "/backfills": r,
		"GET " + backfillAPI + "/backfills/:id": r, "POST " + backfillAPI + "/backfills/:id/cancel": o,
		"POST " + job + "/backfill": o, "GET " + job + "/backfills": r, "POST " + job + "/backfills/:id/cancel": o,
	} {
		roleMatrix[k] = v
	}
}

// matrixActor is one side of the matrix: a signed-in user (client) or an
// API token, with the role it has in the workspace "default".
type matrixActor struct {
	name   string
	role   models.Role
	client *http.Client
	csrf   string
	token  string
}

// matrixPath fills the parameters of a route's path.
func matrixPath(p string, zedID string) string {
	r := strings.NewReplacer(":sub", "default", ":ws", "default", ":rg", "rg", ":jc", "jc", ":job", "j",
		":name", "cal", ":host", "api.example.com", ":username", "zed", "*", "app.css")
	p = r.Replace(p)
	if strings.Contains(p, "/members/:id") {
		return strings.Replace(p, ":id", zedID, 1)
	}
	return strings.Replace(p, ":id", "999999", 1)
}

// TestRoleMatrix sends every route of the route table as a member of each
// role (readers, operators, editors, owners, each signed in for pages and
// fragments) and with an API token of each role (of an owner, for the
// APIs): a route whose rule is a role answers 403, naming the role, to
// those below it, and changes nothing; others get past the check. A route
// of the table without a rule in roleMatrix fails the test.
func TestRoleMatrix(t *testing.T) {
	a := newApp(t, false)
	ctx := context.Background()
	a.setupAdmin("ada", "correct horse battery")
	pw := "correct horse battery"
	users := map[models.Role]*models.User{}
	for _, role := range models.Roles {
		u, err := a.store.CreateUser(ctx, models.NewUser{Username: "u-" + string(role), Password: pw})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.store.SetMemberRole(ctx, "default", u.ID, role); err != nil {
			t.Fatal(err)
		}
		users[role] = u
	}
	zed, err := a.store.CreateUser(ctx, models.NewUser{Username: "zed", Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	zedID := strconv.FormatInt(zed.ID, 10)

	var actors []matrixActor
	for _, role := range models.Roles {
		cl := newClient()
		tok := a.csrfWith(cl, "/signin")
		r := a.do(cl, http.MethodPost, "/signin", url.Values{"csrf_token": {tok}, "username": {"u-" + string(role)}, "password": {pw}}, nil)
		wantRedirect(t, r, "/")
		actors = append(actors, matrixActor{name: "session of a " + string(role), role: role, client: cl, csrf: a.csrfWith(cl, "/account")})
		_, secret, err := a.store.CreateScopedToken(ctx, users[models.RoleOwner].ID, "t-"+string(role), models.TokenScope{Role: role})
		if err != nil {
			t.Fatal(err)
		}
		actors = append(actors, matrixActor{name: "owner's token of role " + string(role), role: role, client: newClient(), token: secret})
		_, secret, err = a.store.CreateScopedToken(ctx, users[role].ID, "full", models.TokenScope{})
		if err != nil {
			t.Fatal(err)
		}
		actors = append(actors, matrixActor{name: "full token of a " + string(role), role: role, client: newClient(), token: secret})
	}

	// The fixture: a collection with a job, and a calendar.
	a.token = tokenOf(t, a, users[models.RoleOwner].ID)
	wantStatus(t, a.api(http.MethodPut, rgPath("rg")+"/jc"+apiVersion, `{"location":"westeurope","properties":{"sku":{"name":"Standard"},"state":"Enabled"}}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, rgPath("rg")+"/jc/jobs/j"+apiVersion, basicJob), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/default/calendars/cal", `{"entries":[]}`), http.StatusCreated)
	wantStatus(t, a.api(http.MethodPut, "/api/v1/workspaces/default/monitors/cal", `{"schedule":{"frequency":"hour"}}`), http.StatusCreated)
	if err := a.store.SetMemberRole(ctx, "default", zed.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}

	routes := handlers.RoutesForTest()
	// Rules that are roles first: the "self" routes may end sessions.
	// Those of the account last: they end sessions.
	order := func(r handlers.TestRoute) int {
		switch {
		case models.Role(roleMatrix[r.Method+" "+r.Path]).Valid():
			return 0
		case strings.HasPrefix(r.Path, "/account"):
			return 2
		}
		return 1
	}
	slices.SortStableFunc(routes, func(x, y handlers.TestRoute) int { return order(x) - order(y) })
	db, err := sql.Open("pgx", a.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	print := func() string {
		var out string
		if err := db.QueryRow(matrixPrintSQL).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, rt := range routes {
		key := rt.Method + " " + rt.Path
		rule, ok := roleMatrix[key]
		if !ok {
			t.Errorf("%s (%s) has no rule in roleMatrix: say which role it needs", key, rt.Access)
			continue
		}
		if rule == rulePublic {
			continue
		}
		api := rt.Access == "apiToken" || rt.Access == "armAPI"
		path := matrixPath(rt.Path, zedID)
		if strings.HasPrefix(path, "/subscriptions/") {
			path += apiVersion
		}
		for _, ac := range actors {
			if api != (ac.token != "") {
				continue
			}
			h := http.Header{}
			var form url.Values
			var body []string
			if api {
				h.Set("Authorization", "Bearer "+ac.token)
				h.Set("Content-Type", "application/json")
				if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
					body = []string{"{}"}
				}
			} else if rt.Method != http.MethodGet {
				form = url.Values{"csrf_token": {ac.csrf}}
			}
			need := models.Role(rule)
			denied := need.Valid() && !ac.role.Includes(need)
			before := ""
			if denied {
				before = print()
			}
			var r *response
			if body != nil {
				r = a.do(ac.client, rt.Method, path, nil, h, strings.NewReader(body[0]))
			} else {
				r = a.do(ac.client, rt.Method, path, form, h)
			}
			switch {
			case rule == ruleAdmin:
				if r.StatusCode != http.StatusForbidden && r.StatusCode != http.StatusNotFound {
					t.Errorf("%s as %s: %d, want 403 or 404 (administrators only)", key, ac.name, r.StatusCode)
				}
			case rule == ruleSelf:
				if r.StatusCode == http.StatusForbidden {
					t.Errorf("%s as %s: 403, want it allowed: %.200s", key, ac.name, r.body)
				}
			case rule == ruleForm:
				// The write service decides from the form (TestRoleFormRoutes).
			case ac.role.Includes(need):
				if r.StatusCode == http.StatusForbidden {
					t.Errorf("%s as %s: 403, want it allowed (needs %s): %.300s", key, ac.name, need, r.body)
				}
			default:
				if r.StatusCode != http.StatusForbidden {
					t.Errorf("%s as %s: %d, want 403 (needs %s)", key, ac.name, r.StatusCode, need)
				} else if !strings.Contains(r.body, "needs the "+string(need)+" role") && need != models.RoleOwner {
					t.Errorf("%s as %s: 403 without naming the role: %.300s", key, ac.name, r.body)
				}
				if after := print(); after != before {
					t.Errorf("%s as %s: refused with 403 but changed the data", key, ac.name)
				}
			}
		}
	}
}

// tokenOf issues a full token of userID.
func tokenOf(t *testing.T, a *app, userID int64) string {
	t.Helper()
	_, secret, err := a.store.CreateToken(context.Background(), userID, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// matrixPrintSQL digests what a refused request must not change:
// collections, jobs, history, attempts, calendars, workspaces, members.
const matrixPrintSQL = `SELECT
	coalesce((SELECT md5(string_agg(c::text, '|' ORDER BY c.id)) FROM job_collections c), '') ||
	coalesce((SELECT md5(string_agg(j::text, '|' ORDER BY j.id)) FROM jobs j), '') ||
	coalesce((SELECT md5(string_agg(x::text, '|' ORDER BY x.id)) FROM job_attempts x), '') ||
	coalesce((SELECT md5(string_agg(k::text, '|' ORDER BY k.id)) FROM calendars k), '') ||
	coalesce((SELECT md5(string_agg(mo::text, '|' ORDER BY mo.id)) FROM monitors mo), '') ||
	coalesce((SELECT md5(string_agg(w::text, '|' ORDER BY w.id)) FROM workspaces w), '') ||
	coalesce((SELECT md5(string_agg(m::text, '|' ORDER BY m.workspace_id, m.user_id)) FROM memberships m), '')`
