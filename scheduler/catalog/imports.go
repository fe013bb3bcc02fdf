package catalog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"sked/models"
)

// ImportRunTTL is how long a finished background import's result is kept
// for the page to fetch.
const ImportRunTTL = 10 * time.Minute

// ImportRunTimeout bounds a background import.
const ImportRunTimeout = 10 * time.Minute

// ErrImportsStopped is the error of Begin before Start or after Stop.
var ErrImportsStopped = errors.New("catalog: background imports are not accepted: the server is starting or stopping")

// The statuses of an ImportRun.
const (
	ImportRunning   = "running"
	ImportCompleted = "completed" // Import returned, with its report or refusal
	ImportCancelled = "cancelled" // Stop or ImportRunTimeout ended it
)

// Imports runs imports in the background, so that the import page can
// show the progress of a large file. Runs are kept in this process only
// (behind a load balancer the page's polls must reach the same instance:
// sticky sessions); a finished run is kept for ImportRunTTL.
//
// Lifecycle: NewImports, then Start; Begin is refused with
// ErrImportsStopped before Start and once Stop began. Stop stops
// accepting, waits for the running imports until its context ends, then
// cancels those still running (they are recorded ImportCancelled; an
// import in ModeAll writes nothing then, as it writes in one transaction
// at the end) and waits for them to end. main stops it after the HTTP
// server and before the engine and the database. Safe for concurrent use.
type Imports struct {
	cat *Catalog

	mu        sync.Mutex
	runs      map[string]*ImportRun
	base      context.Context
	cancel    context.CancelFunc
	accepting bool
	wg        sync.WaitGroup
}

// NewImports returns the background imports of cat, not yet started.
func NewImports(cat *Catalog) *Imports {
	return &Imports{cat: cat, runs: map[string]*ImportRun{}}
}

// BackgroundImport is an import to run in the background: the arguments
// of (*Catalog).Import, and the caller's own value.
type BackgroundImport struct {
	WorkspaceID string
	Target      models.CollectionRef
	File        *ImportFile
	// Options are the import's options; their Progress, when not nil, is
	// called besides the run's own.
	Options ImportOptions
	// Tag is the caller's value kept with the run (the import page keeps
	// its form there); see (*ImportRun).Tag.
	Tag any
}

// ImportRun is one background import. Its methods are safe for
// concurrent use.
type ImportRun struct {
	id     string
	userID int64
	tag    any
	ctx    context.Context

	mu       sync.Mutex
	done     int
	total    int
	status   string
	finished time.Time
	report   *ImportReport
	err      error
}

// Start makes im accept imports. Runs use a context carrying ctx's values
// but not its end: Stop ends them. It is an error to start twice.
func (im *Imports) Start(ctx context.Context) error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.base != nil {
		return errors.New("catalog: imports: started twice")
	}
	im.base, im.cancel = context.WithCancel(context.WithoutCancel(ctx))
	im.accepting = true
	return nil
}

// Stop stops accepting imports and waits for the running ones until ctx
// ends; then it cancels them and waits for them to end (an import stops
// between two jobs or at its next database call). It returns nil when
// every import completed, else an error wrapping ctx's saying how many
// were cancelled.
func (im *Imports) Stop(ctx context.Context) error {
	im.mu.Lock()
	im.accepting = false
	cancel := im.cancel
	im.mu.Unlock()
	if cancel == nil {
		return nil // never started
	}
	defer cancel()
	done := make(chan struct{})
	go func() { im.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	select {
	case <-done:
		return nil // ended meanwhile
	default:
	}
	cancel()
	<-done
	n := 0
	im.mu.Lock()
	for _, run := range im.runs {
		if run.Status() == ImportCancelled {
			n++
		}
	}
	im.mu.Unlock()
	return fmt.Errorf("catalog: stop imports: %d cancelled: %w", n, ctx.Err())
}

// Begin starts the import in for actor in the background and returns its
// run, or ErrImportsStopped.
func (im *Imports) Begin(actor Actor, in BackgroundImport) (*ImportRun, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	total := 0
	if in.File != nil {
		total = len(in.File.Jobs)
	}
	run := &ImportRun{id: hex.EncodeToString(b[:]), userID: actor.UserID, tag: in.Tag, total: total, status: ImportRunning}
	im.mu.Lock()
	if !im.accepting {
		im.mu.Unlock()
		return nil, ErrImportsStopped
	}
	for id, old := range im.runs {
		old.mu.Lock()
		expired := !old.finished.IsZero() && time.Since(old.finished) > ImportRunTTL
		old.mu.Unlock()
		if expired {
			delete(im.runs, id)
		}
	}
	im.runs[run.id] = run
	ctx, cancel := context.WithTimeout(im.base, ImportRunTimeout)
	run.ctx = ctx
	im.wg.Add(1)
	im.mu.Unlock()
	go func() {
		defer im.wg.Done()
		defer cancel()
		opts := in.Options
		progress := opts.Progress
		opts.Progress = func(done, total int) {
			run.progress(done, total)
			if progress != nil {
				progress(done, total)
			}
		}
		rep, err := im.cat.Import(ctx, actor, in.WorkspaceID, in.Target, in.File, opts)
		status := ImportCompleted
		if err != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			status = ImportCancelled
		}
		run.mu.Lock()
		run.report, run.err, run.status, run.finished = rep, err, status, time.Now()
		run.mu.Unlock()
	}()
	return run, nil
}

// Run returns the run id of actor (the user who began it), or nil.
func (im *Imports) Run(id string, actor Actor) *ImportRun {
	im.mu.Lock()
	defer im.mu.Unlock()
	run := im.runs[id]
	if run == nil || run.userID != actor.UserID {
		return nil
	}
	return run
}

// ID is the run's id, for the page to poll.
func (run *ImportRun) ID() string { return run.id }

// Tag is the value BackgroundImport.Tag gave.
func (run *ImportRun) Tag() any { return run.tag }

func (run *ImportRun) progress(done, total int) {
	run.mu.Lock()
	run.done, run.total = done, total
	run.mu.Unlock()
}

// Progress returns how many of how many jobs are checked.
func (run *ImportRun) Progress() (done, total int) {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.done, run.total
}

// Status is ImportRunning, ImportCompleted or ImportCancelled.
func (run *ImportRun) Status() string {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.status
}

// Finished reports whether the run ended (completed or cancelled).
func (run *ImportRun) Finished() bool { return run.Status() != ImportRunning }

// Result is the report and error of (*Catalog).Import once the run
// finished; nil, nil while it runs.
func (run *ImportRun) Result() (*ImportReport, error) {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.report, run.err
}
