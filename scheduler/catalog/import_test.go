package catalog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// basicJob is an hourly job with basic authentication (a secret).
func basicJob(password string) string {
	pw := ""
	if password != "" {
		pw = `, "password": "` + password + `"`
	}
	return `{"action": {"type": "http", "request": {"uri": "https://example.com/hook", "method": "POST", "body": "<x/>",
		"authentication": {"type": "basic", "username": "u"` + pw + `}}},
	 "recurrence": {"frequency": "hour", "interval": 2}}`
}

// badJob has two problems.
const badJob = `{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
 "recurrence": {"frequency": "minute", "interval": 2000, "schedule": {"weekDays": ["monday"]}}}`

var badJobProblems = []string{
	`recurrence.interval: 2000 is over the maximum of 1000 for frequency "minute"`,
	`recurrence.schedule.weekDays: can only be used with frequency "week"`,
}

// named gives a flat job a name.
func named(name, job string) string { return `{"name": "` + name + `", ` + strings.TrimSpace(job)[1:] }

func TestImportDryRunReportsEveryJobAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	jc := e.putCollection("rg", "jc", `{"properties": {"sku": {"name": "Standard"}}}`)
	e.putJob(jc, "Existing", seedJob)
	e.putJob(jc, "secret", basicJob("hunter2"))
	before := e.fingerprint()
	file := "[" + strings.Join([]string{
		named("fresh", seedJob),
		named("existing", seedJob),
		named("broken", badJob),
		named("secret", basicJob("")),
		named("nosecret", basicJob("")),
		named("bad name!", seedJob),
		named("fresh", seedJob),
	}, ",") + "]"
	var progress []string
	rep, err := e.importFile(file, catalog.ImportOptions{DryRun: true, PreviewCount: 2,
		Progress: func(done, total int) { progress = append(progress, fmt.Sprintf("%d/%d", done, total)) }})
	if err != nil {
		t.Fatal(err)
	}
	if e.fingerprint() != before {
		t.Fatal("the dry run changed the database")
	}
	if rep.Applied || !rep.DryRun || rep.Mode != "all" || rep.OnConflict != "replace" {
		t.Errorf("report header: %+v", rep)
	}
	if got := strings.Join(progress, " "); got != "1/7 2/7 3/7 4/7 5/7 6/7 7/7" {
		t.Errorf("progress %s", got)
	}
	type row struct {
		name, action string
		problems     []string
	}
	want := []row{
		{"fresh", "new", nil},
		{"Existing", "replace", nil},
		{"broken", "new", badJobProblems},
		{"secret", "replace", nil},
		{"nosecret", "new", nil},
		{"bad name!", "new", []string{`name: "bad name!" is not a job name (a letter or digit, then up to 99 letters, digits, '-' or '_')`}},
		{"fresh", "new", []string{`name: the job "fresh" is in the file twice for collection jc (first at [0])`}},
	}
	if len(rep.Jobs) != len(want) {
		t.Fatalf("%d jobs reported, want %d", len(rep.Jobs), len(want))
	}
	for i, w := range want {
		j := rep.Jobs[i]
		if j.Name != w.name || j.Action != w.action || fmt.Sprint(j.Problems) != fmt.Sprint(append([]string{}, w.problems...)) {
			t.Errorf("job %d: %s %s %q, want %s %s %q", i, j.Name, j.Action, j.Problems, w.name, w.action, w.problems)
		}
		if j.Subscription != "default" || j.ResourceGroup != "rg" || j.Collection != "jc" || j.Written {
			t.Errorf("job %d: in %s/%s/%s, written %v", i, j.Subscription, j.ResourceGroup, j.Collection, j.Written)
		}
	}
	job, _ := jobdef.Parse([]byte(seedJob))
	pre, _ := recurrence.Preview(job, testNow, 2)
	fresh := rep.Jobs[0]
	if fresh.Description != pre.Description || fresh.Description == "" || len(fresh.NextOccurrences) != 2 ||
		fresh.NextOccurrences[0] != "2026-11-21T17:15:00Z" || fresh.NextOccurrences[1] != "2026-11-22T05:15:00Z" || fresh.State != "enabled" {
		t.Errorf("fresh: %q %v %s; want %q", fresh.Description, fresh.NextOccurrences, fresh.State, pre.Description)
	}
	// A replacing job that leaves its secret out keeps the stored one; a new
	// one is imported disabled with a warning.
	if s := rep.Jobs[3]; s.State != "enabled" || len(s.Warnings) != 0 {
		t.Errorf("replaced secret job: state %s, warnings %q", s.State, s.Warnings)
	}
	if s := rep.Jobs[4]; s.State != "disabled" || len(s.Warnings) < 1 ||
		!strings.HasPrefix(s.Warnings[0], "action.request.authentication.password: the secret is not in the file") {
		t.Errorf("new job without its secret: state %s, warnings %q", s.State, s.Warnings)
	}
	if s := rep.Summary; s != (catalog.ImportSummary{Jobs: 7, New: 2, Replace: 2, Invalid: 3}) {
		t.Errorf("summary %+v", s)
	}
	if len(rep.Collections) != 1 || rep.Collections[0].Action != "skip" || rep.Collections[0].Name != "jc" {
		t.Errorf("collections %+v", rep.Collections)
	}
}

func TestImportModeAllWritesAllOrNothing(t *testing.T) {
	e := newEnv(t)
	before := e.fingerprint()
	file := `{"value": [` + named("a", seedJob) + `, ` + named("b", badJob) + `, ` + named("c", seedJob) + `]}`
	rep, err := e.importFile(file, catalog.ImportOptions{})
	ve := problem.As(err)
	if ve == nil {
		t.Fatalf("an invalid job in mode all: %v, want a *problem.List", err)
	}
	want := "value[1].recurrence.interval: 2000 is over the maximum of 1000 for frequency \"minute\"\n" +
		"value[1].recurrence.schedule.weekDays: can only be used with frequency \"week\""
	if ve.Error() != want {
		t.Errorf("error:\n%s\nwant\n%s", ve.Error(), want)
	}
	if rep == nil || rep.Applied || rep.Summary.Written != 0 || rep.Summary.Invalid != 1 {
		t.Errorf("report %+v", rep)
	}
	if e.fingerprint() != before {
		t.Fatal("a refused import changed the database (the collection rg/jc must not be created either)")
	}

	file = `{"value": [` + named("a", seedJob) + `, ` + named("c", seedJob) + `]}`
	rep, err = e.importFile(file, catalog.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Applied || rep.Summary.Written != 2 || !rep.Jobs[0].Written || rep.Collections[0].Action != "new" || !rep.Collections[0].Written {
		t.Errorf("report %+v", rep)
	}
	coll, err := e.store.CollectionByRef(e.ctx, ref("rg", "jc"))
	if err != nil || coll.SKU != models.SKUStandard {
		t.Fatalf("target collection: %+v, %v", coll, err)
	}
	j, err := e.store.JobByName(e.ctx, coll.ID, "a")
	if err != nil || j.State != "enabled" {
		t.Fatalf("job a: %+v, %v", j, err)
	}
	want2, _ := jobdef.Parse([]byte(seedJob))
	if string(j.Definition) != string(want2.MarshalProperties(jobdef.MarshalOptions{})) {
		t.Errorf("stored %s", j.Definition)
	}
}

func TestImportModeValidWritesTheValidJobs(t *testing.T) {
	e := newEnv(t)
	file := "[" + named("a", seedJob) + ", " + named("b", badJob) + ", " + named("c", seedJob) + "]"
	rep, err := e.importFile(file, catalog.ImportOptions{Mode: "valid"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Applied || rep.Summary.Written != 2 || rep.Summary.Invalid != 1 || rep.Jobs[1].Written || !rep.Jobs[2].Written {
		t.Errorf("report %+v", rep.Summary)
	}
	if n := e.count(); n != 2 {
		t.Errorf("%d jobs stored, want 2", n)
	}
	// Nothing valid: nothing written, not even the collection.
	before := e.fingerprint()
	rep, err = e.catImport(`[`+badJob+`]`, "rg2", "jc2", catalog.ImportOptions{Mode: "valid"})
	if err != nil || rep.Applied || e.fingerprint() != before {
		t.Errorf("only invalid jobs in mode valid: %v, applied %v", err, rep.Applied)
	}
}

// catImport imports into the default workspace, target group/name.
func (e *env) catImport(data, group, name string, opts catalog.ImportOptions) (*catalog.ImportReport, error) {
	e.t.Helper()
	f, err := catalog.ParseImport([]byte(data))
	if err != nil {
		e.t.Fatal(err)
	}
	return e.cat.Import(e.ctx, catalog.System("test"), "", ref(group, name), f, opts)
}

func TestImportOnConflictSkipOrReplace(t *testing.T) {
	e := newEnv(t)
	jc := e.putCollection("rg", "jc", `{}`)
	e.putJob(jc, "a", seedJob)
	disabled := named("A", strings.Replace(seedJob, `"startTime"`, `"state": "disabled", "startTime"`, 1))
	before := e.fingerprint()
	rep, err := e.importFile("["+disabled+", "+named("b", seedJob)+"]", catalog.ImportOptions{OnConflict: "skip"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Jobs[0].Action != "skip" || rep.Jobs[0].Written || rep.Jobs[1].Action != "new" || !rep.Jobs[1].Written ||
		rep.Summary != (catalog.ImportSummary{Jobs: 2, New: 1, Skip: 1, Written: 1}) {
		t.Errorf("skip: %+v", rep)
	}
	if a, _ := e.store.JobByName(e.ctx, jc.ID, "a"); a.State != "enabled" {
		t.Errorf("a skipped job changed: %s", a.State)
	}
	if e.fingerprint() == before {
		t.Error("b was not written")
	}
	rep, err = e.importFile("["+disabled+"]", catalog.ImportOptions{OnConflict: "REPLACE"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Jobs[0].Action != "replace" || rep.Jobs[0].Name != "a" || !rep.Jobs[0].Written {
		t.Errorf("replace: %+v", rep.Jobs[0])
	}
	if a, _ := e.store.JobByName(e.ctx, jc.ID, "a"); a.State != "disabled" || a.Name != "a" {
		t.Errorf("the replaced job: %s %s", a.Name, a.State)
	}
}

func TestImportOptionsAreChecked(t *testing.T) {
	e := newEnv(t)
	f, _ := catalog.ParseImport([]byte(seedJob))
	_, err := e.cat.Import(e.ctx, catalog.System("test"), "", ref("rg", "jc"), f, catalog.ImportOptions{Mode: "most", OnConflict: "merge", PreviewCount: 101})
	want := "mode: \"most\" is not one of all, valid\nonConflict: \"merge\" is not one of skip, replace\npreviewCount: 101 is not from 1 to 100"
	if err == nil || err.Error() != want {
		t.Errorf("bad options: %v", err)
	}
}

func TestImportKeepsTheJobQuota(t *testing.T) {
	e := newEnv(t)
	free := e.putCollection("rg", "jc", `{"properties": {"sku": {"name": "Free"}}}`)
	hourly := `{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}}, "recurrence": {"frequency": "hour"}}`
	for i := range 3 {
		e.putJob(free, fmt.Sprintf("old%d", i), hourly)
	}
	var jobs []string
	for i := range 4 {
		jobs = append(jobs, named(fmt.Sprintf("new%d", i), hourly))
	}
	often := strings.Replace(hourly, `"hour"`, `"minute", "interval": 5`, 1)
	jobs = append(jobs, named("old1", hourly), named("often", often))
	file := "[" + strings.Join(jobs, ",") + "]"
	before := e.fingerprint()
	rep, err := e.importFile(file, catalog.ImportOptions{})
	var ve *problem.List
	if !errors.As(err, &ve) || len(ve.Problems) != 3 {
		t.Fatalf("over the quota in mode all: %v", err)
	}
	if e.fingerprint() != before {
		t.Fatal("a refused import changed the database")
	}
	quota := "maxJobCount: the collection jc would hold more than its quota maxJobCount of 5 jobs"
	if fmt.Sprint(rep.Jobs[2].Problems) != "["+quota+"]" || len(rep.Jobs[1].Problems) != 0 || len(rep.Jobs[4].Problems) != 0 {
		t.Errorf("quota problems: %q / %q / %q", rep.Jobs[1].Problems, rep.Jobs[2].Problems, rep.Jobs[4].Problems)
	}
	if p := rep.Jobs[5].Problems; len(p) != 1 || !strings.HasPrefix(p[0], "maxRecurrence: ") {
		t.Errorf("a job more frequent than the quota: %q", p)
	}
	rep, err = e.importFile(file, catalog.ImportOptions{Mode: "valid"})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := e.store.CountJobs(e.ctx, free.ID); n != 5 || rep.Summary.Written != 3 {
		t.Errorf("mode valid: %d jobs in the collection, %d written; want 5 and 3 (2 new, 1 replaced)", n, rep.Summary.Written)
	}
}

func TestImportBundleCreatesCollectionsWithTheirSettings(t *testing.T) {
	e := newEnv(t)
	existing := e.putCollection("ops", "kept", `{"location": "North Europe", "properties": {"sku": {"name": "P10Premium"}}}`)
	file := `{"jobCollections": [
		{"id": "/subscriptions/default/resourceGroups/prod/providers/Microsoft.Scheduler/jobCollections/premium",
		 "location": "West Europe", "tags": {"team": "a"},
		 "properties": {"sku": {"name": "P20Premium"}, "state": "Disabled", "quota": {"maxJobCount": 200, "maxRecurrence": {"frequency": "minute", "interval": 5}}},
		 "jobs": [` + named("a", seedJob) + `]},
		{"name": "empty", "properties": {"sku": {"name": "Free"}}},
		{"id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/KEPT", "properties": {"sku": {"name": "Standard"}}, "jobs": []},
		{"name": "broken", "properties": {"sku": {"name": "Gold"}}, "jobs": [` + seedJob + `]}
	]}`
	rep, err := e.importFile(file, catalog.ImportOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Collections {
		got = append(got, fmt.Sprintf("%s %s/%s/%s %s %q", c.Path, c.Subscription, c.ResourceGroup, c.Name, c.Action, c.Problems))
	}
	want := []string{
		`jobCollections[0] default/prod/premium new []`,
		`jobCollections[1] default/rg/empty new []`,
		`jobCollections[2] default/ops/kept replace []`,
		`jobCollections[3] default/rg/broken new ["properties.sku.name: \"Gold\" is not one of Free, Standard, P10Premium, P20Premium"]`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("collections\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := rep.Jobs[1].Problems; len(p) != 1 || !strings.HasPrefix(p[0], "jobCollection: the collection jobCollections[3] cannot be imported: properties.sku.name") {
		t.Errorf("job of the broken collection: %q", p)
	}
	_, err = e.importFile(file, catalog.ImportOptions{})
	if err == nil || err.Error() != `jobCollections[3].properties.sku.name: "Gold" is not one of Free, Standard, P10Premium, P20Premium` {
		t.Errorf("mode all with a broken collection: %v", err)
	}
	rep, err = e.importFile(file, catalog.ImportOptions{Mode: "valid"})
	if err != nil {
		t.Fatal(err)
	}
	prem, err := e.store.CollectionByRef(e.ctx, ref("prod", "premium"))
	if err != nil || prem.SKU != "P20Premium" || prem.State != "Disabled" || prem.Location != "West Europe" ||
		*prem.MaxJobCount != 200 || *prem.MaxRecurrenceInterval != 5 || string(prem.Tags) != `{"team": "a"}` {
		t.Errorf("premium: %+v, %v", prem, err)
	}
	if empty, err := e.store.CollectionByRef(e.ctx, ref("rg", "empty")); err != nil || empty.SKU != "Free" {
		t.Errorf("an empty bundle collection is created too: %+v, %v", empty, err)
	}
	if kept, _ := e.store.CollectionByRef(e.ctx, ref("ops", "kept")); kept.SKU != "Standard" || kept.ID != existing.ID || kept.Name != "kept" {
		t.Errorf("replaced settings: %+v", kept)
	}
	if _, err := e.store.CollectionByRef(e.ctx, ref("rg", "broken")); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("the broken collection was created: %v", err)
	}
	// With onConflict skip an existing collection keeps its settings.
	if _, err := e.importFile(`{"jobCollections": [{"id": "/subscriptions/default/resourceGroups/ops/providers/Microsoft.Scheduler/jobCollections/kept", "properties": {"sku": {"name": "Free"}}}]}`,
		catalog.ImportOptions{OnConflict: "skip"}); err != nil {
		t.Fatal(err)
	}
	if kept, _ := e.store.CollectionByRef(e.ctx, ref("ops", "kept")); kept.SKU != "Standard" {
		t.Errorf("skip changed the collection: %s", kept.SKU)
	}
}

func TestImportLocatesJobs(t *testing.T) {
	e := newEnv(t)
	e.exec(`INSERT INTO workspaces (id) VALUES ('Team')`)
	file := `[` + armJob(`"id": "/subscriptions/team/resourceGroups/g/providers/Microsoft.Scheduler/jobCollections/c/jobs/j"`) + `, ` +
		armJob(`"name": "other/k"`) + `, ` + seedJob + `, ` +
		armJob(`"id": "/subscriptions/nowhere/resourceGroups/g/providers/Microsoft.Scheduler/jobCollections/c/jobs/j"`) + `]`
	f, err := catalog.ParseImport([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.cat.Import(e.ctx, catalog.System("test"), "", ref("rg", "jc"), f, catalog.ImportOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range rep.Jobs {
		got = append(got, fmt.Sprintf("%s/%s/%s/%s %q", j.Subscription, j.ResourceGroup, j.Collection, j.Name, j.Problems))
	}
	want := []string{
		`Team/g/c/j []`,
		`default/rg/other/k []`,
		`default/rg/jc/example-com-a05352 []`,
		`nowhere/g/c/j ["jobCollection: the collection c cannot be imported: subscription: the workspace \"nowhere\" does not exist"]`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("locations\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A forced workspace takes everything; without a target, unnamed jobs
	// have no collection.
	rep, err = e.cat.Import(e.ctx, catalog.System("test"), "team", models.CollectionRef{}, f, catalog.ImportOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, j := range rep.Jobs {
		got = append(got, fmt.Sprintf("%s/%s/%s/%s %q", j.Subscription, j.ResourceGroup, j.Collection, j.Name, j.Problems))
	}
	want = []string{
		`Team/g/c/j []`,
		`///k ["jobCollection: the job does not name its collection (it has no ARM id): choose the collection to import into"]`,
		`///example-com-a05352 ["jobCollection: the job does not name its collection (it has no ARM id): choose the collection to import into"]`,
		`Team/g/c/j ["name: the job \"j\" is in the file twice for collection c (first at [0])"]`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("forced workspace\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestImportReportJSON(t *testing.T) {
	e := newEnv(t)
	rep, err := e.importFile(seedJob, catalog.ImportOptions{DryRun: true, PreviewCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(rep)
	for _, want := range []string{`"dryRun":true`, `"summary":{"jobs":1,"new":1,"replace":0,"skip":0,"invalid":0,"written":0}`,
		`"action":"new"`, `"problems":[]`, `"nextOccurrences":["2026-11-21T17:15:00Z"]`, `"jobCollection":"jc"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("report JSON lacks %s:\n%s", want, out)
		}
	}
}
