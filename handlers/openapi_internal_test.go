package handlers

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documented reports whether a route belongs in the OpenAPI document:
// Sked's API under /api/ (the document itself included) and the Azure
// Scheduler routes.
func documented(path string) bool {
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/subscriptions/")
}

// pathShape writes a route's path with its parameters as {}: echo's
// ":name" and OpenAPI's "{name}" alike, so that the two can be compared
// whatever the parameters are called.
func pathShape(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

// openAPIDoc is what the coverage test reads of the document.
type openAPIDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
}

var httpMethods = []string{"get", "put", "post", "patch", "delete", "head", "options", "trace"}

// TestOpenAPICoversTheRoutes checks the OpenAPI document against the
// router: every route under /api/ and /subscriptions/ has its operation
// (method and path, parameters by position), and the document names no
// operation the router does not serve.
func TestOpenAPICoversTheRoutes(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Errorf("openapi is %q, want 3.1.x", doc.OpenAPI)
	}
	inDoc := map[string]string{} // "GET /a/{}/b" → the document's path
	for p, item := range doc.Paths {
		for m := range item {
			if slices.Contains(httpMethods, m) {
				inDoc[strings.ToUpper(m)+" "+pathShape(p)] = p
			}
		}
	}
	served := map[string]bool{}
	e := New(Deps{SessionSecret: make([]byte, 32)})
	for _, r := range e.Routes() {
		if !documented(r.Path) {
			continue
		}
		key := r.Method + " " + pathShape(r.Path)
		served[key] = true
		if _, ok := inDoc[key]; !ok {
			t.Errorf("%s %s is served but not in openapi.json", r.Method, r.Path)
		}
	}
	if len(served) == 0 {
		t.Fatal("the router has no API routes")
	}
	for key, p := range inDoc {
		if !served[key] {
			t.Errorf("openapi.json has %s %s, which the router does not serve", strings.Fields(key)[0], p)
		}
	}
}

// TestOpenAPIDocumentIsConsistent checks what a JSON Schema validator of
// the document does not: every $ref resolves, every {parameter} of a path
// is declared as a path parameter of each of its operations and nothing
// else is, operation ids are unique, and every operation answers
// something.
func TestOpenAPIDocumentIsConsistent(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(openAPIDocument, &root); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	at := func(ref string) any {
		var v any = root
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[tok]
		}
		return v
	}
	// Every $ref anywhere resolves.
	var walk func(v any, where string)
	walk = func(v any, where string) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if !strings.HasPrefix(ref, "#/") || at(ref) == nil {
					t.Errorf("%s: $ref %q does not resolve", where, ref)
				}
			}
			for k, c := range x {
				walk(c, where+"/"+k)
			}
		case []any:
			for i, c := range x {
				walk(c, fmt.Sprintf("%s/%d", where, i))
			}
		}
	}
	walk(root, "#")

	deref := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			m, _ = at(ref).(map[string]any)
		}
		return m
	}
	pathParams := func(list any) map[string]bool {
		out := map[string]bool{}
		items, _ := list.([]any)
		for _, p := range items {
			if m := deref(p); m["in"] == "path" {
				out[m["name"].(string)] = true
				if m["required"] != true {
					t.Errorf("path parameter %v is not required", m["name"])
				}
			}
		}
		return out
	}
	braces := regexp.MustCompile(`\{([^}]+)\}`)
	ids := map[string]string{}
	paths, _ := root["paths"].(map[string]any)
	for p, item := range paths {
		pi := item.(map[string]any)
		var want []string
		for _, m := range braces.FindAllStringSubmatch(p, -1) {
			want = append(want, m[1])
		}
		shared := pathParams(pi["parameters"])
		for _, method := range httpMethods {
			op, ok := pi[method].(map[string]any)
			if !ok {
				continue
			}
			where := strings.ToUpper(method) + " " + p
			declared := pathParams(op["parameters"])
			for n := range shared {
				declared[n] = true
			}
			for _, n := range want {
				if !declared[n] {
					t.Errorf("%s: {%s} is not declared as a path parameter", where, n)
				}
				delete(declared, n)
			}
			for n := range declared {
				t.Errorf("%s: path parameter %s is not in the path", where, n)
			}
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("%s: no operationId", where)
			} else if other, dup := ids[id]; dup {
				t.Errorf("%s: operationId %s is also %s's", where, id, other)
			}
			ids[id] = where
			rs, _ := op["responses"].(map[string]any)
			if len(rs) == 0 {
				t.Errorf("%s: no responses", where)
			}
			// The input gate may refuse any request; a token is
			// checked wherever the document asks for one.
			if _, ok := rs["400"]; !ok {
				t.Errorf("%s: no 400 answer", where)
			}
			// Any request may find the database unavailable or
			// read-only (a failover).
			if _, ok := rs["503"]; !ok {
				t.Errorf("%s: no 503 answer", where)
			}
			if sec, ok := op["security"].([]any); (!ok || len(sec) > 0) && rs["401"] == nil {
				t.Errorf("%s: needs a token but documents no 401", where)
			}
		}
	}
}
