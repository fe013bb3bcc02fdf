package catalog_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// seedJob is a flat, seed-style job.
const seedJob = `{"startTime": "2026-03-01T00:00:00Z",
 "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
 "recurrence": {"frequency": "day", "schedule": {"hours": [5, 17], "minutes": [15]}}}`

const jobID = "/subscriptions/default/resourceGroups/Prod/providers/Microsoft.Scheduler/jobCollections/nightly/jobs/"

// armJob is seedJob in the ARM shape with the given envelope fields.
func armJob(envelope string) string {
	if envelope != "" {
		envelope += ", "
	}
	return `{` + envelope + `"properties": ` + seedJob + `}`
}

func TestParseImportAcceptsEveryShape(t *testing.T) {
	type job struct{ path, sub, group, coll, name string }
	cases := []struct {
		name, file, shape string
		colls             []string // "path sub/group/name"
		jobs              []job
	}{
		{"flat job", seedJob, catalog.ShapeJob, nil, []job{{"job", "", "", "", "example-com-a05352"}}},
		{"flat job with a name", `{"name": "nightly", ` + seedJob[1:], catalog.ShapeJob, nil, []job{{"job", "", "", "", "nightly"}}},
		{"ARM job with an id", armJob(`"id": "` + jobID + `backup", "name": "nightly/backup", "type": "Microsoft.Scheduler/jobCollections/jobs"`),
			catalog.ShapeJob, nil, []job{{"job", "default", "Prod", "nightly", "backup"}}},
		{"ARM job, id with other casing", armJob(`"id": "/SUBSCRIPTIONS/ws/RESOURCEGROUPS/g/PROVIDERS/microsoft.scheduler/JOBCOLLECTIONS/c/JOBS/j/"`),
			catalog.ShapeJob, nil, []job{{"job", "ws", "g", "c", "j"}}},
		{"ARM job named collection/job", armJob(`"name": "nightly/backup"`), catalog.ShapeJob, nil, []job{{"job", "", "", "nightly", "backup"}}},
		{"ARM job without envelope", armJob(""), catalog.ShapeJob, nil, []job{{"job", "", "", "", "example-com-a15797"}}},
		{"array of both", "[" + seedJob + ", " + armJob(`"name": "x"`) + ", " + seedJob + "]", catalog.ShapeArray, nil,
			[]job{{"[0]", "", "", "", "example-com-a05352"}, {"[1]", "", "", "", "x"}, {"[2]", "", "", "", "example-com-a05352-2"}}},
		{"empty array", "[]", catalog.ShapeArray, nil, nil},
		{"ARM list", `{"value": [` + armJob(`"id": "`+jobID+`a"`) + `, ` + seedJob + `], "nextLink": null}`, catalog.ShapeList, nil,
			[]job{{"value[0]", "default", "Prod", "nightly", "a"}, {"value[1]", "", "", "", "example-com-a05352"}}},
		{"ARM list with its collection", `{"Value": [` + armJob(`"id": "`+jobID+`a"`) + `], "jobCollection": {"id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Scheduler/jobCollections/c"}}`,
			catalog.ShapeList, []string{"jobCollection s/g/c"}, []job{{"value[0]", "", "", "", "a"}}},
		{"export bundle", `{"jobCollections": [
			{"id": "/subscriptions/default/resourceGroups/Prod/providers/Microsoft.Scheduler/jobCollections/nightly", "name": "nightly",
			 "properties": {"sku": {"name": "Free"}}, "jobs": [` + armJob(`"id": "`+jobID+`a"`) + `, ` + seedJob + `]},
			{"name": "empty", "jobs": []},
			{"name": "nojobs"}], "secretsOmitted": true, "note": "…"}`,
			catalog.ShapeBundle, []string{"jobCollections[0] default/Prod/nightly", "jobCollections[1] //empty", "jobCollections[2] //nojobs"},
			[]job{{"jobCollections[0].jobs[0]", "", "", "", "a"}, {"jobCollections[0].jobs[1]", "", "", "", "example-com-a05352"}}},
		{"byte order mark", "\xef\xbb\xbf" + seedJob, catalog.ShapeJob, nil, []job{{"job", "", "", "", "example-com-a05352"}}},
	}
	for _, tc := range cases {
		f, err := catalog.ParseImport([]byte(tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if f.Shape != tc.shape {
			t.Errorf("%s: shape %q, want %q", tc.name, f.Shape, tc.shape)
		}
		var colls []string
		for _, c := range f.Collections {
			colls = append(colls, fmt.Sprintf("%s %s/%s/%s", c.Path, c.Subscription, c.ResourceGroup, c.Name))
			if len(c.Problems) > 0 {
				t.Errorf("%s: collection problems %v", tc.name, c.Problems)
			}
		}
		if fmt.Sprint(colls) != fmt.Sprint(tc.colls) {
			t.Errorf("%s: collections %v, want %v", tc.name, colls, tc.colls)
		}
		var jobs []job
		for _, j := range f.Jobs {
			jobs = append(jobs, job{j.Path, j.Subscription, j.ResourceGroup, j.CollectionName, j.Name})
			if len(j.Problems) > 0 {
				t.Errorf("%s: %s: problems %v", tc.name, j.Path, j.Problems)
			}
			if _, err := jobdef.Parse(j.Body); err != nil {
				t.Errorf("%s: %s: the body does not parse: %v", tc.name, j.Path, err)
			}
		}
		if fmt.Sprint(jobs) != fmt.Sprint(tc.jobs) {
			t.Errorf("%s: jobs\n%v, want\n%v", tc.name, jobs, tc.jobs)
		}
	}
}

func TestParseImportReportsBadIDsAndNamesPerJob(t *testing.T) {
	f, err := catalog.ParseImport([]byte(`[` +
		armJob(`"id": "/subscriptions/x/jobs/y"`) + `,` +
		armJob(`"id": "`+jobID+`a", "name": "nightly/b"`) + `,` +
		armJob(`"name": 7`) + `,` +
		`"not a job"]`))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{`id: "/subscriptions/x/jobs/y" is not a job id (/subscriptions/{subscription}/resourceGroups/{group}/providers/Microsoft.Scheduler/jobCollections/{collection}/jobs/{job})`},
		{`name: "nightly/b" does not match the id, which names the job nightly/a`},
		{`name: must be a string`},
		nil,
	}
	for i, j := range f.Jobs {
		var got []string
		for _, p := range j.Problems {
			got = append(got, p.String())
		}
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("job %d: problems %q, want %q", i, got, want[i])
		}
	}
	if f.Jobs[2].Name != "example-com-f1a082" || f.Jobs[3].Name != "job-eba204" {
		t.Errorf("names %q %q, want example-com-f1a082 job-eba204 (derived)", f.Jobs[2].Name, f.Jobs[3].Name)
	}
	f, err = catalog.ParseImport([]byte(`{"jobCollections": [{"properties": {}}, {"id": "/nope", "name": "x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Collections) != 2 || len(f.Collections[0].Problems) != 1 || f.Collections[0].Problems[0].String() != "name: is required: a collection of an export bundle needs its id or its name" ||
		len(f.Collections[1].Problems) != 1 || !strings.HasPrefix(f.Collections[1].Problems[0].String(), `id: "/nope" is not a collection id`) {
		t.Errorf("collection problems: %+v", f.Collections)
	}
}

func TestParseImportRefusesBadFiles(t *testing.T) {
	big := bytes.Repeat([]byte(" "), catalog.MaxImportBytes+1)
	big[0] = '['
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", []byte(" \n"), `file: is empty: give a job, an array of jobs, an ARM list {"value": […]} or an export bundle {"jobCollections": […]}`},
		{"not JSON", []byte(`{"startTime": `), "file: not valid JSON: unexpected end of JSON input (at byte 14)"},
		{"not JSON at byte", []byte(`[{"a": 1},, ]`), "file: not valid JSON: invalid character ',' looking for beginning of value (at byte 11)"},
		{"trailing garbage", []byte(`{} {}`), "file: not valid JSON: invalid character '{' after top-level value (at byte 4)"},
		{"a string", []byte(`"job"`), `file: must be a job, an array of jobs, an ARM list {"value": […]} or an export bundle {"jobCollections": […]}, not a string`},
		{"a number", []byte(`42`), "file: must be a job, an array of jobs, an ARM list {\"value\": […]} or an export bundle {\"jobCollections\": […]}, not a number"},
		{"value not an array", []byte(`{"value": {"a": 1}}`), "file: value must be an array of jobs, not an object"},
		{"jobCollections not an array", []byte(`{"jobCollections": 3}`), "file: jobCollections must be an array of collections, not a number"},
		{"collection not an object", []byte(`{"jobCollections": ["x"]}`), "file: jobCollections[0] must be a collection object, not a string"},
		{"jobs not an array", []byte(`{"jobCollections": [{"name": "c", "jobs": {}}]}`), "file: jobCollections[0].jobs must be an array of jobs, not an object"},
		{"list collection not an object", []byte(`{"value": [], "jobCollection": []}`), "file: jobCollection must be a collection object, not an array"},
		{"over 50 MB", big, "file: the file is 52428801 bytes, over the maximum of 52428800 (50 MB): split it into several imports"},
	}
	for _, tc := range cases {
		f, err := catalog.ParseImport(tc.file)
		ve := problem.As(err)
		if f != nil || ve == nil || len(ve.Problems) != 1 || ve.Problems[0].Path != "file" {
			t.Errorf("%s: %v, %v; want one problem with the path file", tc.name, f, err)
			continue
		}
		if ve.Error() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, ve.Error(), tc.want)
		}
	}
}

func TestImportFileWorkspaces(t *testing.T) {
	f, err := catalog.ParseImport([]byte(`[` + armJob(`"id": "/subscriptions/Team/resourceGroups/g/providers/Microsoft.Scheduler/jobCollections/c/jobs/j"`) +
		`, ` + seedJob + `, ` + armJob(`"id": "`+jobID+`a"`) + `]`))
	if err != nil {
		t.Fatal(err)
	}
	target := models.CollectionRef{ResourceGroup: "rg", Name: "jc"}
	if got := fmt.Sprint(f.Workspaces("", target)); got != "[Team default]" {
		t.Errorf("Workspaces without a forced workspace = %s", got)
	}
	target.WorkspaceID = "mine"
	if got := fmt.Sprint(f.Workspaces("", target)); got != "[Team mine default]" {
		t.Errorf("Workspaces with target mine = %s", got)
	}
	if got := fmt.Sprint(f.Workspaces("forced", target)); got != "[forced]" {
		t.Errorf("Workspaces forced = %s", got)
	}
}

// TestDerivedJobNames checks that nameless jobs of different files get
// different names, and the same job the same name.
func TestDerivedJobNames(t *testing.T) {
	other := strings.Replace(seedJob, "https://example.com/", "https://api.example.org/v1/Reports?x=1", 1)
	names := map[string]string{}
	for _, file := range []string{seedJob, other, strings.Replace(seedJob, `"hours": [5, 17]`, `"hours": [6]`, 1),
		`{"action": {"type": "http", "request": {"uri": "not a url", "method": "GET"}}}`} {
		f, err := catalog.ParseImport([]byte(file))
		if err != nil {
			t.Fatal(err)
		}
		n := f.Jobs[0].Name
		if prev, dup := names[n]; dup {
			t.Errorf("%s and %s both named %q", prev, file, n)
		}
		names[n] = file
	}
	if _, ok := names["api-example-org-v1-reports-"+strings.Split(firstName(t, other), "-reports-")[1]]; !ok {
		t.Errorf("names %v lack the host and path of %s", names, other)
	}
	if firstName(t, seedJob) != firstName(t, seedJob) {
		t.Error("the same job gets two names")
	}
}

func firstName(t *testing.T, file string) string {
	f, err := catalog.ParseImport([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	return f.Jobs[0].Name
}
