package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// bulkOf is the bulk selection of jobs of coll.
func bulkOf(coll *models.CollectionRow, jobs ...*models.Job) []models.BulkJob {
	var out []models.BulkJob
	for _, j := range jobs {
		out = append(out, models.BulkJob{ID: j.ID, Name: j.Name, State: j.State, CollectionID: coll.ID,
			Collection: coll.Name, ResourceGroup: coll.ResourceGroup, WorkspaceID: coll.WorkspaceID})
	}
	return out
}

func TestBulkJobsDisablesWithANoteAndReportsEachJob(t *testing.T) {
	e := newEnv(t)
	cat := e.cat.WithRunner(runner{e.store})
	var changes []catalog.Change
	catalog.SetOnChange(cat, func(_ context.Context, _ catalog.Actor, ch catalog.Change) { changes = append(changes, ch) })
	coll := e.putCollection("rg", "jc", `{}`)
	a, b := e.putJob(coll, "a", basicJob("pw")), e.putJob(coll, "b", basicJob("pw"))
	done := e.putJob(coll, "done", basicJob("pw"))
	e.exec(`UPDATE jobs SET state = 'completed', ended_at = now(), next_run_at = NULL, needs_schedule = false WHERE id = $1`, done.ID)
	actor := catalog.Actor{UserID: e.user.ID, UserName: "alice"}
	res, err := cat.BulkJobs(e.ctx, actor, catalog.BulkDisable, bulkOf(coll, a, b, done), "  waiting for the vendor ")
	if err != nil {
		t.Fatal(err)
	}
	if res.Count(catalog.OutcomeDisabled) != 2 || res.Count(catalog.OutcomeAlreadyCompleted) != 1 || len(changes) != 2 {
		t.Errorf("result %+v with %d changes, want 2 disabled, 1 already completed, 2 changes", res.Items, len(changes))
	}
	j, err := e.store.JobByName(e.ctx, coll.ID, "b")
	if err != nil {
		t.Fatal(err)
	}
	if j.State != jobdef.Disabled || j.StateNote != "waiting for the vendor" || j.StateChangedBy != "alice" || !j.StateChangedAt.Equal(testNow) {
		t.Errorf("b = %s %q by %q at %v", j.State, j.StateNote, j.StateChangedBy, j.StateChangedAt)
	}

	// Run now: the disabled jobs are not run; enable then run starts them.
	res, err = cat.BulkJobs(e.ctx, actor, catalog.BulkRun, bulkOf(coll, a, b), "")
	if err != nil || res.Count(catalog.OutcomeNotEnabled) != 2 {
		t.Fatalf("run disabled = %+v, %v", res, err)
	}
	if _, err := cat.BulkJobs(e.ctx, actor, catalog.BulkEnable, bulkOf(coll, a, b), ""); err != nil {
		t.Fatal(err)
	}
	res, err = cat.BulkJobs(e.ctx, actor, catalog.BulkRun, bulkOf(coll, a, b), "")
	if err != nil || res.Count(catalog.OutcomeStarted) != 2 || res.Items[0].Attempt == 0 {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if _, err := e.cat.BulkJobs(e.ctx, actor, catalog.BulkRun, bulkOf(coll, a), ""); !errors.Is(err, catalog.ErrNoEngine) {
		t.Errorf("run without an engine = %v, want ErrNoEngine", err)
	}

	// Export: the import format, holding only the selection.
	out, err := cat.ExportJobs(e.ctx, actor, bulkOf(coll, b))
	if err != nil {
		t.Fatal(err)
	}
	var bundle struct {
		JobCollections []struct {
			Name string
			Jobs []struct{ Name string }
		}
	}
	if err := json.Unmarshal(out, &bundle); err != nil || len(bundle.JobCollections) != 1 || len(bundle.JobCollections[0].Jobs) != 1 ||
		bundle.JobCollections[0].Jobs[0].Name != "jc/b" {
		t.Errorf("export = %s (%v)", out, err)
	}

	// Delete: all of them, in one go.
	if _, err := cat.BulkJobs(e.ctx, actor, catalog.BulkDelete, bulkOf(coll, a, b, done), ""); err != nil {
		t.Fatal(err)
	}
	if n := e.count(); n != 0 {
		t.Errorf("%d jobs left after the bulk delete", n)
	}
}

func TestBulkJobsRefusesBadSelectionsAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	a := e.putJob(coll, "a", basicJob("pw"))
	e.exec(`INSERT INTO workspaces (id, display_name) VALUES ('team', 'Team')`)
	bob, err := e.store.CreateUser(e.ctx, models.NewUser{Username: "bob", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	e.exec(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ('default', $1, 'reader'), ('team', $1, 'owner')
		ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`, bob.ID)
	before := e.fingerprint()
	bobActor := catalog.Actor{UserID: bob.ID, UserName: "bob"}
	cases := []struct {
		name   string
		action catalog.BulkAction
		jobs   []models.BulkJob
		note   string
		path   string
	}{
		{"empty selection", catalog.BulkDisable, nil, "", "jobs"},
		{"unknown action", "pause", bulkOf(coll, a), "", "action"},
		{"note on enable", catalog.BulkEnable, bulkOf(coll, a), "why", "stateNote"},
		{"note too long", catalog.BulkDisable, bulkOf(coll, a), strings.Repeat("x", 501), "stateNote"},
		{"note with a line break", catalog.BulkDisable, bulkOf(coll, a), "a\nb", "stateNote"},
	}
	for _, tc := range cases {
		_, err := e.cat.BulkJobs(e.ctx, bobActor, tc.action, tc.jobs, tc.note)
		pl := problem.As(err)
		if pl == nil || pl.Problems[0].Path != tc.path {
			t.Errorf("%s: %v, want a problem naming %s", tc.name, err, tc.path)
		}
	}
	// bob reads "default": disabling there is refused, whatever else the
	// selection holds.
	_, err = e.cat.BulkJobs(e.ctx, bobActor, catalog.BulkDisable, bulkOf(coll, a), "x")
	var fe *catalog.ForbiddenError
	if !errors.As(err, &fe) || fe.Need != models.RoleOperator || fe.Workspace != "default" {
		t.Errorf("reader's bulk disable = %v, want a ForbiddenError needing operator in default", err)
	}
	if _, err := e.cat.ExportJobs(e.ctx, bobActor, bulkOf(coll, a)); !errors.As(err, &fe) || fe.Need != models.RoleEditor {
		t.Errorf("reader's export = %v, want a ForbiddenError needing editor", err)
	}
	if after := e.fingerprint(); after != before {
		t.Error("a refused bulk action changed the database")
	}
}
