package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/catalog"
)

// runner stands for the engine: the write service queues runs itself and
// only wakes it.
type runner struct{ store *models.Store }

func (r runner) Wake() {}

// oneHoliday is an iCalendar file with one holiday.
const oneHoliday = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
	"BEGIN:VEVENT\r\nUID:1@test\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Christmas Day\r\nDTSTART;VALUE=DATE:20261225\r\nDTEND;VALUE=DATE:20261226\r\nEND:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

// hooked is what one write passed to the change hook.
type hooked struct {
	actor  catalog.Actor
	change catalog.Change
}

// TestEveryWritePassesTheHookWithTheActor makes every write of the catalog
// once, in an order where each succeeds, and checks that each passed the
// change hook once, with its actor and what it changed; a refused write
// passes it not at all. The table must name every method that takes an
// Actor.
func TestEveryWritePassesTheHookWithTheActor(t *testing.T) {
	e := newEnv(t)
	cat := e.cat.WithRunner(runner{e.store})
	var got []hooked
	catalog.SetOnChange(cat, func(_ context.Context, a catalog.Actor, ch catalog.Change) {
		got = append(got, hooked{a, ch})
	})
	actor := catalog.Actor{UserID: e.user.ID, UserName: "admin", TokenID: 7, Addr: "192.0.2.1", Via: catalog.ViaAPI}
	ws := models.DefaultWorkspaceID
	cref := ref("rg", "jc")
	var coll *models.CollectionRow
	var job *models.Job
	jobIn := func(op catalog.Op) catalog.Change {
		return catalog.Change{Op: op, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc", Job: "daily"}
	}
	collIn := func(op catalog.Op) catalog.Change {
		return catalog.Change{Op: op, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc"}
	}
	calIn := func(op catalog.Op) catalog.Change {
		return catalog.Change{Op: op, WorkspaceID: ws, Calendar: "holidays"}
	}
	steps := []struct {
		method string
		want   catalog.Change // Detail is compared when not empty
		do     func() error
	}{
		{"PutCollection", collIn(catalog.OpPutCollection), func() (err error) {
			coll, _, err = cat.PutCollection(e.ctx, actor, cref, []byte(`{}`))
			return err
		}},
		{"PatchCollection", collIn(catalog.OpPatchCollection), func() error {
			_, err := cat.PatchCollection(e.ctx, actor, cref, []byte(`{"tags": {"team": "ops"}}`))
			return err
		}},
		{"PutCollectionWrite", collIn(catalog.OpPutCollection), func() error {
			_, err := cat.PutCollectionWrite(e.ctx, actor, cref, []byte(`{"tags": {"team": "ops"}}`))
			return err
		}},
		{"PatchCollectionWrite", collIn(catalog.OpPatchCollection), func() error {
			_, err := cat.PatchCollectionWrite(e.ctx, actor, cref, []byte(`{"location": "westus"}`))
			return err
		}},
		{"SetCollectionState", catalog.Change{Op: catalog.OpSetCollectionState, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc",
			Detail: "Enabled"}, func() error {
			_, err := cat.SetCollectionState(e.ctx, actor, cref, "Enabled")
			return err
		}},
		{"SetCollectionStateNote", catalog.Change{Op: catalog.OpSetCollectionState, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc",
			Detail: "Disabled"}, func() error {
			_, err := cat.SetCollectionStateNote(e.ctx, actor, cref, "Disabled", "vendor maintenance")
			return err
		}},
		{"NewSigningSecret", catalog.Change{Op: catalog.OpPutSigning, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc",
			Detail: "generated"}, func() error {
			_, err := cat.NewSigningSecret(e.ctx, actor, cref, 0)
			return err
		}},
		{"RemoveSigningSecret", collIn(catalog.OpDeleteSigning), func() error { return cat.RemoveSigningSecret(e.ctx, actor, cref) }},
		{"CreateJob", catalog.Change{Op: catalog.OpPutJob, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc", Job: "daily",
			Detail: "created"}, func() error {
			_, err := cat.CreateJob(e.ctx, actor, coll, "daily", []byte(basicJob("hunter2")))
			return err
		}},
		{"PutJob", jobIn(catalog.OpPutJob), func() (err error) {
			job, _, err = cat.PutJob(e.ctx, actor, coll, "daily", []byte(basicJob("hunter2")))
			return err
		}},
		{"PatchJob", jobIn(catalog.OpPatchJob), func() error {
			_, err := cat.PatchJob(e.ctx, actor, coll, "daily", []byte(`{"recurrence": {"frequency": "hour", "interval": 3}}`))
			return err
		}},
		{"EditJob", jobIn(catalog.OpPutJob), func() error {
			_, _, err := cat.EditJob(e.ctx, actor, coll, "daily", []byte(basicJob("")))
			return err
		}},
		{"DisableJob", jobIn(catalog.OpDisableJob), func() error { return cat.DisableJob(e.ctx, actor, coll, job) }},
		{"DisableJobNote", catalog.Change{Op: catalog.OpDisableJob, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc", Job: "daily",
			Detail: "vendor maintenance"}, func() error {
			return cat.DisableJobNote(e.ctx, actor, coll, job, " vendor maintenance ")
		}},
		{"BulkJobs", catalog.Change{Op: catalog.OpDisableJob, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc", Job: "daily",
			Detail: "until Monday"}, func() error {
			_, err := cat.BulkJobs(e.ctx, actor, catalog.BulkDisable, []models.BulkJob{{ID: job.ID, Name: "daily", CollectionID: coll.ID,
				Collection: "jc", ResourceGroup: "rg", WorkspaceID: ws}}, "until Monday")
			return err
		}},
		{"EnableJob", jobIn(catalog.OpEnableJob), func() error { return cat.EnableJob(e.ctx, actor, coll, job) }},
		{"RunNow", jobIn(catalog.OpRunJob), func() error {
			_, err := cat.RunNow(e.ctx, actor, coll, job)
			return err
		}},
		{"Rerun", jobIn(catalog.OpRerunJob), func() error {
			failed := &models.HistoryEntry{JobID: job.ID, StartTime: testNow.Add(-time.Hour), ExpectedExecutionTime: testNow.Add(-time.Hour),
				ActionName: models.MainAction, Status: models.StatusFailed, RepeatCount: 1}
			if err := e.store.AddHistory(e.ctx, failed); err != nil {
				return err
			}
			_, err := cat.Rerun(e.ctx, actor, coll, job, failed.ID)
			return err
		}},
		{"RunNowWith", jobIn(catalog.OpRunJobChanges), func() error {
			// One run per instant: the clock stands still here.
			e.exec(`DELETE FROM job_attempts WHERE job_id = $1`, job.ID)
			body := "changed"
			_, err := cat.RunNowWith(e.ctx, actor, coll, job, &jobdef.RunChanges{Body: &body})
			return err
		}},
		{"Backfill", jobIn(catalog.OpBackfillJob), func() error {
			_, err := cat.Backfill(e.ctx, actor, coll, job, catalog.BackfillInput{From: testNow.Add(-48 * time.Hour),
				To: testNow, Only: models.BackfillMissing, Order: models.BackfillOldestFirst, MaxConcurrent: 1})
			return err
		}},
		{"CancelBackfill", jobIn(catalog.OpCancelBackfill), func() error {
			bs, err := e.store.Backfills(e.ctx, job.ID, 1)
			if err != nil || len(bs) != 1 {
				return fmt.Errorf("backfills %v: %w", bs, err)
			}
			_, err = cat.CancelBackfill(e.ctx, actor, coll, job, bs[0].ID)
			return err
		}},
		{"PutCalendar", catalog.Change{Op: catalog.OpPutCalendar, WorkspaceID: ws, Calendar: "holidays", Detail: "created"}, func() error {
			_, _, err := cat.PutCalendar(e.ctx, actor, ws, "holidays", []byte(`{"entries": []}`))
			return err
		}},
		{"PutCalendarVersion", calIn(catalog.OpPutCalendar), func() error {
			row, err := e.store.CalendarByName(e.ctx, ws, "holidays")
			if err != nil {
				return err
			}
			_, _, err = cat.PutCalendarVersion(e.ctx, actor, ws, "holidays", []byte(`{"entries": [{"date": "2027-01-01"}]}`), row.Version)
			return err
		}},
		{"ImportCalendar", calIn(catalog.OpImportCalendar), func() error {
			_, err := cat.ImportCalendar(e.ctx, actor, catalog.CalendarImport{WorkspaceID: ws, Name: "holidays", ICS: []byte(oneHoliday)})
			return err
		}},
		{"Import", catalog.Change{Op: catalog.OpImport, WorkspaceID: ws, ResourceGroup: "rg", Collection: "jc", Detail: "1 jobs written"},
			func() error {
				f, err := catalog.ParseImport([]byte("[" + named("imported", basicJob("pw")) + "]"))
				if err != nil {
					return err
				}
				_, err = cat.Import(e.ctx, actor, ws, cref, f, catalog.ImportOptions{})
				return err
			}},
		{"PutChannel", catalog.Change{Op: catalog.OpPutChannel, WorkspaceID: ws, Channel: "ops", Detail: "created"}, func() error {
			_, err := cat.PutChannel(e.ctx, actor, ws, "ops", []byte(`{"type": "webhook", "properties": {"url": "https://example.com/hook"}}`))
			return err
		}},
		{"TestChannel", catalog.Change{Op: catalog.OpTestChannel, WorkspaceID: ws, Channel: "ops", Detail: "delivered"}, func() error {
			_, err := cat.TestChannel(e.ctx, actor, ws, "ops", "", okSender{})
			return err
		}},
		{"PutAlertRule", catalog.Change{Op: catalog.OpPutAlertRule, WorkspaceID: ws, Alert: "faults", Detail: "created"}, func() error {
			_, _, err := cat.PutAlertRule(e.ctx, actor, ws, "faults", []byte(`{"channel": "ops", "events": ["jobFaulted"]}`))
			return err
		}},
		{"AddAlertRule", catalog.Change{Op: catalog.OpPutAlertRule, WorkspaceID: ws, Alert: "jc-alpha", Detail: "created"}, func() error {
			// "alpha", stored without the catalog, comes first: the bell's channel.
			if _, err := e.store.PutChannel(e.ctx, models.ChannelWrite{WorkspaceID: ws, Name: "alpha", Type: "webhook",
				Config: []byte(`{"url": "https://example.com/alpha"}`)}); err != nil {
				return err
			}
			_, err := cat.AddAlertRule(e.ctx, actor, ws, []byte(`{"channel": "alpha", "scope": {"resourceGroup": "rg", "collection": "jc"}, "events": ["missed"]}`))
			return err
		}},
		{"WatchJob", catalog.Change{Op: catalog.OpPutAlertRule, WorkspaceID: ws, Alert: "daily-alpha", Detail: "created"}, func() error {
			_, err := cat.WatchJob(e.ctx, actor, coll, "daily")
			return err
		}},
		{"DeleteAlertRule", catalog.Change{Op: catalog.OpDeleteAlertRule, WorkspaceID: ws, Alert: "faults"}, func() error {
			return cat.DeleteAlertRule(e.ctx, actor, ws, "faults")
		}},
		{"PutMonitor", catalog.Change{Op: catalog.OpPutMonitor, WorkspaceID: ws, Monitor: "backup", Detail: "created"}, func() error {
			_, _, err := cat.PutMonitor(e.ctx, actor, ws, "backup", []byte(`{"schedule": {"frequency": "day"}}`))
			return err
		}},
		{"RotateMonitorToken", catalog.Change{Op: catalog.OpRotateMonitor, WorkspaceID: ws, Monitor: "backup"}, func() error {
			_, err := cat.RotateMonitorToken(e.ctx, actor, ws, "backup")
			return err
		}},
		{"DeleteMonitor", catalog.Change{Op: catalog.OpDeleteMonitor, WorkspaceID: ws, Monitor: "backup"}, func() error {
			return cat.DeleteMonitor(e.ctx, actor, ws, "backup")
		}},
		{"DeleteChannel", catalog.Change{Op: catalog.OpDeleteChannel, WorkspaceID: ws, Channel: "ops"}, func() error {
			return cat.DeleteChannel(e.ctx, actor, ws, "ops")
		}},
		{"PutTargetLimit", catalog.Change{Op: catalog.OpPutTarget, WorkspaceID: ws, Target: "api.example.com", Detail: "created"}, func() error {
			_, _, err := cat.PutTargetLimit(e.ctx, actor, ws, "API.example.com:443", []byte(`{"maxConcurrent": 3}`))
			return err
		}},
		{"DeleteTargetLimit", catalog.Change{Op: catalog.OpDeleteTarget, WorkspaceID: ws, Target: "api.example.com"}, func() error {
			return cat.DeleteTargetLimit(e.ctx, actor, ws, "api.example.com")
		}},
		{"DeleteJob", jobIn(catalog.OpDeleteJob), func() error { return cat.DeleteJob(e.ctx, actor, coll, "daily") }},
		{"DeleteCalendar", calIn(catalog.OpDeleteCalendar), func() error { return cat.DeleteCalendar(e.ctx, actor, ws, "holidays") }},
		{"DeleteCollection", collIn(catalog.OpDeleteCollection), func() error { return cat.DeleteCollection(e.ctx, actor, cref) }},
		{"CreateWorkspace", catalog.Change{Op: catalog.OpCreateWorkspace, WorkspaceID: "team", Detail: "Team"}, func() error {
			_, err := cat.CreateWorkspace(e.ctx, actor, true, catalog.WorkspacePolicy{}, "team", "Team")
			return err
		}},
		{"RenameWorkspace", catalog.Change{Op: catalog.OpRenameWorkspace, WorkspaceID: "team", Detail: "Team A"}, func() error {
			_, err := cat.RenameWorkspace(e.ctx, actor, "team", "Team A")
			return err
		}},
		{"AddMember", catalog.Change{Op: catalog.OpPutMember, WorkspaceID: "team", Member: "bob", Detail: "reader"}, func() error {
			if _, err := e.store.CreateUser(e.ctx, models.NewUser{Username: "bob", Password: "correct horse battery"}); err != nil {
				return err
			}
			_, err := cat.AddMember(e.ctx, actor, false, "team", "bob", "reader")
			return err
		}},
		{"PutMember", catalog.Change{Op: catalog.OpPutMember, WorkspaceID: "team", Member: "bob", Detail: "operator"}, func() error {
			_, _, err := cat.PutMember(e.ctx, actor, false, "team", "bob", models.RoleOperator)
			return err
		}},
		{"RemoveMember", catalog.Change{Op: catalog.OpRemoveMember, WorkspaceID: "team", Member: "bob"}, func() error {
			bob, err := e.store.UserByName(e.ctx, "bob")
			if err != nil {
				return err
			}
			return cat.RemoveMember(e.ctx, actor, false, "team", bob.ID, "bob")
		}},
		{"DeleteWorkspace", catalog.Change{Op: catalog.OpDeleteWorkspace, WorkspaceID: "team"}, func() error {
			return cat.DeleteWorkspace(e.ctx, actor, "team")
		}},
		// Account writes: no workspace.
		{"CreateUser", catalog.Change{Op: catalog.OpCreateUser, User: "carol"}, func() error {
			_, err := cat.CreateUser(e.ctx, actor, models.NewUser{Username: "carol", Password: "correct horse battery"})
			return err
		}},
		{"SetUserDisabled", catalog.Change{Op: catalog.OpDisableUser, User: "carol"}, func() error {
			carol, err := e.store.UserByName(e.ctx, "carol")
			if err != nil {
				return err
			}
			return cat.SetUserDisabled(e.ctx, actor, carol, true)
		}},
		{"ResetPassword", catalog.Change{Op: catalog.OpSetPassword, User: "carol"}, func() error {
			carol, err := e.store.UserByName(e.ctx, "carol")
			if err != nil {
				return err
			}
			return cat.ResetPassword(e.ctx, actor, carol, "another horse battery")
		}},
		{"ChangePassword", catalog.Change{Op: catalog.OpSetPassword, User: "admin"}, func() error {
			return cat.ChangePassword(e.ctx, actor, "password123", "a new horse battery")
		}},
		{"CreateToken", catalog.Change{Op: catalog.OpCreateToken, User: "admin", Token: "ci"}, func() error {
			_, _, err := cat.CreateToken(e.ctx, actor, e.user, "ci", models.TokenScope{Role: models.RoleOwner})
			return err
		}},
		{"RevokeToken", catalog.Change{Op: catalog.OpRevokeToken, User: "admin", Token: "ci"}, func() error {
			tokens, err := e.store.TokensOf(e.ctx, e.user.ID)
			if err != nil || len(tokens) != 1 {
				return fmt.Errorf("tokens %v, %v", tokens, err)
			}
			return cat.RevokeToken(e.ctx, actor, e.user, tokens[0].ID)
		}},
		{"SignedIn", catalog.Change{Op: catalog.OpSignIn, User: "admin", Detail: "password"}, func() error {
			return cat.SignedIn(e.ctx, actor, "password")
		}},
		{"SignedOut", catalog.Change{Op: catalog.OpSignOut, User: "admin"}, func() error {
			return cat.SignedOut(e.ctx, actor)
		}},
	}
	// Authorize and RoleOf take an Actor to decide, ExportJobs to
	// authorize a read; they write nothing. SignInExternal makes several
	// changes, by the user it signs in (TestSignInExternalIsAudited).
	covered := map[string]bool{"Authorize": true, "RoleOf": true, "ExportJobs": true, "SignInExternal": true}

	lastAudit := e.lastAuditID()
	for _, st := range steps {
		covered[st.method] = true
		got = nil
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.method, err)
		}
		lastAudit = e.checkAudited(st.method, actor, st.want, lastAudit)
		if len(got) != 1 {
			t.Fatalf("%s passed the hook %d times, want once: %+v", st.method, len(got), got)
		}
		if got[0].actor != actor {
			t.Errorf("%s: actor %+v, want %+v", st.method, got[0].actor, actor)
		}
		ch := got[0].change
		if st.want.Detail == "" {
			ch.Detail = ""
		}
		if ch != st.want {
			t.Errorf("%s: change %+v, want %+v", st.method, ch, st.want)
		}
	}

	// Every method taking an Actor is in the table.
	actorType := reflect.TypeOf(catalog.System("test"))
	typ := reflect.TypeOf(cat)
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		for k := 1; k < m.Type.NumIn(); k++ {
			if m.Type.In(k) == actorType && !covered[m.Name] {
				t.Errorf("the write method %s is not in the table", m.Name)
			}
		}
	}

	// A refused write passes no hook.
	got = nil
	if err := cat.DeleteCollection(e.ctx, actor, cref); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("deleting a deleted collection: %v, want ErrNotFound", err)
	}
	if _, _, err := cat.PutJob(e.ctx, actor, coll, "bad name!", []byte(basicJob("pw"))); err == nil {
		t.Fatal("a bad job name was accepted")
	}
	if len(got) != 0 {
		t.Errorf("refused writes passed the hook: %+v", got)
	}
}

// TestRunNowWithoutEngine answers ErrNoEngine and passes no hook.
func TestRunNowWithoutEngine(t *testing.T) {
	e := newEnv(t)
	coll := e.putCollection("rg", "jc", `{}`)
	job := e.putJob(coll, "daily", basicJob("pw"))
	called := false
	catalog.SetOnChange(e.cat, func(context.Context, catalog.Actor, catalog.Change) { called = true })
	if _, err := e.cat.RunNow(e.ctx, catalog.System("test"), coll, job); !errors.Is(err, catalog.ErrNoEngine) {
		t.Fatalf("RunNow without a runner: %v, want ErrNoEngine", err)
	}
	if called {
		t.Error("a refused run passed the hook")
	}
}
