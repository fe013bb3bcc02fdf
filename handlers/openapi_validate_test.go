package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The OpenAPI document as a checker of real traffic (SPEC §15.2): every
// request the handler tests send through app.do to a route the document
// describes, and its answer, are checked against the document. The
// schemas are compiled with a JSON Schema 2020-12 validator; which
// operation a request is for is decided here (method, and the path's
// segments with the document's {parameters}), as are the parameters, the
// bearer token, the media types and the documented statuses.
//
// A request the document refuses (a missing parameter or token, a body
// its schema rejects) must be refused by the API with a 4xx: the
// document may not promise less than the API accepts. Whatever the
// request, the answer's status must be documented for the operation, its
// media type one the document names, its body valid against that
// schema, and required headers present.

// openAPIFile is the document as the package embeds and serves it.
const openAPIFile = "openapi.json"

// schemaBase is the URL the document is compiled under.
const schemaBase = "file:///sked/openapi.json"

// apiSpec is the document, compiled.
type apiSpec struct {
	doc map[string]any
	ops []*specOp
}

// specOp is one operation of the document.
type specOp struct {
	method, path string
	segs         []string // literal segments, "" for a parameter
	params       []specParam
	security     bool
	body         map[string]*jsonschema.Schema // media type → schema (nil: any)
	bodyRequired bool
	responses    map[string]*specResponse // "200", "4XX", "default"
}

// specParam is a path, query or header parameter.
type specParam struct {
	name, in string
	required bool
	schema   *jsonschema.Schema
	typ      string // the schema's type, for query values: "integer", "boolean", …
}

// specResponse is a documented answer.
type specResponse struct {
	content map[string]*jsonschema.Schema
	headers []string // required headers
}

var (
	specOnce sync.Once
	spec     *apiSpec
	specErr  error
)

// loadAPISpec compiles the document once per test binary.
func loadAPISpec() (*apiSpec, error) {
	specOnce.Do(func() { spec, specErr = compileAPISpec() })
	return spec, specErr
}

// compileAPISpec reads and compiles the document: every operation with
// its parameters and every schema of its bodies and answers.
func compileAPISpec() (*apiSpec, error) {
	raw, err := os.ReadFile(openAPIFile)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("openapi: %s is not JSON: %w", openAPIFile, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaBase, doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	s := &apiSpec{doc: doc.(map[string]any)}
	compile := func(ptr string) (*jsonschema.Schema, error) {
		sch, err := c.Compile(schemaBase + "#" + ptr)
		if err != nil {
			return nil, fmt.Errorf("openapi: schema at %s: %w", ptr, err)
		}
		return sch, nil
	}
	paths, _ := s.doc["paths"].(map[string]any)
	for p, item := range paths {
		itemPtr := "/paths/" + escapePointer(p)
		pi, _ := item.(map[string]any)
		shared, _ := pi["parameters"].([]any)
		for _, method := range []string{"get", "put", "post", "patch", "delete", "head", "options"} {
			o, ok := pi[method].(map[string]any)
			if !ok {
				continue
			}
			opPtr := itemPtr + "/" + method
			op := &specOp{method: strings.ToUpper(method), path: p, responses: map[string]*specResponse{}}
			for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
				if strings.HasPrefix(seg, "{") {
					seg = ""
				}
				op.segs = append(op.segs, seg)
			}
			// The security of the operation, else of the document.
			sec, ok := o["security"].([]any)
			if !ok {
				sec, _ = s.doc["security"].([]any)
			}
			op.security = len(sec) > 0
			own, _ := o["parameters"].([]any)
			lists := []struct {
				ptr  string
				list []any
			}{{itemPtr + "/parameters", shared}, {opPtr + "/parameters", own}}
			for _, l := range lists {
				for i := range l.list {
					obj, ptr := s.resolve(fmt.Sprintf("%s/%d", l.ptr, i))
					sch, err := compile(ptr + "/schema")
					if err != nil {
						return nil, err
					}
					typ, _ := obj["schema"].(map[string]any)["type"].(string)
					req, _ := obj["required"].(bool)
					p := specParam{name: obj["name"].(string), in: obj["in"].(string), required: req, schema: sch, typ: typ}
					op.params = slices.DeleteFunc(op.params, func(q specParam) bool { return q.name == p.name && q.in == p.in })
					op.params = append(op.params, p)
				}
			}
			if _, ok := o["requestBody"]; ok {
				rb, ptr := s.resolve(opPtr + "/requestBody")
				op.bodyRequired, _ = rb["required"].(bool)
				op.body = map[string]*jsonschema.Schema{}
				for mt, m := range rb["content"].(map[string]any) {
					if _, ok := m.(map[string]any)["schema"]; !ok {
						op.body[mt] = nil
						continue
					}
					if op.body[mt], err = compile(ptr + "/content/" + escapePointer(mt) + "/schema"); err != nil {
						return nil, err
					}
				}
			}
			for code := range o["responses"].(map[string]any) {
				r, ptr := s.resolve(opPtr + "/responses/" + code)
				sr := &specResponse{content: map[string]*jsonschema.Schema{}}
				content, _ := r["content"].(map[string]any)
				for mt, m := range content {
					if _, ok := m.(map[string]any)["schema"]; !ok {
						sr.content[mt] = nil
						continue
					}
					if sr.content[mt], err = compile(ptr + "/content/" + escapePointer(mt) + "/schema"); err != nil {
						return nil, err
					}
				}
				headers, _ := r["headers"].(map[string]any)
				for name := range headers {
					h, _ := s.resolve(ptr + "/headers/" + escapePointer(name))
					if req, _ := h["required"].(bool); req {
						sr.headers = append(sr.headers, name)
					}
				}
				op.responses[code] = sr
			}
			s.ops = append(s.ops, op)
		}
	}
	return s, nil
}

// escapePointer escapes a JSON pointer token.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// at returns the value at a JSON pointer of the document.
func (s *apiSpec) at(ptr string) any {
	var v any = s.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// resolve returns the object at ptr, following OpenAPI $refs (responses,
// parameters, request bodies, headers), with the pointer where it is.
func (s *apiSpec) resolve(ptr string) (map[string]any, string) {
	for range 10 {
		obj, _ := s.at(ptr).(map[string]any)
		ref, ok := obj["$ref"].(string)
		if !ok {
			return obj, ptr
		}
		ptr = strings.TrimPrefix(ref, "#")
	}
	return nil, ptr
}

// find returns the operation of method and path, or nil when the
// document describes none (also for a path it has with another method).
// Fixed segments are compared without regard to case, as ARM paths are.
func (s *apiSpec) find(method, path string) *specOp {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, op := range s.ops {
		if op.method != method || len(op.segs) != len(segs) {
			continue
		}
		match := true
		for i, seg := range op.segs {
			if seg == "" && segs[i] == "" || seg != "" && !strings.EqualFold(seg, segs[i]) {
				match = false
				break
			}
		}
		if match {
			return op
		}
	}
	return nil
}

// checkRequest lists what the document says is wrong with a request: a
// missing or ill-typed parameter, no bearer token, a body of a media type
// it does not name or that its schema rejects.
func (op *specOp) checkRequest(req *http.Request, body []byte) []string {
	var out []string
	q := req.URL.Query()
	for _, p := range op.params {
		var v string
		var present bool
		switch p.in {
		case "query":
			_, present = q[p.name]
			v = q.Get(p.name)
		case "header":
			v = req.Header.Get(p.name)
			present = v != ""
		default:
			continue // a path parameter is there when the path matched
		}
		if !present {
			if p.required {
				out = append(out, fmt.Sprintf("the %s parameter %s is missing", p.in, p.name))
			}
			continue
		}
		var inst any = v
		switch p.typ {
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				out = append(out, fmt.Sprintf("the %s parameter %s=%q is not an integer", p.in, p.name, v))
				continue
			}
			inst = json.Number(strconv.FormatInt(n, 10))
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil {
				out = append(out, fmt.Sprintf("the %s parameter %s=%q is not a boolean", p.in, p.name, v))
				continue
			}
			inst = b
		}
		if err := p.schema.Validate(inst); err != nil {
			out = append(out, fmt.Sprintf("the %s parameter %s=%q: %v", p.in, p.name, v, err))
		}
	}
	if op.security {
		auth := req.Header.Get("Authorization")
		if len(auth) < 8 || !strings.EqualFold(auth[:7], "Bearer ") || strings.TrimSpace(auth[7:]) == "" {
			out = append(out, "no bearer token")
		}
	}
	if op.body == nil {
		return out
	}
	if len(body) == 0 {
		if op.bodyRequired {
			out = append(out, "no request body")
		}
		return out
	}
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	sch, ok := op.body[mt]
	switch {
	case !ok:
		out = append(out, fmt.Sprintf("the request body's media type %q is not one of the document's", mt))
	case sch != nil && isJSON(mt):
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			out = append(out, "the request body is not JSON: "+err.Error())
		} else if err := sch.Validate(inst); err != nil {
			out = append(out, "the request body: "+err.Error())
		}
	}
	return out
}

// checkResponse lists what the document says is wrong with an answer.
func (op *specOp) checkResponse(method string, resp *http.Response, body []byte) []string {
	code := strconv.Itoa(resp.StatusCode)
	r, ok := op.responses[code]
	if !ok {
		r, ok = op.responses[code[:1]+"XX"]
	}
	if !ok {
		r, ok = op.responses["default"]
	}
	if !ok {
		return []string{fmt.Sprintf("status %d is not documented: %.300s", resp.StatusCode, body)}
	}
	var out []string
	for _, h := range r.headers {
		if resp.Header.Get(h) == "" {
			out = append(out, fmt.Sprintf("status %d: no %s header", resp.StatusCode, h))
		}
	}
	if method == http.MethodHead {
		return out
	}
	if len(r.content) == 0 {
		if len(body) > 0 {
			out = append(out, fmt.Sprintf("status %d has a body, the document none: %.300s", resp.StatusCode, body))
		}
		return out
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	sch, ok := r.content[mt]
	if !ok {
		return append(out, fmt.Sprintf("status %d: media type %q is not one of the document's", resp.StatusCode, mt))
	}
	if sch == nil || !isJSON(mt) {
		return out
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return append(out, fmt.Sprintf("status %d: the body is not JSON: %v", resp.StatusCode, err))
	}
	if err := sch.Validate(inst); err != nil {
		out = append(out, fmt.Sprintf("status %d: %v\nbody: %.600s", resp.StatusCode, err, body))
	}
	return out
}

// isJSON reports whether a media type is JSON.
func isJSON(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

// checkExchange checks one request and its answer against the document
// and returns the mismatches, none for a request to a route the document
// does not describe.
func (s *apiSpec) checkExchange(req *http.Request, reqBody []byte, resp *http.Response, body []byte) []string {
	op := s.find(req.Method, req.URL.Path)
	if op == nil {
		return nil
	}
	var out []string
	refused := op.checkRequest(req, reqBody)
	if len(refused) > 0 && (resp.StatusCode < 400 || resp.StatusCode >= 500) {
		out = append(out, fmt.Sprintf("the document refuses the request (%s), the API answered %d", strings.Join(refused, "; "), resp.StatusCode))
	}
	out = append(out, op.checkResponse(req.Method, resp, body)...)
	for i, m := range out {
		out[i] = fmt.Sprintf("openapi: %s %s (%s %s): %s", req.Method, req.URL.RequestURI(), op.method, op.path, m)
	}
	return out
}
