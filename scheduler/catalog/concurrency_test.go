package catalog_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/testdb"
	"sked/scheduler/catalog"
)

// concurrentClients is how many writers TestConcurrentWrites runs at once.
const concurrentClients = 20

// marked is a job whose request URI carries mark, so that what a write
// stored can be told from what another wrote.
func marked(mark string) string {
	return `{"action": {"type": "http", "request": {"uri": "https://example.com/?m=` + mark + `", "method": "GET"}},
		"recurrence": {"frequency": "day", "schedule": {"hours": [5], "minutes": [15]}}}`
}

// holds reports whether a stored definition carries mark.
func holds(def []byte, mark string) bool { return bytes.Contains(def, []byte("?m="+mark+`"`)) }

// sharedWrite is one acknowledged write of a job every writer writes:
// when it started and was acknowledged (on one counter shared by all
// writers) and the mark it stored ("" for a delete).
type sharedWrite struct {
	start, end int64
	mark       string
}

// ownJob is what a writer last wrote to a job only it writes.
type ownJob struct {
	coll     *models.CollectionRow
	mark     string
	disabled bool
}

// TestConcurrentWrites runs 20 writers at once through the catalog, each
// making a random mix of writes: creating, replacing and patching jobs of
// its own, replacing and deleting three jobs all of them share, enabling
// and disabling jobs in bulk, importing, changing a collection's state,
// in two collections, after a race for the last slots of a collection's
// quota. No write may fail but with not-found (a shared job deleted
// meanwhile) or a quota refusal; after every acknowledged write to a job
// of its own a writer reads it back and sees it; in the end every job
// holds the last acknowledged write (for a shared job: a write that no
// other acknowledged write started after), the quota is exact, and the
// counts, facets and results the store derives from jobs agree with them.
func TestConcurrentWrites(t *testing.T) {
	dsn := testdb.DSN(t)
	opts := testdb.Options()
	opts.MaxOpenConns = concurrentClients + 5
	store := testdb.Open(t, dsn, opts)
	e := newEnvOn(t, dsn, store)
	cat := e.cat
	actor := catalog.Actor{UserID: e.user.ID, UserName: e.user.Username, Via: catalog.ViaAPI}
	colls := []*models.CollectionRow{e.putCollection("rg", "a", `{}`), e.putCollection("rg", "b", `{}`)}
	const slots = concurrentClients / 2
	quota := e.putCollection("rg", "q", fmt.Sprintf(`{"properties": {"sku": {"name": "Standard"}, "quota": {"maxJobCount": %d}}}`, slots))
	shared := []string{"s0", "s1", "s2"}

	var clock atomic.Int64
	var mu sync.Mutex
	sharedLog := map[string][]sharedWrite{}
	var quotaOK, quotaRefused atomic.Int64
	owns := make([]map[string]*ownJob, concurrentClients)
	var start, wg sync.WaitGroup
	start.Add(1)
	for g := range concurrentClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(g), 30))
			own := map[string]*ownJob{}
			owns[g] = own
			fail := func(what string, err error) { t.Errorf("writer %d: %s: %v", g, what, err) }
			// check reads back a job of the writer's own after a write.
			check := func(name string) {
				o := own[name]
				j, err := store.JobByName(e.ctx, o.coll.ID, name)
				if err != nil {
					fail("read "+name, err)
					return
				}
				if !holds(j.Definition, o.mark) || (j.State == jobdef.Disabled) != o.disabled {
					t.Errorf("writer %d: %s reads %s %s after the write of %s (disabled %v)", g, name, j.State, j.Definition, o.mark, o.disabled)
				}
			}
			start.Wait()
			// The race for the quota's last slots.
			_, _, err := cat.PutJob(e.ctx, actor, quota, fmt.Sprintf("q%d", g), []byte(marked("q")))
			var qe *models.QuotaError
			switch {
			case err == nil:
				quotaOK.Add(1)
			case errors.As(err, &qe):
				quotaRefused.Add(1)
			default:
				fail("quota race", err)
			}
			for i := range 30 {
				mark := fmt.Sprintf("g%d-i%d", g, i)
				switch op := rnd.IntN(10); op {
				case 0, 1: // create or replace a job of its own
					name := fmt.Sprintf("w%d-%d", g, rnd.IntN(3))
					coll := colls[g%2]
					if _, _, err := cat.PutJob(e.ctx, actor, coll, name, []byte(marked(mark))); err != nil {
						fail("put "+name, err)
						continue
					}
					own[name] = &ownJob{coll: coll, mark: mark}
					check(name)
				case 2: // patch a job of its own
					name := fmt.Sprintf("w%d-%d", g, rnd.IntN(3))
					o, ok := own[name]
					if !ok {
						continue
					}
					patch := `{"properties": {"action": {"request": {"uri": "https://example.com/?m=` + mark + `"}}}}`
					if _, err := cat.PatchJob(e.ctx, actor, o.coll, name, []byte(patch)); err != nil {
						fail("patch "+name, err)
						continue
					}
					o.mark = mark
					check(name)
				case 3, 4, 5: // replace or delete a shared job
					name := shared[rnd.IntN(len(shared))]
					w := sharedWrite{start: clock.Add(1)}
					if op == 5 {
						err := cat.DeleteJob(e.ctx, actor, colls[0], name)
						if errors.Is(err, models.ErrNotFound) {
							continue
						}
						if err != nil {
							fail("delete "+name, err)
							continue
						}
					} else {
						if _, _, err := cat.PutJob(e.ctx, actor, colls[0], name, []byte(marked(mark))); err != nil {
							fail("put "+name, err)
							continue
						}
						w.mark = mark
					}
					w.end = clock.Add(1)
					mu.Lock()
					sharedLog[name] = append(sharedLog[name], w)
					mu.Unlock()
				case 6, 7: // enable or disable its jobs in bulk, with a shared one
					var sel []models.BulkJob
					var names []string
					for name, o := range own {
						j, err := store.JobByName(e.ctx, o.coll.ID, name)
						if err != nil {
							fail("read "+name, err)
							continue
						}
						sel = append(sel, bulkJob(o.coll, j))
						names = append(names, name)
					}
					if s, err := store.JobByName(e.ctx, colls[0].ID, shared[rnd.IntN(len(shared))]); err == nil {
						sel = append(sel, bulkJob(colls[0], s))
					}
					if len(sel) == 0 {
						continue
					}
					action := catalog.BulkEnable
					if op == 7 {
						action = catalog.BulkDisable
					}
					_, err := cat.BulkJobs(e.ctx, actor, action, sel, "")
					if errors.Is(err, models.ErrNotFound) {
						continue // the shared job was deleted meanwhile: nothing changed
					}
					if err != nil {
						fail("bulk", err)
						continue
					}
					for _, name := range names {
						own[name].disabled = action == catalog.BulkDisable
						check(name)
					}
				case 8: // import a job of its own (and one shared: the import replaces it)
					name := fmt.Sprintf("imp%d", g)
					file := `[{"id": "/subscriptions/default/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/b/jobs/` + name +
						`", "properties": ` + marked(mark) + `}]`
					f, err := catalog.ParseImport([]byte(file))
					if err != nil {
						fail("parse import", err)
						continue
					}
					if _, err := cat.Import(e.ctx, actor, "", ref("rg", "b"), f, catalog.ImportOptions{}); err != nil {
						fail("import", err)
						continue
					}
					own[name] = &ownJob{coll: colls[1], mark: mark}
					check(name)
				case 9: // change a collection's state (and back)
					for _, st := range []models.CollectionState{models.CollectionDisabled, models.CollectionEnabled} {
						if _, err := cat.SetCollectionState(e.ctx, actor, ref("rg", colls[rnd.IntN(2)].Name), st); err != nil {
							fail("collection state", err)
						}
					}
				}
			}
		}()
	}
	start.Done()
	wg.Wait()

	if quotaOK.Load() != slots || quotaRefused.Load() != concurrentClients-slots {
		t.Errorf("quota race: %d created, %d refused; want %d and %d", quotaOK.Load(), quotaRefused.Load(), slots, concurrentClients-slots)
	}
	if n, err := store.CountJobs(e.ctx, quota.ID); err != nil || n != slots {
		t.Errorf("the quota collection holds %d jobs (%v), want %d", n, err, slots)
	}
	for g, own := range owns {
		for name, o := range own {
			j, err := store.JobByName(e.ctx, o.coll.ID, name)
			if err != nil {
				t.Errorf("writer %d: %s: %v", g, name, err)
				continue
			}
			if !holds(j.Definition, o.mark) || (j.State == jobdef.Disabled) != o.disabled {
				t.Errorf("writer %d: %s ends %s %s, not the last write %s (disabled %v)", g, name, j.State, j.Definition, o.mark, o.disabled)
			}
		}
	}
	for _, name := range shared {
		j, err := store.JobByName(e.ctx, colls[0].ID, name)
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			t.Fatal(err)
		}
		if !lastShared(sharedLog[name], j) {
			t.Errorf("shared job %s ends as %v, which is no last acknowledged write of %v", name, j, sharedLog[name])
		}
	}
	testdb.CheckRollups(t, e.db, "after the concurrent writes")
	testdb.CheckFacets(t, e.db)
}

// lastShared reports whether j (nil: deleted) is what one of the writes
// log stored that no other write of log started after it was
// acknowledged: the state a linearizable store may end in. With no write,
// the job must not exist.
func lastShared(log []sharedWrite, j *models.Job) bool {
	if len(log) == 0 {
		return j == nil
	}
	for _, w := range log {
		last := true
		for _, o := range log {
			if o.start > w.end {
				last = false
				break
			}
		}
		if !last {
			continue
		}
		if w.mark == "" && j == nil || w.mark != "" && j != nil && holds(j.Definition, w.mark) {
			return true
		}
	}
	return false
}

// bulkJob is j of coll as a bulk action selects it.
func bulkJob(coll *models.CollectionRow, j *models.Job) models.BulkJob {
	return models.BulkJob{ID: j.ID, Name: j.Name, State: j.State, CollectionID: coll.ID, Collection: coll.Name,
		ResourceGroup: coll.ResourceGroup, WorkspaceID: coll.WorkspaceID}
}
