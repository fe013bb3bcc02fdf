package models

// The orders of the "All jobs" page (SearchJobs, the bulk selection) and
// their keyset paging: each order is one btree index of migration 0011
// (failures: job_results_failures_idx, migration 0029), and a page ends
// at a JobCursor, the sort key and id of its last job.

import (
	"fmt"
	"strings"
	"time"
)

// JobSort is an order of SearchJobs. Each ends with the job id, so that
// equal keys still have one order and keyset paging visits every job once.
type JobSort string

// The orders of SearchJobs.
const (
	// SortNext is by next run, soonest first; jobs without one last.
	SortNext JobSort = "next"
	// SortLast is by last run, newest first; jobs that never ran last.
	SortLast JobSort = "last"
	// SortName is by name, case-insensitively.
	SortName JobSort = "name"
	// SortFailures is by failure count (all time), most first.
	SortFailures JobSort = "failures"
)

// JobSorts lists the orders of SearchJobs, the default first.
var JobSorts = []JobSort{SortNext, SortLast, SortName, SortFailures}

// JobCursor is where a page of SearchJobs ends: the sort key of its last
// job and that job's id. Exactly the field of the page's order is used:
// Time for SortNext and SortLast (nil: the job has no such run), Name
// for SortName (lower-cased), Count for SortFailures.
type JobCursor struct {
	Time  *time.Time
	Name  string
	Count int64
	ID    int64
}

// Cursor is the keyset position of r in order sort.
func (r *JobSearchRow) Cursor(sort JobSort) JobCursor {
	c := JobCursor{ID: r.ID}
	switch sort {
	case SortLast:
		c.Time = r.LastRunAt
	case SortName:
		c.Name = strings.ToLower(r.Name)
	case SortFailures:
		c.Count = r.FailureCount
	default:
		c.Time = r.NextRunAt
	}
	return c
}

// The sort keys, as in the indexes of migration 0011.
const (
	nextKey = `coalesce(j.next_run_at, 'infinity'::timestamptz)`
	lastKey = `coalesce(j.last_run_at, '-infinity'::timestamptz)`
)

// keyset adds the condition "after the cursor" of sort to a query (add)
// and returns its ORDER BY.
func keyset(sort JobSort, after *JobCursor, add func(string, ...any)) (string, error) {
	return keysetCond(sort, after, false, add)
}

// keysetCond is keyset, or with upTo the condition "up to the cursor,
// included" (the end of a walk).
func keysetCond(sort JobSort, after *JobCursor, upTo bool, add func(string, ...any)) (string, error) {
	// cmpID adds (key, id) op (cursor), the operator turned round for
	// upTo; cmp with the job's id.
	cmpID := func(key, id, op string, arg any) {
		if upTo {
			op = map[string]string{">": "<=", "<": ">="}[op]
		}
		add("("+key+", "+id+") "+op+" ("+key2(arg)+", ?)", append(keyArgs(arg), after.ID)...)
	}
	cmp := func(key, op string, arg any) { cmpID(key, "j.id", op, arg) }
	// timeKey is the cursor's time, or for none the infinity the key
	// gives a job without that run.
	timeKey := func(none string) any {
		if after.Time == nil {
			return rawSQL(none + "::timestamptz")
		}
		return *after.Time
	}
	switch sort {
	case SortNext, "":
		if after != nil {
			cmp(nextKey, ">", timeKey("'infinity'"))
		}
		return nextKey + ", j.id", nil
	case SortLast:
		if after != nil {
			cmp(lastKey, "<", timeKey("'-infinity'"))
		}
		return lastKey + " DESC, j.id DESC", nil
	case SortName:
		if after != nil {
			cmp("lower(j.name)", ">", after.Name)
		}
		return "lower(j.name), j.id", nil
	case SortFailures:
		// job_results_failures_idx (failure_count, job_id) orders it: the
		// keyset names its columns (result_id is the job's id), and every
		// job has its results row, which "IS NOT NULL" tells the planner
		// so that the walk of that index drives the join.
		add("j.result_id IS NOT NULL")
		if after != nil {
			cmpID("j.failure_count", "j.result_id", "<", after.Count)
		}
		return "j.failure_count DESC, j.result_id DESC", nil
	}
	return "", fmt.Errorf("models: search jobs: unknown sort %q", sort)
}

// rawSQL is a key written into the query rather than passed.
type rawSQL string

// key2 is the SQL of a cursor key: a placeholder, or rawSQL as it is.
func key2(arg any) string {
	switch a := arg.(type) {
	case rawSQL:
		return string(a)
	case time.Time:
		return "?::timestamptz"
	}
	return "?"
}

// keyArgs is the argument of a cursor key: none for rawSQL.
func keyArgs(arg any) []any {
	if _, raw := arg.(rawSQL); raw {
		return nil
	}
	return []any{arg}
}
