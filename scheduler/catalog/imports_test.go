package catalog_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"sked/scheduler/catalog"
)

// jobsFile is an import file of n jobs.
func jobsFile(t *testing.T, n int) *catalog.ImportFile {
	t.Helper()
	jobs := make([]string, n)
	for i := range jobs {
		jobs[i] = named("job"+strconv.Itoa(i), seedJob)
	}
	f, err := catalog.ParseImport([]byte("[" + strings.Join(jobs, ",") + "]"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// waitFinished waits for run to finish.
func waitFinished(t *testing.T, run *catalog.ImportRun) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !run.Finished() {
		if time.Now().After(deadline) {
			t.Fatal("the import did not finish")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestImportsStopCancelsARunningImport: an import still running when
// Stop's deadline passes is cancelled, recorded as such, writes nothing,
// and Stop returns; afterwards no import is accepted.
func TestImportsStopCancelsARunningImport(t *testing.T) {
	e := newEnv(t)
	im := catalog.NewImports(e.cat)
	if err := im.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	actor := catalog.Actor{UserID: e.user.ID}
	entered := make(chan struct{})
	runs := make(chan *catalog.ImportRun, 1)
	opts := catalog.ImportOptions{Progress: func(done, total int) {
		if done == 1 {
			close(entered)
			// Hold the import until Stop cancels it.
			<-catalog.RunContext(<-runs).Done()
		}
	}}
	run, err := im.Begin(actor, catalog.BackgroundImport{Target: ref("rg", "jc"), File: jobsFile(t, 3), Options: opts, Tag: "form"})
	if err != nil {
		t.Fatal(err)
	}
	runs <- run
	<-entered
	if run.Finished() {
		t.Fatal("the import finished while held")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- im.Stop(ctx) }()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stop: %v, want an error wrapping context.DeadlineExceeded", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return")
	}
	if got := run.Status(); got != catalog.ImportCancelled {
		t.Errorf("status %q, want %q", got, catalog.ImportCancelled)
	}
	if rep, err := run.Result(); rep != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("result %v, %v; want no report and context.Canceled", rep, err)
	}
	if run.Tag() != "form" {
		t.Errorf("tag %v, want form", run.Tag())
	}
	if n := e.count(); n != 0 {
		t.Errorf("the cancelled import wrote %d jobs", n)
	}
	if _, err := im.Begin(actor, catalog.BackgroundImport{Target: ref("rg", "jc"), File: jobsFile(t, 1)}); !errors.Is(err, catalog.ErrImportsStopped) {
		t.Errorf("Begin after Stop: %v, want ErrImportsStopped", err)
	}
}

// TestImportsStopWaitsForARunningImport: an import that ends before Stop's
// deadline completes, and Stop returns nil. Only its user sees the run.
func TestImportsStopWaitsForARunningImport(t *testing.T) {
	e := newEnv(t)
	im := catalog.NewImports(e.cat)
	actor := catalog.Actor{UserID: e.user.ID}
	if _, err := im.Begin(actor, catalog.BackgroundImport{Target: ref("rg", "jc"), File: jobsFile(t, 1)}); !errors.Is(err, catalog.ErrImportsStopped) {
		t.Errorf("Begin before Start: %v, want ErrImportsStopped", err)
	}
	if err := im.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, err := im.Begin(actor, catalog.BackgroundImport{Target: ref("rg", "jc"), File: jobsFile(t, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if im.Run(run.ID(), actor) != run || im.Run(run.ID(), catalog.Actor{UserID: e.user.ID + 1}) != nil {
		t.Error("Run must find the run for its user only")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := im.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	waitFinished(t, run)
	if got := run.Status(); got != catalog.ImportCompleted {
		t.Errorf("status %q, want %q", got, catalog.ImportCompleted)
	}
	rep, err := run.Result()
	if err != nil || rep == nil || rep.Summary.Written != 3 {
		t.Fatalf("result %+v, %v; want 3 jobs written", rep, err)
	}
	if done, total := run.Progress(); done != 3 || total != 3 {
		t.Errorf("progress %d of %d, want 3 of 3", done, total)
	}
}
