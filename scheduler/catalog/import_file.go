package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sked/models/problem"
	"strings"
)

// MaxImportBytes is the largest import file: 50 MB.
const MaxImportBytes = 50 << 20

// The shapes of an import file (ImportFile.Shape).
const (
	ShapeJob    = "job"    // one job, flat or ARM
	ShapeArray  = "array"  // [job, job, …]
	ShapeList   = "list"   // {"value": [job, …]}, an ARM list
	ShapeBundle = "bundle" // {"jobCollections": [{…collection…, "jobs": [job, …]}]}
)

// ImportFile is an import file read by ParseImport: its jobs in file order
// and, for an export bundle, its collections. Nothing in it is validated
// beyond the file's shape and the jobs' names; Import checks the rest.
type ImportFile struct {
	// Shape is one of ShapeJob, ShapeArray, ShapeList, ShapeBundle.
	Shape       string
	Collections []FileCollection
	Jobs        []FileJob
}

// FileCollection is a collection of an export bundle (or the
// "jobCollection" beside the "value" of a collection's export).
type FileCollection struct {
	// Path is where it is in the file, e.g. "jobCollections[0]".
	Path string
	// Subscription, ResourceGroup and Name locate it, from its ARM id or
	// else its name; a part the file does not give is empty.
	Subscription, ResourceGroup, Name string
	// Body is its JSON, read by ParseCollection.
	Body json.RawMessage
	// Problems are those with its id or name.
	Problems []problem.Problem
}

// FileJob is one job of an import file.
type FileJob struct {
	// Path is where it is in the file: "job", "[3]", "value[3]" or
	// "jobCollections[0].jobs[3]".
	Path string
	// Collection is the index in ImportFile.Collections of the bundle
	// collection that lists the job, or -1.
	Collection int
	// Subscription, ResourceGroup and CollectionName locate the job's
	// collection as its ARM id (or a name "collection/job") gives them;
	// a part the file does not give is empty. Jobs listed in a bundle
	// collection belong to it, whatever their id says.
	Subscription, ResourceGroup, CollectionName string
	// Name is the job's name: see ParseImport.
	Name string
	// Body is the job's JSON (either shape), compacted.
	Body json.RawMessage
	// Problems are those with its id or name.
	Problems []problem.Problem
	// Warnings are notes about its part of the file (a crontab's ignored
	// environment lines), reported with the job.
	Warnings []string
}

// fileProblem is the error of a file that cannot be imported at all.
func fileProblem(format string, args ...any) error {
	return &problem.List{Problems: []problem.Problem{{Path: "file", Message: fmt.Sprintf(format, args...)}}}
}

// ParseImport reads an import file (SPEC §8): a flat seed-style job, an
// ARM job, an array of either, an ARM list {"value": […]} (optionally
// with the "jobCollection" it was exported from beside it), or an export
// bundle {"jobCollections": [{…collection…, "jobs": […]}]}; or, when it
// is not JSON at all, a crontab (parseCrontab). Other
// top-level fields ("secretsOmitted", "note") are ignored, keys match
// case-insensitively, and a UTF-8 byte order mark is skipped.
//
// A job's name is, in this order: the last segment of its ARM "id"; its
// "name" ("collection/job" as the API writes it, or just "job"; a flat job
// may carry one too); else a name derived from its action URL and a hash of
// its JSON (see derivedJobName; "-2" is added for a second identical job
// in one file). Its
// collection is the bundle collection that lists it, else the one its id
// or "collection/job" name gives, else the import's target.
//
// A file over MaxImportBytes, not JSON, or of none of these shapes is
// refused before anything else with a *problem.List whose one
// problem has the path "file".
func ParseImport(data []byte) (*ImportFile, error) {
	if len(data) > MaxImportBytes {
		return nil, fileProblem("the file is %d bytes, over the maximum of %d (50 MB): split it into several imports", len(data), MaxImportBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fileProblem("is empty: give a job, an array of jobs, an ARM list {\"value\": […]} or an export bundle {\"jobCollections\": […]}")
	}
	if !looksLikeJSON(data) && !json.Valid(data) {
		return parseCrontab(data) // import_crontab.go
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fileProblem("not valid JSON: %s (at byte %d)", se.Error(), se.Offset)
		}
		return nil, fileProblem("not valid JSON")
	}
	f := &ImportFile{}
	trimmed := bytes.TrimSpace(data)
	switch trimmed[0] {
	case '[':
		f.Shape = ShapeArray
		var elems []json.RawMessage
		_ = json.Unmarshal(trimmed, &elems)
		for i, e := range elems {
			f.addJob(fmt.Sprintf("[%d]", i), -1, e)
		}
	case '{':
		top := objectFields(trimmed)
		if raw, ok := top.get("jobCollections"); ok {
			f.Shape = ShapeBundle
			var colls []json.RawMessage
			if json.Unmarshal(raw, &colls) != nil || !isArray(raw) {
				return nil, fileProblem("jobCollections must be an array of collections, not %s", kindOf(raw))
			}
			for i, c := range colls {
				if err := f.addCollection(fmt.Sprintf("jobCollections[%d]", i), c, true); err != nil {
					return nil, err
				}
			}
			break
		}
		if raw, ok := top.get("value"); ok {
			f.Shape = ShapeList
			var elems []json.RawMessage
			if json.Unmarshal(raw, &elems) != nil || !isArray(raw) {
				return nil, fileProblem("value must be an array of jobs, not %s", kindOf(raw))
			}
			coll := -1
			if c, ok := top.get("jobCollection"); ok && !isNull(c) {
				if err := f.addCollection("jobCollection", c, false); err != nil {
					return nil, err
				}
				coll = 0
			}
			for i, e := range elems {
				f.addJob(fmt.Sprintf("value[%d]", i), coll, e)
			}
			break
		}
		f.Shape = ShapeJob
		f.addJob("job", -1, trimmed)
	default:
		return nil, fileProblem("must be a job, an array of jobs, an ARM list {\"value\": […]} or an export bundle {\"jobCollections\": […]}, not %s", kindOf(trimmed))
	}
	return f, nil
}

// addCollection adds a bundle collection and, when withJobs, the jobs it
// lists.
func (f *ImportFile) addCollection(path string, raw json.RawMessage, withJobs bool) error {
	if !isObject(raw) {
		return fileProblem("%s must be a collection object, not %s", path, kindOf(raw))
	}
	obj := objectFields(raw)
	c := FileCollection{Path: path, Body: raw}
	id, idOK := obj.str("id")
	name, nameOK := obj.str("name")
	if idOK && id != "" {
		segs, ok := parseARMID(id, false)
		if !ok {
			c.Problems = append(c.Problems, problem.Problem{Path: "id", Message: fmt.Sprintf(
				"%q is not a collection id (/subscriptions/{subscription}/resourceGroups/{group}/providers/Microsoft.Scheduler/jobCollections/{collection})", id)})
		} else {
			c.Subscription, c.ResourceGroup, c.Name = segs[0], segs[1], segs[2]
			if nameOK && name != "" && !strings.EqualFold(name, c.Name) {
				c.Problems = append(c.Problems, problem.Problem{Path: "name", Message: fmt.Sprintf("%q does not match the id, which names the collection %q", name, c.Name)})
			}
		}
	} else if nameOK && name != "" {
		c.Name = name
	} else {
		c.Problems = append(c.Problems, problem.Problem{Path: "name", Message: "is required: a collection of an export bundle needs its id or its name"})
	}
	if _, present := obj.get("id"); present && !idOK {
		c.Problems = append(c.Problems, problem.Problem{Path: "id", Message: "must be a string"})
	}
	if _, present := obj.get("name"); present && !nameOK {
		c.Problems = append(c.Problems, problem.Problem{Path: "name", Message: "must be a string"})
	}
	index := len(f.Collections)
	f.Collections = append(f.Collections, c)
	if !withJobs {
		return nil
	}
	raws, ok := obj.get("jobs")
	if !ok || isNull(raws) {
		return nil
	}
	var elems []json.RawMessage
	if json.Unmarshal(raws, &elems) != nil || !isArray(raws) {
		return fileProblem("%s.jobs must be an array of jobs, not %s", path, kindOf(raws))
	}
	for i, e := range elems {
		f.addJob(fmt.Sprintf("%s.jobs[%d]", path, i), index, e)
	}
	return nil
}

// addJob adds a job and works out its name and collection.
func (f *ImportFile) addJob(path string, coll int, raw json.RawMessage) {
	j := FileJob{Path: path, Collection: coll, Body: compact(raw)}
	obj := objectFields(raw)
	id, idOK := obj.str("id")
	name, nameOK := obj.str("name")
	switch {
	case idOK && id != "":
		segs, ok := parseARMID(id, true)
		if !ok {
			j.Problems = append(j.Problems, problem.Problem{Path: "id", Message: fmt.Sprintf(
				"%q is not a job id (/subscriptions/{subscription}/resourceGroups/{group}/providers/Microsoft.Scheduler/jobCollections/{collection}/jobs/{job})", id)})
			break
		}
		j.Subscription, j.ResourceGroup, j.CollectionName, j.Name = segs[0], segs[1], segs[2], segs[3]
		if nameOK && name != "" && !strings.EqualFold(name, segs[3]) && !strings.EqualFold(name, segs[2]+"/"+segs[3]) {
			j.Problems = append(j.Problems, problem.Problem{Path: "name", Message: fmt.Sprintf("%q does not match the id, which names the job %s/%s", name, segs[2], segs[3])})
		}
	case nameOK && name != "":
		if c, n, ok := strings.Cut(name, "/"); ok {
			j.CollectionName, j.Name = c, n
		} else {
			j.Name = name
		}
	}
	if _, present := obj.get("id"); present && !idOK {
		j.Problems = append(j.Problems, problem.Problem{Path: "id", Message: "must be a string"})
	}
	if _, present := obj.get("name"); present && !nameOK {
		j.Problems = append(j.Problems, problem.Problem{Path: "name", Message: "must be a string"})
	}
	if j.Name == "" {
		j.Name = uniqueIn(derivedJobName(j.Body), f.Jobs)
	}
	if coll >= 0 {
		j.Subscription, j.ResourceGroup, j.CollectionName = "", "", ""
	}
	f.Jobs = append(f.Jobs, j)
}

// parseARMID splits a collection id (or, with job, a job id) into its
// subscription, resource group, collection (and job) names. The fixed
// segments match case-insensitively.
func parseARMID(id string, job bool) ([]string, bool) {
	segs := strings.Split(strings.TrimPrefix(strings.TrimSuffix(id, "/"), "/"), "/")
	want := []string{"subscriptions", "", "resourceGroups", "", "providers", "Microsoft.Scheduler", "jobCollections", ""}
	if job {
		want = append(want, "jobs", "")
	}
	if len(segs) != len(want) {
		return nil, false
	}
	var out []string
	for i, w := range want {
		switch {
		case w == "" && segs[i] == "":
			return nil, false
		case w == "":
			out = append(out, segs[i])
		case !strings.EqualFold(w, segs[i]):
			return nil, false
		}
	}
	return out, true
}

// fields is a JSON object's members with case-insensitive lookup.
type fields map[string]json.RawMessage

// objectFields decodes an object's members; anything else gives none.
func objectFields(raw json.RawMessage) fields {
	var m map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// get returns the member named key, matched case-insensitively (an exact
// match wins).
func (f fields) get(key string) (json.RawMessage, bool) {
	if v, ok := f[key]; ok {
		return v, true
	}
	for k, v := range f {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// str returns a string member; ok is false only when the member is there
// but not a string (absent and null give "" and true).
func (f fields) str(key string) (string, bool) {
	raw, present := f.get(key)
	if !present || isNull(raw) {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func isArray(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// kindOf names the JSON kind of raw for messages: "a string", "an array".
func kindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
