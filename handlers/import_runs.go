package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"sked/web"
)

// progressThreshold is how many jobs make the import page check a file in
// the background and show its progress.
const progressThreshold = 500

// importRunTTL is how long a finished background import's report is kept
// for the page to fetch.
const importRunTTL = 10 * time.Minute

// importRunTimeout bounds a background import.
const importRunTimeout = 10 * time.Minute

// importRuns keeps the background imports of the import page of this
// instance (behind a load balancer the page's polls must reach the same
// instance: sticky sessions). Safe for concurrent use; the zero value is
// ready.
type importRuns struct {
	mu   sync.Mutex
	runs map[string]*importRun
}

// importRun is one background import.
type importRun struct {
	id     string
	userID int64

	mu       sync.Mutex
	done     int
	total    int
	finished time.Time
	status   int
	page     web.ImportPage
}

// start runs work in the background and returns its run. work gets a
// context that ends after importRunTimeout and a progress callback.
func (r *importRuns) start(userID int64, total int, work func(context.Context, func(done, total int)) (int, web.ImportPage)) *importRun {
	var b [16]byte
	_, _ = rand.Read(b[:])
	run := &importRun{id: hex.EncodeToString(b[:]), userID: userID, total: total}
	r.mu.Lock()
	if r.runs == nil {
		r.runs = map[string]*importRun{}
	}
	for id, old := range r.runs {
		old.mu.Lock()
		expired := !old.finished.IsZero() && time.Since(old.finished) > importRunTTL
		old.mu.Unlock()
		if expired {
			delete(r.runs, id)
		}
	}
	r.runs[run.id] = run
	r.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), importRunTimeout)
		defer cancel()
		status, page := work(ctx, run.progress)
		run.mu.Lock()
		run.status, run.page, run.finished = status, page, time.Now()
		run.mu.Unlock()
	}()
	return run
}

// get returns the run id of userID, or nil.
func (r *importRuns) get(id string, userID int64) *importRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	run := r.runs[id]
	if run == nil || run.userID != userID {
		return nil
	}
	return run
}

func (run *importRun) progress(done, total int) {
	run.mu.Lock()
	run.done, run.total = done, total
	run.mu.Unlock()
}

// view is the run's progress as the page shows it.
func (run *importRun) view() web.ImportProgress {
	run.mu.Lock()
	defer run.mu.Unlock()
	return web.ImportProgress{ID: run.id, Done: !run.finished.IsZero(), Checked: run.done, Total: run.total}
}

// result is the finished run's status and page.
func (run *importRun) result() (int, web.ImportPage) {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.status, run.page
}
