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
