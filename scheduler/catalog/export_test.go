package catalog_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// berlinJob runs at 09:00 Berlin wall-clock time every day.
const berlinJob = `{"startTime": "2026-01-01T09:00:00", "action": {"type": "http", "request": {"uri": "https://example.com/?a=1&b=<2>", "method": "PUT",
	"headers": {"X-One": "1"}, "body": "{\"k\": \"<v>\"}"}, "retryPolicy": {"retryType": "fixed", "retryInterval": "PT1M", "retryCount": 2}},
 "recurrence": {"frequency": "day", "timeZone": "Europe/Berlin"}, "concurrency": "forbid"}`

// endedJob ended before testNow: it is stored completed.
const endedJob = `{"startTime": "2026-01-01T00:00:00Z", "action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
 "recurrence": {"frequency": "week", "endTime": "2026-02-01", "schedule": {"weekDays": ["Monday"], "hours": [8], "minutes": [0]}}}`

// seedCatalog fills e with collections in two workspaces the user is a
// member of and one that the user is not a member of.
func seedCatalog(e *env) {
	e.t.Helper()
	e.exec(`INSERT INTO workspaces (id) VALUES ('team'), ('foreign')`)
	e.exec(`INSERT INTO memberships (workspace_id, user_id) VALUES ('team', $1)`, e.user.ID)
	jc := e.putCollection("rg", "jc", `{"location": "West Europe", "tags": {"env": "prod"}, "properties": {"sku": {"name": "P20Premium"}, "quota": {"maxJobCount": 300}}}`)
	e.putJob(jc, "daily", seedJob)
	e.putJob(jc, "berlin", berlinJob)
	e.putJob(jc, "ended", endedJob)
	e.putJob(jc, "off", strings.Replace(seedJob, `"startTime"`, `"state": "disabled", "startTime"`, 1))
	e.putJob(jc, "secret", basicJob("hunter2"))
	e.putCollection("rg", "empty", `{"properties": {"sku": {"name": "Free"}, "state": "Disabled"}}`)
	team, _, err := e.cat.PutCollection(e.ctx, catalog.System("test"), models.CollectionRef{WorkspaceID: "team", ResourceGroup: "g", Name: "t"}, []byte(`{}`))
	if err != nil {
		e.t.Fatal(err)
	}
	e.putJob(team, "x", seedJob)
	if _, _, err := e.cat.PutCollection(e.ctx, catalog.System("test"), models.CollectionRef{WorkspaceID: "foreign", ResourceGroup: "g", Name: "hidden"}, []byte(`{}`)); err != nil {
		e.t.Fatal(err)
	}
}

func TestExportJobAndCollection(t *testing.T) {
	e := newEnv(t)
	seedCatalog(e)
	out, err := e.cat.ExportJob(e.ctx, ref("RG", "JC"), "BERLIN")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		ID, Type, Name string
		Properties     map[string]any
		SecretsOmitted bool
		Note           string
	}
	if err := json.Unmarshal(out, &job); err != nil {
		t.Fatal(err)
	}
	if job.ID != "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/berlin" ||
		job.Type != "Microsoft.Scheduler/jobCollections/jobs" || job.Name != "jc/berlin" || !job.SecretsOmitted || job.Note != catalog.ExportNote {
		t.Errorf("envelope: %+v", job)
	}
	if job.Properties["startTime"] != "2026-01-01T09:00:00+01:00" || job.Properties["state"] != "enabled" || job.Properties["concurrency"] != "forbid" {
		t.Errorf("properties: %v", job.Properties)
	}
	if !strings.Contains(string(out), `https://example.com/?a=1&b=<2>`) {
		t.Errorf("the export escapes HTML:\n%s", out)
	}

	out, err = e.cat.ExportJob(e.ctx, ref("rg", "jc"), "ended")
	if err != nil || !strings.Contains(string(out), `"state": "completed"`) {
		t.Errorf("a completed job exports its state: %v\n%s", err, out)
	}
	out, err = e.cat.ExportJob(e.ctx, ref("rg", "jc"), "secret")
	if err != nil || strings.Contains(string(out), "hunter2") || strings.Contains(string(out), `"password"`) {
		t.Errorf("the secret is exported: %v\n%s", err, out)
	}
	if _, err := e.cat.ExportJob(e.ctx, ref("rg", "jc"), "nope"); !errorsIsNotFound(err) {
		t.Errorf("unknown job: %v", err)
	}

	out, err = e.cat.ExportCollection(e.ctx, ref("rg", "jc"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Value []struct {
			Name string
		}
		JobCollection struct {
			ID, Name, Location string
			Properties         map[string]any
		}
		SecretsOmitted bool
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range list.Value {
		names = append(names, v.Name)
	}
	if strings.Join(names, " ") != "jc/berlin jc/daily jc/ended jc/off jc/secret" || !list.SecretsOmitted ||
		list.JobCollection.Name != "jc" || list.JobCollection.Location != "West Europe" {
		t.Errorf("collection export: %v %+v", names, list)
	}
	if strings.Contains(string(out), "hunter2") {
		t.Error("the collection export holds a secret")
	}
	out, err = e.cat.ExportCollection(e.ctx, ref("rg", "empty"))
	if err != nil || !strings.Contains(string(out), `"value": []`) {
		t.Errorf("empty collection: %v\n%s", err, out)
	}
	if _, err := e.cat.ExportCollection(e.ctx, ref("rg", "nope")); !errorsIsNotFound(err) {
		t.Errorf("unknown collection: %v", err)
	}
}

// TestExportImportRoundTrip exports everything, imports it back into the
// same database (a dry run shows every job as a replacement without
// problems; applying changes nothing that a second export would show),
// then into an empty database, which then exports the same file.
func TestExportImportRoundTrip(t *testing.T) {
	e := newEnv(t)
	seedCatalog(e)
	first, err := e.cat.ExportAll(e.ctx, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(first), "hunter2") || strings.Contains(string(first), "foreign") || strings.Contains(string(first), "hidden") {
		t.Fatalf("the export holds a secret or another workspace:\n%s", first)
	}
	var bundle struct {
		JobCollections []struct {
			ID   string
			Jobs []json.RawMessage
		}
		SecretsOmitted bool
		Note           string
	}
	if err := json.Unmarshal(first, &bundle); err != nil {
		t.Fatal(err)
	}
	if len(bundle.JobCollections) != 3 || !bundle.SecretsOmitted || bundle.Note != catalog.ExportNote {
		t.Fatalf("bundle: %d collections, %v %q", len(bundle.JobCollections), bundle.SecretsOmitted, bundle.Note)
	}

	f, err := catalog.ParseImport(first)
	if err != nil {
		t.Fatal(err)
	}
	before := e.fingerprint()
	rep, err := e.cat.Import(e.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{DryRun: true, OnConflict: "replace"})
	if err != nil {
		t.Fatal(err)
	}
	if e.fingerprint() != before {
		t.Fatal("the dry run wrote")
	}
	if len(rep.Jobs) != 6 || rep.Summary.Replace != 6 {
		t.Errorf("summary %+v", rep.Summary)
	}
	for _, j := range rep.Jobs {
		if j.Action != "replace" || len(j.Problems) > 0 || strings.Contains(strings.Join(j.Warnings, " "), "secret") {
			t.Errorf("%s/%s: %s %q %q", j.Collection, j.Name, j.Action, j.Problems, j.Warnings)
		}
	}
	for _, c := range rep.Collections {
		if c.Action != "replace" || len(c.Problems) > 0 {
			t.Errorf("collection %s: %s %q", c.Name, c.Action, c.Problems)
		}
	}
	if _, err := e.cat.Import(e.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{OnConflict: "replace"}); err != nil {
		t.Fatal(err)
	}
	second, err := e.cat.ExportAll(e.ctx, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(second) != string(first) {
		t.Errorf("re-importing an export changed it:\n%s\nthen\n%s", first, second)
	}
	jc, _ := e.store.CollectionByRef(e.ctx, ref("rg", "jc"))
	if sec, _ := e.store.JobsWithSecrets(e.ctx, jc.ID); sec["secret"].Secrets["action.request.authentication.password#basic"] != "hunter2" {
		t.Errorf("the re-import lost the kept secret: %v", sec["secret"].Secrets)
	}

	// Into an empty database.
	fresh := newEnv(t)
	fresh.exec(`INSERT INTO workspaces (id) VALUES ('team')`)
	fresh.exec(`INSERT INTO memberships (workspace_id, user_id) VALUES ('team', $1)`, fresh.user.ID)
	rep, err = fresh.cat.Import(fresh.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.New != 6 || rep.Summary.Written != 6 {
		t.Errorf("summary %+v", rep.Summary)
	}
	for _, j := range rep.Jobs {
		missing := strings.Contains(strings.Join(j.Warnings, " "), "the secret is not in the file")
		if (j.Name == "secret") != missing || (j.Name == "secret" && j.State != "disabled") {
			t.Errorf("%s: state %s, warnings %q", j.Name, j.State, j.Warnings)
		}
	}
	third, err := fresh.cat.ExportAll(fresh.ctx, fresh.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Equal but for the job whose secret the file lacked: it came in
	// disabled.
	var want, got any
	_ = json.Unmarshal(first, &want)
	_ = json.Unmarshal(third, &got)
	for _, c := range want.(map[string]any)["jobCollections"].([]any) {
		for _, j := range c.(map[string]any)["jobs"].([]any) {
			if j := j.(map[string]any); j["name"] == "jc/secret" {
				j["properties"].(map[string]any)["state"] = "disabled"
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the empty database exports\n%s\nwant the first export\n%s", third, first)
	}

	// The wall-clock job runs at the same instants as before.
	orig, _ := jobdef.Parse([]byte(berlinJob))
	jc2, _ := fresh.store.CollectionByRef(fresh.ctx, ref("rg", "jc"))
	stored, _ := fresh.store.JobByName(fresh.ctx, jc2.ID, "berlin")
	again, err := jobdef.Parse(stored.Definition)
	if err != nil {
		t.Fatal(err)
	}
	summer := time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC)
	a, _ := recurrence.Preview(orig, summer, 20)
	b, _ := recurrence.Preview(again, summer, 20)
	if !reflect.DeepEqual(fmtTimes(a.Occurrences), fmtTimes(b.Occurrences)) {
		t.Errorf("occurrences across the DST change differ:\n%v\n%v", fmtTimes(a.Occurrences), fmtTimes(b.Occurrences))
	}
}

// TestExportedCollectionImportsWithItsSettings imports the list export of
// a collection into an empty database: the collection comes back with
// its sku and quota.
func TestExportedCollectionImportsWithItsSettings(t *testing.T) {
	e := newEnv(t)
	seedCatalog(e)
	out, err := e.cat.ExportCollection(e.ctx, ref("rg", "jc"))
	if err != nil {
		t.Fatal(err)
	}
	fresh := newEnv(t)
	f, err := catalog.ParseImport(out)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := fresh.cat.Import(fresh.ctx, catalog.System("test"), "", models.CollectionRef{}, f, catalog.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	coll, err := fresh.store.CollectionByRef(fresh.ctx, ref("rg", "jc"))
	if err != nil || coll.SKU != "P20Premium" || coll.MaxJobCount == nil || *coll.MaxJobCount != 300 || rep.Summary.Written != 5 {
		t.Fatalf("collection %+v, %v, summary %+v", coll, err, rep.Summary)
	}
	again, err := fresh.cat.ExportCollection(fresh.ctx, ref("rg", "jc"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(again), `"state": "disabled"`); n != 2 {
		t.Errorf("%d disabled jobs after the import, want 2 (off, and secret without its password)", n)
	}
}

func fmtTimes(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.UTC().Format(time.RFC3339)
	}
	return out
}

func errorsIsNotFound(err error) bool { return errors.Is(err, models.ErrNotFound) }

func TestExportKeepsBodiesExactly(t *testing.T) {
	e := newEnv(t)
	jc := e.putCollection("rg", "jc", `{}`)
	body := `<a href="x?y=1&z=2">\u003c` + "\u00e9\u2028\t\"" + `</a>`
	raw, _ := json.Marshal(body)
	e.putJob(jc, "j", `{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "POST", "body": `+string(raw)+`}}}`)
	out, err := e.cat.ExportJob(e.ctx, ref("rg", "jc"), "j")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Properties struct {
			Action struct {
				Request struct{ Body string }
			}
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Properties.Action.Request.Body != body {
		t.Errorf("body %q, want %q", got.Properties.Action.Request.Body, body)
	}
	if !strings.Contains(string(out), `<a href=\"x?y=1&z=2\">\\u003c`) {
		t.Errorf("the body is not readable in the export:\n%s", out)
	}
}
