package handlers

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// The ARM resource types.
const (
	typeCollection = "Microsoft.Scheduler/jobCollections"
	typeJob        = "Microsoft.Scheduler/jobCollections/jobs"
	typeHistory    = "Microsoft.Scheduler/jobCollections/jobs/history"
)

// collectionID is the ARM id of a collection.
func collectionID(c *models.CollectionRow) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Scheduler/jobCollections/%s",
		c.WorkspaceID, c.ResourceGroup, c.Name)
}

// armCollection is a collection as the API writes it.
type armCollection struct {
	ID         string             `json:"id"`
	Type       string             `json:"type"`
	Name       string             `json:"name"`
	Location   string             `json:"location"`
	Tags       json.RawMessage    `json:"tags"`
	Properties armCollectionProps `json:"properties"`
}

type armCollectionProps struct {
	SKU struct {
		Name string `json:"name"`
	} `json:"sku"`
	State string   `json:"state"`
	Quota armQuota `json:"quota"`
	// Signing is whether the collection signs its jobs' requests (SPEC
	// §13.3, signed job requests; see withSigning).
	Signing armSigning `json:"signing"`
	// StateNote is why the collection is not Enabled; StateChangedBy and
	// StateChangedAt who last changed its state or note and when (SPEC
	// §13.2; read-only, absent until set).
	StateNote      string     `json:"stateNote,omitempty"`
	StateChangedBy string     `json:"stateChangedBy,omitempty"`
	StateChangedAt *time.Time `json:"stateChangedAt,omitempty"`
}

type armQuota struct {
	MaxJobCount      int              `json:"maxJobCount"`
	MaxJobOccurrence *int             `json:"maxJobOccurrence,omitempty"`
	MaxRecurrence    armMaxRecurrence `json:"maxRecurrence"`
}

type armMaxRecurrence struct {
	Frequency string `json:"frequency"`
	Interval  int    `json:"interval"`
}

// toARMCollection writes a collection with its effective quota.
func toARMCollection(c *models.CollectionRow) armCollection {
	q := c.Quota()
	out := armCollection{ID: collectionID(c), Type: typeCollection, Name: c.Name, Location: c.Location, Tags: c.Tags}
	if len(out.Tags) == 0 {
		out.Tags = json.RawMessage(`{}`)
	}
	out.Properties.SKU.Name = c.SKU
	out.Properties.State = string(c.State)
	out.Properties.StateNote, out.Properties.StateChangedBy = c.StateNote, c.StateChangedBy
	if c.StateChangedAt != nil {
		at := c.StateChangedAt.UTC()
		out.Properties.StateChangedAt = &at
	}
	out.Properties.Quota = armQuota{MaxJobCount: q.MaxJobCount,
		MaxRecurrence: armMaxRecurrence{Frequency: string(q.MaxRecurrence.Frequency), Interval: q.MaxRecurrence.Interval}}
	if q.MaxJobOccurrence > 0 {
		n := q.MaxJobOccurrence
		out.Properties.Quota.MaxJobOccurrence = &n
	}
	return out
}

// armJob is a job as the API writes it.
type armJob struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Properties json.RawMessage `json:"properties"`
}

// armStatus is a job's read-only status.
type armStatus struct {
	LastExecutionTime *string `json:"lastExecutionTime,omitempty"`
	NextExecutionTime *string `json:"nextExecutionTime,omitempty"`
	ExecutionCount    int64   `json:"executionCount"`
	FailureCount      int64   `json:"failureCount"`
	FaultedCount      int64   `json:"faultedCount"`
}

// toARMJob writes a stored job: its canonical definition with times given
// offsets, its current state with its note and who changed it when, and
// its status. now and cals (the calendars
// of the collection's workspace) compute the next execution time of a job
// the engine has not scheduled yet.
func toARMJob(coll *models.CollectionRow, j *models.Job, now time.Time, cals recurrence.Calendars) armJob {
	job, err := parseStoredJob(j)
	return armJobFrom(coll, j, job, err, now, cals)
}

// parseStoredJob parses the stored definition of j.
func parseStoredJob(j *models.Job) (*jobdef.Job, error) {
	return jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
}

// armJobFrom is toARMJob with the definition of j parsed (job, or the
// parse's error err: the definition is then written as stored).
func armJobFrom(coll *models.CollectionRow, j *models.Job, job *jobdef.Job, err error, now time.Time, cals recurrence.Calendars) armJob {
	props := json.RawMessage(j.Definition)
	if err == nil {
		job.State, job.StateNote = jobdef.State(j.State), j.StateNote
		props = job.MarshalProperties(jobdef.MarshalOptions{ResolveLocal: recurrence.WallInstant})
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(props, &m)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m["state"], _ = json.Marshal(j.State)
	// Who last changed the state or the note, and when (SPEC §13.2,
	// read-only: ignored on input); left out until someone did.
	if j.StateChangedAt != nil {
		m["stateChangedBy"], _ = json.Marshal(j.StateChangedBy)
		m["stateChangedAt"], _ = json.Marshal(j.StateChangedAt.UTC().Format(time.RFC3339Nano))
	}
	if j.State != jobdef.Disabled || j.ExecutionCount > 0 {
		st := armStatus{ExecutionCount: j.ExecutionCount, FailureCount: j.FailureCount, FaultedCount: j.FaultedCount}
		if j.LastRunAt != nil {
			s := j.LastRunAt.UTC().Format(time.RFC3339Nano)
			st.LastExecutionTime = &s
		}
		if next := nextExecution(j, job, now, cals); next != nil {
			s := next.UTC().Format(time.RFC3339Nano)
			st.NextExecutionTime = &s
		}
		m["status"], _ = json.Marshal(st)
	}
	out, _ := json.Marshal(m)
	return armJob{ID: collectionID(coll) + "/jobs/" + j.Name, Type: typeJob, Name: coll.Name + "/" + j.Name, Properties: out}
}

// nextExecution is the job's next run, as the job page shows it first
// (nextOccurrences): what the engine scheduled, or, for an enabled job it
// has not scheduled yet, the rule's first occurrence from its schedule
// base.
func nextExecution(j *models.Job, job *jobdef.Job, now time.Time, cals recurrence.Calendars) *time.Time {
	next := nextOccurrences(&models.JobDetail{Job: *j}, job, now, 1, cals)
	if len(next) == 0 {
		return nil
	}
	return &next[0]
}

// armHistory is a history entry as the API writes it.
type armHistory struct {
	ID         string               `json:"id"`
	Type       string               `json:"type"`
	Name       string               `json:"name"`
	Properties armHistoryProperties `json:"properties"`
}

type armHistoryProperties struct {
	StartTime             string               `json:"startTime"`
	EndTime               *string              `json:"endTime,omitempty"`
	ExpectedExecutionTime string               `json:"expectedExecutionTime"`
	ActionName            models.ActionName    `json:"actionName"`
	Status                models.HistoryStatus `json:"status"`
	Message               string               `json:"message"`
	RetryCount            int                  `json:"retryCount"`
	RepeatCount           int64                `json:"repeatCount"`
	// RerunOf (the id of the entry re-run) and RerunBy (who asked) mark
	// the attempts of a re-run (extension); absent otherwise.
	RerunOf *string `json:"rerunOf,omitempty"`
	RerunBy *string `json:"rerunBy,omitempty"`
	// Changes are the changes of a run with changes, secret header values
	// masked, and Backfill the id of the backfill that ran the attempt
	// (extensions, SPEC §16.3, §16.4); absent otherwise.
	Changes  json.RawMessage `json:"changes,omitempty"`
	Backfill *int64          `json:"backfill,omitempty"`
	// LimitWaitMs is how long the attempt waited for its host's target
	// limit, in milliseconds (extension); absent when no limit held it.
	LimitWaitMs *int64 `json:"limitWaitMs,omitempty"`
	// TriggeredBy are the upstream ends that triggered the entry's run,
	// and Triggered the runs its end triggered (extensions, SPEC §17.1,
	// history_triggers.go); absent when there are none.
	TriggeredBy []armTriggerCause `json:"triggeredBy,omitempty"`
	Triggered   []armTriggeredRun `json:"triggered,omitempty"`
}

// toARMHistory writes one history entry of job j.
func toARMHistory(coll *models.CollectionRow, j *models.Job, h *models.HistoryEntry) armHistory {
	id := strconv.FormatInt(h.ID, 10)
	out := armHistory{
		ID:   collectionID(coll) + "/jobs/" + j.Name + "/history/" + id,
		Type: typeHistory,
		Name: coll.Name + "/" + j.Name + "/" + id,
		Properties: armHistoryProperties{
			StartTime:             h.StartTime.UTC().Format(time.RFC3339Nano),
			ExpectedExecutionTime: h.ExpectedExecutionTime.UTC().Format(time.RFC3339Nano),
			ActionName:            h.ActionName,
			Status:                h.Status,
			Message:               h.Message,
			RetryCount:            h.RetryCount,
			RepeatCount:           h.RepeatCount,
			LimitWaitMs:           h.LimitWaitMs,
		},
	}
	if h.EndTime != nil {
		s := h.EndTime.UTC().Format(time.RFC3339Nano)
		out.Properties.EndTime = &s
	}
	if h.RerunOf != nil {
		of := collectionID(coll) + "/jobs/" + j.Name + "/history/" + strconv.FormatInt(*h.RerunOf, 10)
		out.Properties.RerunOf, out.Properties.RerunBy = &of, h.RerunBy
	}
	out.Properties.Changes, out.Properties.Backfill = h.Changes, h.BackfillID
	return out
}

// armList is a page of a list.
type armList[T any] struct {
	Value    []T    `json:"value"`
	NextLink string `json:"nextLink,omitempty"`
}
