package models

import (
	"fmt"
	"strings"

	"sked/models/jobdef"
)

// The typed states of Sked's records, with their canonical spellings and
// their parsing in this one file (a job's state is jobdef.State, since the
// job definition carries it too). No other package spells these values
// as string literals; TestNoStateLiterals checks it.

// CollectionState is the state of a job collection, spelled as the Azure
// API spells it (capitalised).
type CollectionState string

// The collection states. Suspended is set by Azure for a subscription
// problem; Sked accepts and keeps it but never sets it itself.
const (
	CollectionEnabled   CollectionState = "Enabled"
	CollectionDisabled  CollectionState = "Disabled"
	CollectionSuspended CollectionState = "Suspended"
)

// CollectionStates are the collection states in the order the API lists
// them.
var CollectionStates = []CollectionState{CollectionEnabled, CollectionDisabled, CollectionSuspended}

// ParseCollectionState reads a collection state in any letter case.
func ParseCollectionState(s string) (CollectionState, error) {
	return parseSpelling(s, CollectionStates, "a collection state")
}

// JobStates are the job states in the order the API lists them.
var JobStates = []jobdef.State{jobdef.Enabled, jobdef.Disabled, jobdef.Completed, jobdef.Faulted}

// ParseJobState reads a job state in any letter case.
func ParseJobState(s string) (jobdef.State, error) {
	return parseSpelling(s, JobStates, "a job state")
}

// HistoryStatus is the status of a history entry.
type HistoryStatus string

// The history statuses: an attempt that succeeded or failed, or an
// occurrence that did not run (Postponed: skipped by the misfire policy or
// by concurrency).
const (
	StatusCompleted HistoryStatus = "Completed"
	StatusFailed    HistoryStatus = "Failed"
	StatusPostponed HistoryStatus = "Postponed"
)

// StatusRunning is the status of a job_history row while its attempt runs
// (migration 0041): an attempt the schedule started is its history row
// from the start, and its end makes it Completed or Failed. It is not an
// entry yet: no reader of the history shows or counts it (finishedEntry),
// and HistoryStatuses leaves it out, so that no filter names it.
const StatusRunning HistoryStatus = "Running"

// RecordsMigration is the migration that lets an attempt be its history
// row from its start (StatusRunning). An engine starts attempts that way
// only while no live instance knows fewer migrations (their releases read
// no such row; Heartbeat's OlderLive).
const RecordsMigration = 41

// finishedEntry is the SQL condition, on a job_history row h, of an entry:
// a finished attempt or a postponed occurrence, not an attempt running.
const finishedEntry = `h.status <> 'Running'`

// HistoryStatuses are the history statuses in the order filters list them.
var HistoryStatuses = []HistoryStatus{StatusCompleted, StatusFailed, StatusPostponed}

// ParseHistoryStatus reads a history status in any letter case.
func ParseHistoryStatus(s string) (HistoryStatus, error) {
	return parseSpelling(s, HistoryStatuses, "a history status")
}

// ActionName names which action of a job an attempt or history entry is
// about.
type ActionName string

// The action names, as in the history and the job_attempts table.
const (
	MainAction  ActionName = "MainAction"
	ErrorAction ActionName = "ErrorAction"
)

// ActionNames are the action names in the order filters list them.
var ActionNames = []ActionName{MainAction, ErrorAction}

// ParseActionName reads an action name in any letter case.
func ParseActionName(s string) (ActionName, error) {
	return parseSpelling(s, ActionNames, "an action")
}

// parseSpelling returns the value of all that s spells in any letter
// case, or an error saying s is not what (listing all).
func parseSpelling[T ~string](s string, all []T, what string) (T, error) {
	names := make([]string, len(all))
	for i, v := range all {
		if strings.EqualFold(s, string(v)) {
			return v, nil
		}
		names[i] = string(v)
	}
	return "", fmt.Errorf("%q is not %s (%s)", s, what, strings.Join(names, ", "))
}

// BackfillState is the state of a backfill (SPEC §16.3): running while it
// has runs queued or started, then done, or cancelled by a user (its
// started runs still finish).
type BackfillState string

// The backfill states.
const (
	BackfillRunning   BackfillState = "running"
	BackfillDone      BackfillState = "done"
	BackfillCancelled BackfillState = "cancelled"
)

// BackfillRunState is the state of one occurrence a backfill runs: queued
// (not started yet), started (its attempts are open), then succeeded,
// failed, or cancelled (the backfill was cancelled before it started).
type BackfillRunState string

// The backfill run states.
const (
	BackfillQueued       BackfillRunState = "queued"
	BackfillStarted      BackfillRunState = "started"
	BackfillSucceeded    BackfillRunState = "succeeded"
	BackfillFailed       BackfillRunState = "failed"
	BackfillRunCancelled BackfillRunState = "cancelled"
)

// BackfillOnly says which occurrences of its range a backfill runs:
// missing (those that did not succeed: never ran or failed), failed (those
// that ran and failed), all.
type BackfillOnly string

// The backfill selections; BackfillMissing is the default.
const (
	BackfillMissing    BackfillOnly = "missing"
	BackfillOnlyFailed BackfillOnly = "failed"
	BackfillAll        BackfillOnly = "all"
)

// BackfillOnlys are the selections in the order the API lists them.
var BackfillOnlys = []BackfillOnly{BackfillMissing, BackfillOnlyFailed, BackfillAll}

// ParseBackfillOnly reads a backfill selection in any letter case.
func ParseBackfillOnly(s string) (BackfillOnly, error) {
	return parseSpelling(s, BackfillOnlys, "a backfill selection")
}

// BackfillOrder is the order in which a backfill starts its runs.
type BackfillOrder string

// The backfill orders; BackfillOldestFirst is the default.
const (
	BackfillOldestFirst BackfillOrder = "oldestFirst"
	BackfillNewestFirst BackfillOrder = "newestFirst"
)

// BackfillOrders are the orders in the order the API lists them.
var BackfillOrders = []BackfillOrder{BackfillOldestFirst, BackfillNewestFirst}

// ParseBackfillOrder reads a backfill order in any letter case.
func ParseBackfillOrder(s string) (BackfillOrder, error) {
	return parseSpelling(s, BackfillOrders, "a backfill order")
}
