package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// TestAuditDifferenceOfAJobWithSecretsMasked checks the entries of a job's
// creation, patch and deletion: the JSON paths that changed with their old
// and new values, a changed password as a masked change, and no secret
// anywhere in the audit log (jobs, channels, API tokens, passwords).
func TestAuditDifferenceOfAJobWithSecretsMasked(t *testing.T) {
	e := newEnv(t)
	actor := catalog.Actor{UserID: e.user.ID, UserName: "admin", Addr: "192.0.2.7", Via: catalog.ViaWeb}
	coll := e.putCollection("rg", "jc", `{}`)
	since := e.lastAuditID()
	if _, _, err := e.cat.PutJob(e.ctx, actor, coll, "daily", []byte(basicJob("hunter2"))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.PatchJob(e.ctx, actor, coll, "daily",
		[]byte(`{"recurrence": {"interval": 3}, "action": {"request": {"authentication": {"password": "s3cret-two"}}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.PatchJob(e.ctx, actor, coll, "daily", []byte(`{"recurrence": {"interval": 3}}`)); err != nil {
		t.Fatal(err)
	}
	if err := e.cat.DeleteJob(e.ctx, actor, coll, "daily"); err != nil {
		t.Fatal(err)
	}
	saved, err := e.cat.PutChannel(e.ctx, actor, models.DefaultWorkspaceID, "ops",
		[]byte(`{"type": "webhook", "properties": {"url": "https://example.com/hook"}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, tokenSecret, err := e.cat.CreateToken(e.ctx, actor, e.user, "ci", models.TokenScope{Role: models.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.cat.ChangePassword(e.ctx, actor, "password123", "my new horse battery"); err != nil {
		t.Fatal(err)
	}
	rows := e.auditSince(since)[:5]
	if len(rows) != 5 {
		t.Fatalf("%d entries, want 5: %+v", len(rows), rows)
	}
	for i, want := range []string{"job.put", "job.patch", "job.patch", "job.delete", "channel.put"} {
		if rows[i].Action != want || rows[i].Kind != "user" || rows[i].Name != "admin" || rows[i].Via != "web" || rows[i].Addr != "192.0.2.7" {
			t.Errorf("entry %d: %+v, want %s by admin on the web", i, rows[i], want)
		}
	}
	has := func(r auditRow, path, old, new string) bool {
		for _, c := range diffOf(r) {
			if c["path"] == path && c["old"] == old && c["new"] == new {
				return true
			}
		}
		return false
	}
	mask := models.AuditSecretMask
	if !has(rows[0], "recurrence.interval", "", "2") || !has(rows[0], "action.request.authentication.password", mask, mask) ||
		!has(rows[0], "action.request.uri", "", `"https://example.com/hook"`) {
		t.Errorf("creation's difference %s", rows[0].Diff)
	}
	if d := diffOf(rows[1]); len(d) != 2 || !has(rows[1], "recurrence.interval", "2", "3") ||
		!has(rows[1], "action.request.authentication.password", mask, mask) {
		t.Errorf("patch's difference %s, want the interval 2 → 3 and the password masked", rows[1].Diff)
	}
	if d := diffOf(rows[2]); len(d) != 0 {
		t.Errorf("a patch that changes nothing has the difference %s", rows[2].Diff)
	}
	if !has(rows[3], "recurrence.interval", "3", "") {
		t.Errorf("deletion's difference %s", rows[3].Diff)
	}
	var all string
	if err := e.db.QueryRow(`SELECT string_agg(a::text, '|') FROM audit_entries a`).Scan(&all); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "s3cret-two", saved.Secret, tokenSecret, "my new horse battery", "password123"} {
		if secret == "" || strings.Contains(all, secret) {
			t.Errorf("the audit log holds the secret %q (or it is empty): %s", secret, all)
		}
	}
}

// TestAuditOfAnImportOf500JobsIsAllOrNothing imports 500 jobs and checks
// that their entries (the import's, the new collection's, one per job)
// were written with them; then makes the database refuse one entry of a
// second import of 500 and checks that neither its jobs nor any entry
// were kept.
func TestAuditOfAnImportOf500JobsIsAllOrNothing(t *testing.T) {
	e := newEnv(t)
	actor := catalog.Actor{UserID: e.user.ID, UserName: "admin", Via: catalog.ViaCLI}
	since := e.lastAuditID()
	f, err := catalog.ParseImport(bundleOf("a", 1, 500))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.cat.Import(e.ctx, actor, "", models.CollectionRef{}, f, catalog.ImportOptions{})
	if err != nil || rep.Summary.Written != 500 {
		t.Fatalf("import: %v (%+v)", err, rep.Summary)
	}
	rows := e.auditSince(since)
	if len(rows) != 502 {
		t.Fatalf("%d entries, want 502 (the import, its collection, 500 jobs)", len(rows))
	}
	jobs := map[string]bool{}
	for _, r := range rows {
		if r.Kind != "cli" || r.Name != "admin" {
			t.Fatalf("entry by %s %s, want the CLI's admin", r.Kind, r.Name)
		}
		if r.Action == "job.put" {
			jobs[r.Resource] = true
		}
	}
	if len(jobs) != 500 || !jobs[models.AuditJobResource("bench", "a0", "job499")] || rows[0].Action != "import" ||
		rows[1].Action != "collection.put" {
		t.Errorf("%d job entries; first entries %s, %s", len(jobs), rows[0].Action, rows[1].Action)
	}

	e.exec(`CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.resource LIKE '%/jobs/job250' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`)
	e.exec(`CREATE TRIGGER refuse_one BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_one()`)
	before, jobsBefore, last := e.fingerprint(), e.count(), e.lastAuditID()
	f, err = catalog.ParseImport(bundleOf("b", 1, 500))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.Import(e.ctx, actor, "", models.CollectionRef{}, f, catalog.ImportOptions{}); err == nil {
		t.Fatal("the import went through although an entry was refused")
	}
	if e.fingerprint() != before || e.count() != jobsBefore || e.lastAuditID() != last {
		t.Errorf("a refused import kept something: %d jobs (was %d), newest entry %d (was %d)", e.count(), jobsBefore, e.lastAuditID(), last)
	}
}

// TestFailedWritesLeaveNoAuditEntry checks that a write refused for its
// input (400), the actor's role (403) or a conflict (409) leaves no entry.
func TestFailedWritesLeaveNoAuditEntry(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	e.putJob(coll, "daily", seedJob)
	if _, _, err := e.cat.PutCalendar(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "holidays", []byte(`{"entries": []}`)); err != nil {
		t.Fatal(err)
	}
	e.putJob(coll, "uses", `{"action": {"type": "http", "request": {"uri": "https://example.com/", "method": "GET"}},
		"recurrence": {"frequency": "day", "calendars": {"exclude": ["holidays"]}}}`)
	reader, err := e.store.CreateUser(e.ctx, models.NewUser{Username: "rita", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetMemberRole(e.ctx, models.DefaultWorkspaceID, reader.ID, models.RoleReader); err != nil {
		t.Fatal(err)
	}
	rita := catalog.Actor{UserID: reader.ID, UserName: "rita", Via: catalog.ViaWeb}
	since := e.lastAuditID()
	var forbidden *catalog.ForbiddenError
	if _, _, err := e.cat.PutJob(e.ctx, catalog.System("test"), coll, "bad", []byte(`{"action": 5}`)); problem.As(err) == nil {
		t.Errorf("a bad job: %v, want problems", err)
	}
	if _, _, err := e.cat.PutJob(e.ctx, rita, coll, "daily", []byte(seedJob)); !errors.As(err, &forbidden) {
		t.Errorf("a reader's put: %v, want forbidden", err)
	}
	if err := e.cat.DeleteCalendar(e.ctx, catalog.System("test"), models.DefaultWorkspaceID, "holidays"); err == nil {
		t.Error("deleted a calendar in use")
	}
	if _, err := e.cat.PatchJob(e.ctx, catalog.System("test"), coll, "missing", []byte(`{}`)); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("patch of a missing job: %v", err)
	}
	if rows := e.auditSince(since); len(rows) != 0 {
		t.Errorf("failed writes left entries: %+v", rows)
	}
}

// TestAuditOfABulkActionIsOneEntryPerChangedJob checks that a bulk
// disable with a note leaves one entry per job it changed (none for a job
// it left alone), with the note, in the action's transaction: when an
// entry is refused, no job changes.
func TestAuditOfABulkActionIsOneEntryPerChangedJob(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	a, b := e.putJob(coll, "a", seedJob), e.putJob(coll, "b", seedJob)
	done := e.putJob(coll, "done", seedJob)
	e.exec(`UPDATE jobs SET state = 'completed', ended_at = now(), next_run_at = NULL, needs_schedule = false WHERE id = $1`, done.ID)
	actor := catalog.Actor{UserID: e.user.ID, UserName: "alice", Via: catalog.ViaWeb}
	since := e.lastAuditID()
	if _, err := e.cat.BulkJobs(e.ctx, actor, catalog.BulkDisable, bulkOf(coll, a, b, done), "vendor maintenance"); err != nil {
		t.Fatal(err)
	}
	rows := e.auditSince(since)
	if len(rows) != 2 {
		t.Fatalf("%d entries, want 2 (the completed job was left alone): %+v", len(rows), rows)
	}
	for i, name := range []string{"a", "b"} {
		r := rows[i]
		if r.Action != "job.disable" || r.Resource != models.AuditJobResource("rg", "jc", name) || r.Detail != "vendor maintenance" ||
			r.Kind != "user" || r.Name != "alice" {
			t.Errorf("entry %d = %+v", i, r)
		}
	}

	e.exec(`CREATE FUNCTION refuse_b() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.resource LIKE '%/jobs/b' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`)
	e.exec(`CREATE TRIGGER refuse_b BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_b()`)
	before, last := e.fingerprint(), e.lastAuditID()
	if _, err := e.cat.BulkJobs(e.ctx, actor, catalog.BulkEnable, bulkOf(coll, a, b), ""); err == nil {
		t.Fatal("the bulk enable went through although an entry was refused")
	}
	if e.fingerprint() != before || e.lastAuditID() != last {
		t.Error("a refused bulk action changed jobs or left entries")
	}
}
