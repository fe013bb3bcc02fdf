package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/catalog/catalogtest"
)

// triggerJob is a job definition that runs after the jobs after (a JSON
// array's items) with the trigger's other fields extra.
func triggerJob(after, extra string) string {
	return `{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
		"trigger":{"after":[` + after + `]` + extra + `}}}`
}

const plainJob = `{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
	"recurrence":{"frequency":"hour"}}}`

// TestTriggerReferencesAreChecked checks that a trigger naming a job the
// workspace lacks, itself, or a job that runs after it (a cycle) is a 400
// naming trigger.after[i], that a trigger with a recurrence names trigger,
// and that nothing changes then; a valid chain is stored with its edges
// and no next run.
func TestTriggerReferencesAreChecked(t *testing.T) {
	e := newEnv(t)
	coll := catalogtest.Collection(t, e.cat, catalogtest.CollectionOpts{Name: "jc"})
	catalogtest.Job(t, e.cat, coll, catalogtest.JobOpts{Name: "A", Definition: plainJob})
	b := catalogtest.Job(t, e.cat, coll, catalogtest.JobOpts{Name: "B", Definition: triggerJob(`"rg/jc/A"`, `,"on":"finished"`)})
	if b.State != "enabled" || b.NextRunAt != nil {
		t.Fatalf("a triggered job is stored %s with next run %v", b.State, b.NextRunAt)
	}
	catalogtest.Job(t, e.cat, coll, catalogtest.JobOpts{Name: "C", Definition: triggerJob(`"RG/JC/b"`, ``)})
	var edges int
	if err := e.db.QueryRow(`SELECT count(*) FROM job_trigger_upstreams`).Scan(&edges); err != nil || edges != 2 {
		t.Fatalf("edges = %d, %v", edges, err)
	}

	before := e.fingerprint()
	for _, tc := range []struct{ name, job, body, path, want string }{
		{"unknown job", "D", triggerJob(`"rg/jc/A","rg/jc/nope"`, ``), "trigger.after[1]", "there is no job rg/jc/nope in this workspace"},
		{"unknown collection", "D", triggerJob(`"rg/other/A"`, ``), "trigger.after[0]", "there is no job rg/other/A"},
		{"itself", "C", triggerJob(`"rg/jc/C"`, ``), "trigger.after[0]", "rg/jc/C is this job: a job cannot run after itself"},
		{"itself, new", "D", triggerJob(`"rg/jc/A","rg/jc/D"`, ``), "trigger.after[1]", "rg/jc/D is this job"},
		{"cycle", "A", triggerJob(`"rg/jc/C"`, ``), "trigger.after[0]", "rg/jc/C runs after rg/jc/A: naming it would make a cycle"},
		{"with recurrence", "D", `{"properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
			"recurrence":{"frequency":"hour"},"trigger":{"after":["rg/jc/A"]}}}`, "trigger", "cannot be used with recurrence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.cat.PutJob(e.ctx, catalogtest.Actor, coll, tc.job, []byte(tc.body))
			ps := problem.As(err)
			if ps == nil {
				t.Fatalf("not refused with problems: %v", err)
			}
			if got := ps.For(tc.path); !strings.Contains(got, tc.want) {
				t.Fatalf("problem at %s = %q, want %q (all: %v)", tc.path, got, tc.want, ps)
			}
			if e.fingerprint() != before {
				t.Fatal("a refused write changed the jobs")
			}
		})
	}
	if err := e.db.QueryRow(`SELECT count(*) FROM job_trigger_upstreams`).Scan(&edges); err != nil || edges != 2 {
		t.Fatalf("edges after the refusals = %d, %v", edges, err)
	}
}

// TestDeletingAnUpstreamIsRefused checks that every delete path refuses
// (409, nothing deleted) to delete a job another job runs after, and
// deletes it once the downstream is gone or deleted with it.
func TestDeletingAnUpstreamIsRefused(t *testing.T) {
	e := newEnv(t)
	coll := catalogtest.Collection(t, e.cat, catalogtest.CollectionOpts{Name: "jc"})
	other := catalogtest.Collection(t, e.cat, catalogtest.CollectionOpts{Name: "jd"})
	a := catalogtest.Job(t, e.cat, coll, catalogtest.JobOpts{Name: "A", Definition: plainJob})
	b := catalogtest.Job(t, e.cat, other, catalogtest.JobOpts{Name: "B", Definition: triggerJob(`"rg/jc/A"`, ``)})
	before := e.fingerprint()
	refused := func(what string, err error) {
		t.Helper()
		var ce *models.ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, models.ErrConflict) {
			t.Fatalf("%s: got %v, want a ConflictError", what, err)
		}
		if !strings.Contains(ce.Message, "rg/jc/A cannot be deleted: rg/jd/B runs after it") {
			t.Fatalf("%s: message %q", what, ce.Message)
		}
		if e.fingerprint() != before {
			t.Fatalf("%s: a refused delete changed the jobs", what)
		}
	}
	refused("job delete", e.cat.DeleteJob(e.ctx, catalogtest.Actor, coll, "A"))
	refused("collection delete", e.cat.DeleteCollection(e.ctx, catalogtest.Actor, models.CollectionRef{WorkspaceID: coll.WorkspaceID, ResourceGroup: coll.ResourceGroup, Name: coll.Name}))
	_, err := e.cat.BulkJobs(e.ctx, catalogtest.Actor, catalog.BulkDelete, []models.BulkJob{
		{ID: a.ID, Name: a.Name, CollectionID: coll.ID, Collection: coll.Name, ResourceGroup: coll.ResourceGroup, WorkspaceID: coll.WorkspaceID}}, "")
	refused("bulk delete", err)

	// Deleted together, or after the downstream: allowed.
	if _, err := e.cat.BulkJobs(e.ctx, catalogtest.Actor, catalog.BulkDelete, []models.BulkJob{
		{ID: a.ID, Name: a.Name, CollectionID: coll.ID, Collection: coll.Name, ResourceGroup: coll.ResourceGroup, WorkspaceID: coll.WorkspaceID},
		{ID: b.ID, Name: b.Name, CollectionID: other.ID, Collection: other.Name, ResourceGroup: other.ResourceGroup, WorkspaceID: other.WorkspaceID}}, ""); err != nil {
		t.Fatalf("deleting the upstream with its downstream: %v", err)
	}
	var edges int
	if err := e.db.QueryRow(`SELECT count(*) FROM job_trigger_upstreams`).Scan(&edges); err != nil || edges != 0 {
		t.Fatalf("edges left = %d, %v", edges, err)
	}
}

// TestImportAndExportCarryTriggers checks that an import whose job runs
// after a job listed later in the same file is accepted (the names are
// checked against the file's jobs and the workspace's together), that an
// import naming a job neither holds is refused with nothing written, and
// that the export writes the trigger back.
func TestImportAndExportCarryTriggers(t *testing.T) {
	e := newEnv(t)
	before := e.fingerprint()
	bad := `[{"name":"report","properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
		"trigger":{"after":["rg/jc/nope"]}}}]`
	if _, err := e.catImport(bad, "rg", "jc", catalog.ImportOptions{}); problem.As(err) == nil ||
		!strings.Contains(err.Error(), "trigger.after[0]: there is no job rg/jc/nope") {
		t.Fatalf("import naming a missing job: %v", err)
	}
	if e.fingerprint() != before {
		t.Fatal("a refused import changed the jobs")
	}
	good := `[{"name":"report","properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
		"trigger":{"after":["rg/jc/extract"],"on":"failed"}}},
	  {"name":"extract","properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
		"recurrence":{"frequency":"day"}}}]`
	if rep, err := e.catImport(good, "rg", "jc", catalog.ImportOptions{}); err != nil || !rep.Applied {
		t.Fatalf("import: %v %+v", err, rep)
	}
	out, err := e.cat.ExportJob(e.ctx, ref("rg", "jc"), "report")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(compact.String(), `"trigger":{"after":["rg/jc/extract"],"on":"failed"}`) {
		t.Fatalf("export %s", out)
	}
}

// TestImportDryRunChecksTriggerNames checks that an import's dry run
// reports a trigger naming a job that neither the file nor the workspace
// holds, as the write refuses it (names compared in any case, a job of
// the file found wherever it is listed), that the summary counts that
// job invalid, and that mode valid then writes the other jobs and leaves
// it out.
func TestImportDryRunChecksTriggerNames(t *testing.T) {
	e := newEnv(t)
	coll := catalogtest.Collection(t, e.cat, catalogtest.CollectionOpts{Name: "jc"})
	catalogtest.Job(t, e.cat, coll, catalogtest.JobOpts{Name: "Stored", Definition: plainJob})
	after := func(name, upstreams string) string {
		return `{"name":"` + name + `","properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},
			"trigger":{"after":[` + upstreams + `]}}}`
	}
	file := `[` + strings.Join([]string{
		after("b", `"rg/jc/a"`),
		after("c", `"RG/JC/stored","rg/jc/nope"`),
		after("d", `"rg/jc/stored"`),
		`{"name":"a","properties":{"action":{"type":"http","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"day"}}}`,
	}, ",") + `]`
	before := e.fingerprint()
	rep, err := e.catImport(file, "rg", "jc", catalog.ImportOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if e.fingerprint() != before {
		t.Fatal("the dry run changed the jobs")
	}
	want := map[string][]string{"b": {}, "c": {"trigger.after[1]: there is no job rg/jc/nope in this workspace or the file"}, "d": {}, "a": {}}
	for _, j := range rep.Jobs {
		if strings.Join(j.Problems, "\n") != strings.Join(want[j.Name], "\n") {
			t.Errorf("job %s: problems %q, want %q", j.Name, j.Problems, want[j.Name])
		}
	}
	if s := rep.Summary; s != (catalog.ImportSummary{Jobs: 4, New: 3, Invalid: 1}) {
		t.Errorf("summary %+v", s)
	}
	rep, err = e.catImport(file, "rg", "jc", catalog.ImportOptions{Mode: "valid"})
	if err != nil || !rep.Applied || rep.Summary.Written != 3 || rep.Jobs[1].Written {
		t.Fatalf("mode valid: %v, %+v", err, rep)
	}
	for _, name := range []string{"a", "b", "d"} {
		if _, err := e.store.JobByName(e.ctx, coll.ID, name); err != nil {
			t.Errorf("job %s: %v", name, err)
		}
	}
	if _, err := e.store.JobByName(e.ctx, coll.ID, "c"); err == nil {
		t.Error("job c, whose trigger names a missing job, was written")
	}
}
