package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sked/client"
	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/models/monitordef"
	"sked/models/notifydef"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// The files of sked apply and sked diff (SPEC §15.3, docs/cli.md "Jobs as
// code"): each is a JSON file that sked import takes (an export bundle
// {"jobCollections": [{…collection…, "jobs": […]}]}, a collection's export
// {"value": […], "jobCollection": {…}}, an ARM job or an array of jobs),
// and may also hold, or hold only, the objects of workspaces:
//
//	{"workspaces": [{"id": "default",
//	                 "calendars": [{"name": "holidays", …calendar JSON…}],
//	                 "monitors":  [{"name": "backup", "schedule": {…}, "grace": "PT10M"}],
//	                 "channels":  [{"name": "ops", "type": "webhook", "properties": {…}}],
//	                 "alerts":    [{"name": "failures", "channel": "ops", "events": […]}]}]}
//
// Each object is the document the API's PUT of it takes, with its name
// beside it, as GET …/{kind}/{name} answers it (a monitor's ping URL and
// status in it are ignored: the server keeps the ping token).

// desired is what the files declare.
type desired struct {
	// collections are in file order, each once (matched
	// case-insensitively).
	collections []*wantCollection
	// objects are the workspaces' calendars, channels and alert rules.
	objects []*wantObject
	// kinds are the workspace kinds the files list, by "ws\x00kind" with
	// ws lowercase, each with the workspace as the files first spell it:
	// only those kinds are pruned.
	kinds map[string]string
}

// source is where a declaration is: the file and the path in it.
type source struct{ file, path string }

// String returns "file: path".
func (s source) String() string { return s.file + ": " + s.path }

// wantCollection is a collection the files name.
type wantCollection struct {
	ref client.CollectionRef
	src source
	// body is the collection's settings (ARM shape) or nil when the files
	// only name the collection (its jobs' ids do): then it is created with
	// the defaults if missing and its settings are left alone.
	body json.RawMessage
	// def is body parsed (nil with body).
	def *models.JobCollection
	// namesState says whether body gives properties.state.
	namesState bool
	jobs       []*wantJob
}

// wantJob is a job of the files.
type wantJob struct {
	name string
	src  source
	// body is the job's JSON as the file gives it (either shape).
	body json.RawMessage
	// def is body parsed, secrets optional.
	def *jobdef.Job
	// namesState says whether body gives state (or properties.state).
	namesState bool
}

// wantObject is a calendar, channel or alert rule of the files.
type wantObject struct {
	ws   string
	kind client.Kind
	name string
	src  source
	body json.RawMessage
}

// jsonFiles lists the files of path: path itself when it is a file, else
// every *.json file under it (subdirectories included, hidden files and
// directories such as .git left out), in name order.
func jsonFiles(path string) ([]string, error) {
	path = filepath.Clean(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != path && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no .json file", path)
	}
	slices.Sort(out)
	return out, nil
}

// loadDesired reads and checks every file of paths; problems lists every
// mistake found ("file: path: field: message"), and then nothing may be
// applied.
func loadDesired(paths []string) (d *desired, problems []string, err error) {
	d = &desired{kinds: map[string]string{}}
	colls := map[string]*wantCollection{}
	jobs := map[string]source{}
	objects := map[string]source{}
	for _, file := range paths {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		problems = append(problems, d.loadFile(file, data, colls, jobs, objects)...)
	}
	return d, problems, nil
}

// loadFile adds the declarations of one file.
func (d *desired) loadFile(file string, data []byte, colls map[string]*wantCollection, jobs, objects map[string]source) []string {
	var problems []string
	bad := func(path, format string, args ...any) {
		problems = append(problems, source{file, path}.String()+": "+fmt.Sprintf(format, args...))
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		bad("file", "not valid JSON: %v", err)
		return problems
	}
	top := map[string]json.RawMessage{}
	if len(trimmed) > 0 && trimmed[0] == '{' {
		_ = json.Unmarshal(trimmed, &top)
	}
	hasJobs := true
	if raw, ok := fieldFold(top, "workspaces"); ok {
		_, bundle := fieldFold(top, "jobCollections")
		_, list := fieldFold(top, "value")
		hasJobs = bundle || list
		problems = append(problems, d.loadWorkspaces(file, raw, objects)...)
	}
	if !hasJobs {
		return problems
	}
	f, err := catalog.ParseImport(trimmed)
	if err != nil {
		bad("file", "%v", err)
		return problems
	}
	// The file's collections, by their index in f.Collections.
	declared := make([]*wantCollection, len(f.Collections))
	for i, fc := range f.Collections {
		for _, p := range fc.Problems {
			bad(fc.Path+"."+p.Path, "%s", p.Message)
		}
		ref := client.CollectionRef{Subscription: orDefault(fc.Subscription), ResourceGroup: fc.ResourceGroup, Name: fc.Name}
		if ref.ResourceGroup == "" && len(fc.Problems) == 0 {
			bad(fc.Path+".id", "is required: the collection's ARM id (/subscriptions/{workspace}/resourceGroups/{group}/providers/Microsoft.Scheduler/jobCollections/{name}) names its resource group")
		}
		if ref.ResourceGroup == "" || ref.Name == "" {
			continue
		}
		key := strings.ToLower(ref.String())
		wc := colls[key]
		if wc != nil && wc.body != nil {
			bad(fc.Path, "declares the collection %s again (%s declares it)", ref, wc.src)
			continue
		}
		if wc == nil {
			wc = &wantCollection{ref: ref}
			colls[key] = wc
			d.collections = append(d.collections, wc)
		}
		wc.src, wc.body = source{file, fc.Path}, collectionSettings(fc.Body)
		def, err := catalog.ParseCollection(wc.body)
		if err != nil {
			for _, p := range problemsOf(err) {
				bad(fc.Path+"."+p[0], "%s", p[1])
			}
		}
		wc.def = def
		wc.namesState = hasPath(wc.body, "properties", "state")
		declared[i] = wc
	}
	for _, fj := range f.Jobs {
		src := source{file, fj.Path}
		for _, p := range fj.Problems {
			bad(fj.Path+"."+p.Path, "%s", p.Message)
		}
		if len(fj.Problems) > 0 {
			continue
		}
		if !hasPath(fj.Body, "name") && !hasPath(fj.Body, "id") {
			// Import would derive one from the URL; apply needs a name
			// that stays when the job changes.
			bad(fj.Path+".name", "is required: a job that apply manages needs its name (or its ARM id)")
			continue
		}
		var wc *wantCollection
		if fj.Collection >= 0 {
			if wc = declared[fj.Collection]; wc == nil {
				continue // its collection's problem is reported
			}
		} else {
			ref := client.CollectionRef{Subscription: orDefault(fj.Subscription), ResourceGroup: fj.ResourceGroup, Name: fj.CollectionName}
			if ref.ResourceGroup == "" || ref.Name == "" {
				bad(fj.Path, "the job %q names no collection: give its ARM id (…/resourceGroups/{group}/providers/Microsoft.Scheduler/jobCollections/{collection}/jobs/{job}) or list it in a jobCollections bundle", fj.Name)
				continue
			}
			key := strings.ToLower(ref.String())
			if wc = colls[key]; wc == nil {
				wc = &wantCollection{ref: ref, src: src}
				colls[key] = wc
				d.collections = append(d.collections, wc)
			}
		}
		key := strings.ToLower(wc.ref.String() + "/" + fj.Name)
		if prev, ok := jobs[key]; ok {
			bad(fj.Path, "declares the job %s/%s again (%s declares it)", wc.ref, fj.Name, prev)
			continue
		}
		jobs[key] = src
		def, err := jobdef.ParseWith(fj.Body, jobdef.Options{SecretsOptional: true})
		if err != nil {
			for _, p := range problemsOf(err) {
				bad(fj.Path, "job %s: %s: %s", fj.Name, p[0], p[1])
			}
			continue
		}
		wc.jobs = append(wc.jobs, &wantJob{name: fj.Name, src: src, body: fj.Body, def: def, namesState: jobNamesState(fj.Body)})
	}
	return problems
}

// loadWorkspaces adds the objects of a file's "workspaces" list.
func (d *desired) loadWorkspaces(file string, raw json.RawMessage, objects map[string]source) []string {
	var problems []string
	bad := func(path, format string, args ...any) {
		problems = append(problems, source{file, path}.String()+": "+fmt.Sprintf(format, args...))
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		bad("workspaces", "must be an array of workspaces ({\"id\", \"calendars\", \"monitors\", \"channels\", \"alerts\"})")
		return problems
	}
	for i, w := range list {
		path := fmt.Sprintf("workspaces[%d]", i)
		var ws string
		if v, ok := fieldFold(w, "id"); !ok || json.Unmarshal(v, &ws) != nil || ws == "" {
			bad(path+".id", "is required: the workspace's id (the ARM subscription)")
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(w)) {
			switch strings.ToLower(key) {
			case "id", "displayname", "calendars", "monitors", "channels", "alerts":
			default:
				bad(path+"."+key, "is not a field of a workspace (id, calendars, monitors, channels, alerts)")
			}
		}
		for _, kind := range client.Kinds {
			raw, ok := fieldFold(w, string(kind))
			if !ok {
				continue
			}
			if key := strings.ToLower(ws) + "\x00" + string(kind); d.kinds[key] == "" {
				d.kinds[key] = ws
			}
			var docs []json.RawMessage
			if json.Unmarshal(raw, &docs) != nil {
				bad(path+"."+string(kind), "must be an array")
				continue
			}
			for j, doc := range docs {
				opath := fmt.Sprintf("%s.%s[%d]", path, kind, j)
				var head struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(doc, &head) != nil || head.Name == "" {
					bad(opath+".name", "is required")
					continue
				}
				key := strings.ToLower(ws + "\x00" + string(kind) + "\x00" + head.Name)
				if prev, ok := objects[key]; ok {
					bad(opath, "declares %s %q again (%s declares it)", kindNoun(kind), head.Name, prev)
					continue
				}
				objects[key] = source{file, opath}
				if err := checkObject(kind, doc); err != nil {
					for _, p := range problemsOf(err) {
						bad(opath+"."+p[0], "%s", p[1])
					}
					continue
				}
				d.objects = append(d.objects, &wantObject{ws: ws, kind: kind, name: head.Name, src: source{file, opath}, body: doc})
			}
		}
	}
	return problems
}

// checkObject validates a workspace object as the server will (a
// channel's secrets may be left out: the server keeps them).
func checkObject(kind client.Kind, doc json.RawMessage) error {
	var err error
	switch kind {
	case client.Calendars:
		_, err = caldef.Parse(doc)
	case client.Alerts:
		_, err = notifydef.ParseRule(doc)
	case client.Channels:
		_, err = notifydef.ParseChannel(doc, secretStub(doc))
	case client.Monitors:
		_, err = monitordef.Parse(doc)
	}
	return err
}

// secretStub is a stored channel of doc's type whose secrets are set, so
// that checking doc does not require the secrets a replace may leave out.
func secretStub(doc json.RawMessage) *notifydef.Channel {
	var head struct {
		Type       string `json:"type"`
		Properties struct {
			User string `json:"user"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(doc, &head)
	stub := &notifydef.Channel{Type: notifydef.ChannelType(strings.ToLower(head.Type)), URL: "https://secret.invalid/",
		SigningSecret: "whsec_c3RhbmQtaW4=", Email: &notifydef.EmailConfig{}}
	if head.Properties.User != "" {
		// Only a channel with a user has a password.
		stub.Email.Password = "stand-in"
	}
	return stub
}

// kindNoun is how messages name an object of kind.
func kindNoun(kind client.Kind) string {
	switch kind {
	case client.Calendars:
		return "calendar"
	case client.Channels:
		return "channel"
	case client.Monitors:
		return "monitor"
	}
	return "alert rule"
}

// problemsOf returns the [path, message] pairs of a *problem.List, or
// the error's text at "file".
func problemsOf(err error) [][2]string {
	var out [][2]string
	if pl := problem.As(err); pl != nil {
		for _, p := range pl.Problems {
			out = append(out, [2]string{p.Path, p.Message})
		}
		return out
	}
	return [][2]string{{"file", err.Error()}}
}

// collectionSettings returns a bundle collection's settings without its
// jobs and read-only fields.
func collectionSettings(body json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	for k := range m {
		switch strings.ToLower(k) {
		case "jobs", "id", "type", "name":
			delete(m, k)
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// jobNamesState reports whether a job's JSON (either shape) gives its
// state.
func jobNamesState(body json.RawMessage) bool {
	return hasPath(body, "state") || hasPath(body, "properties", "state")
}

// hasPath reports whether the JSON object doc has the keys of path
// (matched case-insensitively), one inside the other.
func hasPath(doc json.RawMessage, path ...string) bool {
	for _, key := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(doc, &m) != nil {
			return false
		}
		v, ok := fieldFold(m, key)
		if !ok {
			return false
		}
		doc = v
	}
	return true
}

// fieldFold returns m's field key, matched case-insensitively.
func fieldFold(m map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// orDefault is the workspace of a collection that names none: "default".
func orDefault(ws string) string {
	if ws == "" {
		return models.DefaultWorkspaceID
	}
	return ws
}
