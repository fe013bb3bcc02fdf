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
	for _, st := range CollectionStates {
		if strings.EqualFold(s, string(st)) {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q is not a collection state (Enabled, Disabled or Suspended)", s)
}

// JobStates are the job states in the order the API lists them.
var JobStates = []jobdef.State{jobdef.Enabled, jobdef.Disabled, jobdef.Completed, jobdef.Faulted}

// ParseJobState reads a job state in any letter case.
func ParseJobState(s string) (jobdef.State, error) {
	for _, st := range JobStates {
		if strings.EqualFold(s, string(st)) {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q is not a job state (Enabled, Disabled, Completed or Faulted)", s)
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
	for _, st := range HistoryStatuses {
		if strings.EqualFold(s, string(st)) {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q is not a history status (Completed, Failed or Postponed)", s)
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
	for _, a := range ActionNames {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	return "", fmt.Errorf("%q is not an action (MainAction or ErrorAction)", s)
}
