package models_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
)

// TestRollupsMatchCounts makes a random mix of every kind of write that
// creates, deletes or changes the state of jobs or writes or deletes
// history (single and batch saves, imports, saves of finished jobs,
// state changes one by one and in bulk, run now and the engine's results, completions and
// faults, postponed occurrences, deletes of jobs and collections,
// retention) and checks, after each round, that the rollups of migrations
// 0022 and 0023 equal what count(*) finds (and that 0024's last failure is
// not older than the newest Failed entry).
func TestRollupsMatchCounts(t *testing.T) {
	f := newPagesFixture(t)
	db, err := sql.Open("pgx", f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 16))
	now := time.Now().UTC().Truncate(time.Second)
	const def = `{"action":{"type":"http","request":{"uri":"https://example.com/x","method":"GET"}}}`
	colls := []*models.JobCollection{f.collection("default", "a", "Enabled"), f.collection("other", "b", "Enabled")}
	refs := []models.CollectionRef{{WorkspaceID: "default", ResourceGroup: "rg", Name: "a"}, {WorkspaceID: "other", ResourceGroup: "rg", Name: "b"}}
	pick := func() *models.JobCollection { return colls[rnd.IntN(len(colls))] }
	name := func() string { return fmt.Sprintf("j%d", rnd.IntN(40)) }
	state := func() jobdef.State { return []jobdef.State{jobdef.Enabled, jobdef.Disabled}[rnd.IntN(2)] }
	jobs := func(n int) []int64 {
		rows, err := db.Query(`SELECT id FROM jobs ORDER BY random() LIMIT $1`, n)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	enabledJob := func() (int64, bool) {
		var id int64
		err := db.QueryRow(`SELECT id FROM jobs WHERE state = 'enabled' AND NOT EXISTS (SELECT 1 FROM job_attempts a
			WHERE a.job_id = jobs.id AND a.status IN ('pending', 'running')) ORDER BY random() LIMIT 1`).Scan(&id)
		return id, err == nil
	}
	lease := func(int64, json.RawMessage, jobdef.Secrets, models.ActionName) time.Duration { return time.Hour }
	writes := map[string]int{}
	for round := 0; round < 12; round++ {
		for step := 0; step < 25; step++ {
			now = now.Add(time.Duration(rnd.IntN(600)) * time.Second)
			op := rnd.IntN(13)
			var err error
			switch op {
			case 0:
				_, _, err = f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: pick().ID, Name: name(), Definition: []byte(def), State: state(), Now: now})
			case 1:
				var ws []models.JobWrite
				c := pick()
				seen := map[string]bool{}
				for range 5 {
					if n := name(); !seen[n] {
						seen[n] = true
						ws = append(ws, models.JobWrite{CollectionID: c.ID, Name: n, Definition: []byte(def), State: state(), Now: now})
					}
				}
				_, err = f.store.SaveJobs(f.ctx, ws)
			case 2:
				i := rnd.IntN(len(refs))
				_, err = f.store.ApplyImport(f.ctx, models.ImportBatch{Collections: []models.ImportCollection{{Ref: refs[i]}},
					Jobs: []models.ImportJob{{Collection: 0, Write: models.JobWrite{Name: name(), Definition: []byte(def), State: state(), Now: now}},
						{Collection: 0, Write: models.JobWrite{Name: "imp-" + name(), Definition: []byte(def), Now: now}}}})
			case 3:
				// A job written in a final state (an import of a finished job).
				_, _, err = f.store.SaveJob(f.ctx, models.JobWrite{CollectionID: pick().ID, Name: name(), Definition: []byte(def),
					State: []jobdef.State{jobdef.Completed, jobdef.Faulted}[rnd.IntN(2)], Now: now})
			case 4:
				ids := jobs(5)
				if len(ids) == 0 {
					continue
				}
				_, err = f.store.SetJobsState(f.ctx, ids, models.JobStateWrite{Enabled: rnd.IntN(2) == 0, Now: now, By: "t", Note: "n"})
			case 5:
				if ids := jobs(1); len(ids) == 1 {
					err = f.store.SetJobEnabled(f.ctx, ids[0], rnd.IntN(2) == 0, now)
					if errors.Is(err, models.ErrJobFinished) {
						err = nil
					}
				}
			case 6:
				if ids := jobs(3); len(ids) > 0 {
					err = f.store.DeleteJobs(f.ctx, ids)
				}
			case 7:
				ids := jobs(1)
				if len(ids) == 0 {
					continue
				}
				if rnd.IntN(2) == 0 {
					err = f.store.DeleteJob(f.ctx, ids[0])
					break
				}
				// By name, spelled in another case: counted by addJobCount.
				var coll int64
				var upper string
				if err = db.QueryRow(`SELECT job_collection_id, upper(name) FROM jobs WHERE id = $1`, ids[0]).Scan(&coll, &upper); err != nil {
					break
				}
				var d *models.DeletedJob
				if d, err = f.store.DeleteJobNamed(f.ctx, coll, upper); err == nil && d.ID != ids[0] {
					err = fmt.Errorf("DeleteJobNamed(%q) deleted job %d, want %d", upper, d.ID, ids[0])
				}
			case 8:
				for _, id := range jobs(4) {
					if err != nil {
						break
					}
					late := int64(rnd.IntN(5000))
					// Out of order, but within the last hour: retention keeps at
					// least 2 hours, so an entry is never older than one it
					// deleted, whose result stays the job's last (as the engine
					// writes entries at its clock's now).
					start := now.Add(-time.Duration(rnd.IntN(3600)) * time.Second)
					err = f.store.AddHistory(f.ctx, &models.HistoryEntry{JobID: id, StartTime: start, ExpectedExecutionTime: start,
						ActionName: models.MainAction, Status: []models.HistoryStatus{"Completed", "Failed", "Postponed"}[rnd.IntN(3)], LatenessMs: &late})
				}
			case 9: // run now, then the engine's result: the job may complete or fault
				id, ok := enabledJob()
				if !ok {
					continue
				}
				if _, err = f.store.RunNow(f.ctx, id, now); err != nil {
					break
				}
				var got []models.ClaimedAttempt
				got, err = f.store.ClaimDue(f.ctx, models.ClaimRequest{Now: now, Owner: "t", Limit: 100,
					Plan: func(*models.EngineJob) *models.JobPlan { return nil }, Lease: lease})
				if err != nil {
					break
				}
				var outs []models.AttemptOutcome
				for _, a := range got {
					ok := rnd.IntN(2) == 0
					outs = append(outs, models.AttemptOutcome{AttemptID: a.ID, Owner: "t", Now: now.Add(time.Second), Succeeded: ok,
						Faulted: !ok && rnd.IntN(2) == 0, OccurrenceFaulted: !ok})
				}
				_, err = f.store.FinishAttempts(f.ctx, outs)
			case 10: // the engine plans due jobs: postponed entries, an end, or a next run
				_, err = f.store.ClaimDue(f.ctx, models.ClaimRequest{Now: now, Owner: "t", Limit: 100, Lease: lease,
					Plan: func(j *models.EngineJob) *models.JobPlan {
						switch rnd.IntN(3) {
						case 0:
							return &models.JobPlan{End: []jobdef.State{jobdef.Completed, jobdef.Faulted}[rnd.IntN(2)]}
						case 1:
							next := now.Add(time.Hour)
							return &models.JobPlan{NextRunAt: &next, Postponed: []models.HistoryEntry{{StartTime: now, ExpectedExecutionTime: now.Add(-time.Minute),
								ActionName: models.MainAction, Status: models.StatusPostponed, Message: "missed"}}}
						}
						next := now.Add(time.Minute)
						return &models.JobPlan{NextRunAt: &next}
					}})
			case 11:
				if rnd.IntN(3) != 0 {
					continue
				}
				_, err = f.store.Prune(f.ctx, now, models.Retention{HistoryPerJob: 2 + rnd.IntN(4),
					HistoryMaxAge: time.Duration(2+rnd.IntN(4)) * time.Hour, FinishedJobMaxAge: time.Duration(rnd.IntN(3)) * time.Hour})
			case 12:
				i := rnd.IntN(len(colls))
				if rnd.IntN(4) != 0 {
					continue
				}
				if err = f.store.DeleteCollection(f.ctx, colls[i].ID); err == nil {
					colls[i] = f.collection(refs[i].WorkspaceID, refs[i].Name, "Enabled")
				}
			}
			if err != nil {
				t.Fatalf("round %d step %d op %d: %v", round, step, op, err)
			}
			writes[fmt.Sprint(op)]++
		}
		testdb.CheckRollups(t, db, fmt.Sprintf("round %d", round))
		testdb.CheckFacets(t, db) // the job facets too (migration 0025)
	}
	t.Logf("writes by kind: %v", writes)
}
