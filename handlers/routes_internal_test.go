package handlers

import (
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// funcName is the short name of a function value: "loadSession" for the
// method value s.loadSession, "requireAdmin" for the function.
func funcName(f any) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	name = name[strings.LastIndex(name, ".")+1:]
	return strings.TrimSuffix(name, "-fm")
}

// publicRoutes are the only routes that open without a session or an API
// token: probes, static files, the sign-in and setup pages, and the job
// feed, whose URL carries its own token. A new route in a public group
// must be added here on purpose.
var publicRoutes = map[string]string{
	"GET /healthz":  "probe",
	"GET /readyz":   "probe",
	"GET /metrics":  "probe",
	"GET /static/*": "asset",
	"GET /setup":    "visitor",
	"POST /setup":   "visitor",
	"GET /signin":   "visitor",
	"POST /signin":  "visitor",
	"POST /signout": "visitor",
	"GET /c/:ws/:rg/:jc/jobs/:job/calendar.ics": "feedToken",

	// The OpenID Connect sign-in (signin_oidc.go).
	"GET /signin/oidc":          "visitor",
	"GET /signin/oidc/callback": "visitor",

	// A heartbeat monitor's pings, whose URL carries its token
	// (monitors_ping.go).
	"GET /ping/:token": "pingToken", "POST /ping/:token": "pingToken",
	"GET /ping/:token/start": "pingToken", "POST /ping/:token/start": "pingToken",
	"GET /ping/:token/fail": "pingToken", "POST /ping/:token/fail": "pingToken",

	// The OpenAPI document (openapi.go).
	"GET /api/openapi.json": "asset",
}

// accessChains are the middleware of each access group, in order.
var accessChains = map[string][]string{
	"probe":     nil,
	"asset":     nil,
	"visitor":   {"loadSession", "csrf"},
	"signedIn":  {"loadSession", "csrf", "requireUser"},
	"admin":     {"loadSession", "csrf", "requireUser", "requireAdmin"},
	"apiToken":  {"requireToken"},
	"armAPI":    {"requireToken", "armRequest"},
	"feedToken": nil,
	"pingToken": nil,
}

// TestRoutesTable checks the route table against the router: every
// registered route comes from the table (no route registered elsewhere),
// no method and path twice, each access group has its expected chain, and
// every route outside publicRoutes needs a signed-in user or an API
// token.
func TestRoutesTable(t *testing.T) {
	table := (&Server{}).routeTable()
	e := New(Deps{SessionSecret: make([]byte, 32)})

	want := map[string]string{}
	for _, r := range table {
		key := r.method + " " + r.path
		if _, dup := want[key]; dup {
			t.Errorf("%s: registered twice", key)
		}
		want[key] = funcName(r.handler)

		chain := make([]string, len(r.access.chain))
		for i, m := range r.access.chain {
			chain[i] = funcName(m)
		}
		if exp, ok := accessChains[r.access.name]; !ok {
			t.Errorf("%s: unknown access group %q", key, r.access.name)
		} else if !slices.Equal(chain, exp) {
			t.Errorf("%s: access %s runs %v, want %v", key, r.access.name, chain, exp)
		}

		group, public := publicRoutes[key]
		switch {
		case public && group != r.access.name:
			t.Errorf("%s: access %s, publicRoutes says %s", key, r.access.name, group)
		case !public && !slices.Contains(chain, "requireUser") && !slices.Contains(chain, "requireToken"):
			t.Errorf("%s: access %s needs neither a signed-in user nor an API token; add it to publicRoutes if it is meant to be public", key, r.access.name)
		}
	}
	for key := range publicRoutes {
		if _, ok := want[key]; !ok {
			t.Errorf("publicRoutes lists %s, which is not a route", key)
		}
	}

	got := e.Routes()
	if len(got) != len(want) {
		t.Errorf("router has %d routes, the table %d", len(got), len(want))
	}
	for _, r := range got {
		key := r.Method + " " + r.Path
		handler, ok := want[key]
		if !ok {
			t.Errorf("%s: registered outside the route table", key)
			continue
		}
		if name := strings.TrimSuffix(r.Name[strings.LastIndex(r.Name, ".")+1:], "-fm"); name != handler {
			t.Errorf("%s: router has handler %s, the table %s", key, name, handler)
		}
	}
}
