package models

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"sked/models/jobdef"
	"sked/models/notifydef"

	"gorm.io/gorm"
)

// NotifySendPayload is the payload of the notification on NotifyChannel
// that says "a notification was stored": the engines' senders look for
// due notifications (the claim loops ignore it).
const NotifySendPayload = "notifications"

// jobEvent is an event of a job found by one of the engine's writes
// (FinishAttempts, ClaimDue), which the alert rules of the job's scope may
// send (SPEC §13.3). enqueueJobEvents turns it into notifications in the
// write's transaction.
type jobEvent struct {
	jobID      int64
	typ        notifydef.EventType
	at         time.Time
	occurrence *notifydef.Occurrence
	attempt    *notifydef.Attempt
	// description is the job's schedule description ("" when unknown).
	description string
	// faults is, for consecutiveFailures, the faulted occurrences in a
	// row the event completes: a rule fires when it equals its threshold.
	faults int
	// src is the index of the outcome the event comes from (FinishAttempts).
	src int
	// stored is set by enqueueJobEvents: the notifications stored for it.
	stored int
}

// ruleMatch is an alert rule of a job's scope, with the job's names and
// state, as enqueueJobEvents reads them.
type ruleMatch struct {
	JobID         int64
	Job           string
	Collection    string
	ResourceGroup string
	WorkspaceID   string
	State         string
	RuleID        int64
	RuleName      string
	ChannelID     int64
	ChannelName   string
	Events        json.RawMessage
	Threshold     int
	MinIntervalMs int64
}

// sends reports whether the rule sends ev.
func (m *ruleMatch) sends(ev *jobEvent) bool {
	var types []notifydef.EventType
	if err := json.Unmarshal(m.Events, &types); err != nil {
		return false
	}
	for _, t := range types {
		if t == ev.typ {
			return t != notifydef.ConsecutiveFailures || ev.faults == m.Threshold
		}
	}
	return false
}

// enqueueJobEvents stores, in tx, one notification per event and alert
// rule of its job's scope that sends it (a rule with minInterval through
// throttle), and tells the engines' senders (NotifySendPayload). It
// returns how many notifications it stored or counted into a digest.
func enqueueJobEvents(tx *gorm.DB, evs []jobEvent) (int, error) {
	if len(evs) == 0 {
		return 0, nil
	}
	ids := make([]int64, 0, len(evs))
	seen := map[int64]bool{}
	for _, ev := range evs {
		if !seen[ev.jobID] {
			seen[ev.jobID] = true
			ids = append(ids, ev.jobID)
		}
	}
	var matches []ruleMatch
	err := tx.Raw(`
		SELECT j.id AS job_id, j.name AS job, jc.name AS collection, rg.name AS resource_group, rg.workspace_id, j.state,
		       r.id AS rule_id, r.name AS rule_name, r.channel_id, c.name AS channel_name, r.events, r.threshold,
		       r.min_interval_ms
		FROM jobs j
		JOIN job_collections jc ON jc.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = jc.resource_group_id
		JOIN alert_rules r ON `+alertRuleApplies+`
		JOIN channels c ON c.id = r.channel_id
		WHERE j.id IN ?
		ORDER BY j.id, r.id`, ids).Scan(&matches).Error
	if err != nil {
		return 0, fmt.Errorf("alert rules of %d jobs: %w", len(ids), err)
	}
	if len(matches) == 0 {
		return 0, nil
	}
	byJob := map[int64][]*ruleMatch{}
	for i := range matches {
		byJob[matches[i].JobID] = append(byJob[matches[i].JobID], &matches[i])
	}
	var now []NotificationWrite
	n := 0
	for i := range evs {
		ev := &evs[i]
		for _, m := range byJob[ev.jobID] {
			if !m.sends(ev) {
				continue
			}
			w, err := m.notification(ev)
			if err != nil {
				return 0, err
			}
			n++
			ev.stored++
			if m.MinIntervalMs == 0 {
				now = append(now, w)
				continue
			}
			if err := throttle(tx, m, w); err != nil {
				return 0, err
			}
		}
	}
	if err := insertNotifications(tx, now); err != nil {
		return 0, err
	}
	if n == 0 || len(now) > 0 {
		return n, nil // insertNotifications told the senders
	}
	if err := tx.Exec(`SELECT pg_notify(?, ?)`, NotifyChannel, NotifySendPayload).Error; err != nil {
		return 0, fmt.Errorf("notify senders: %w", err)
	}
	return n, nil
}

// insertNotifications stores ws, pending and due at their NotBefore, in
// one statement, which also tells the engines' senders
// (NotifySendPayload).
func insertNotifications(tx *gorm.DB, ws []NotificationWrite) error {
	if len(ws) == 0 {
		return nil
	}
	type wire struct {
		WS    string          `json:"ws"`
		Ch    int64           `json:"ch"`
		ChN   string          `json:"chn"`
		Rule  int64           `json:"rule"`
		RuleN string          `json:"rulen"`
		Job   int64           `json:"job"`
		Mon   int64           `json:"mon"`
		ID    string          `json:"id"`
		Type  string          `json:"type"`
		Event json.RawMessage `json:"event"`
		At    time.Time       `json:"at"`
	}
	rows := make([]wire, len(ws))
	for i, w := range ws {
		rows[i] = wire{WS: w.WorkspaceID, Ch: w.ChannelID, ChN: w.ChannelName, Rule: w.RuleID, RuleN: w.RuleName, Job: w.JobID,
			Mon: w.MonitorID, ID: w.EventID, Type: w.EventType, Event: w.Event, At: w.NotBefore}
	}
	data, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("store %d notifications: %w", len(ws), err)
	}
	err = tx.Exec(`WITH i AS (INSERT INTO notifications (workspace_id, channel_id, channel_name, rule_id, rule_name, job_id,
			monitor_id, event_id, event_type, event, status, next_attempt_at, created_at, updated_at)
		SELECT ws, ch, chn, nullif(rule, 0), rulen, nullif(job, 0), nullif(mon, 0), id, type, event, ?, at,
			clock_timestamp(), clock_timestamp()
		FROM json_to_recordset(?::json) AS w(ws text, ch bigint, chn text, rule bigint, rulen text, job bigint, mon bigint,
			id text, type text, event jsonb, at timestamptz))
		SELECT pg_notify(?, ?)`, NotificationPending, string(data), NotifyChannel, NotifySendPayload).Error
	if err != nil {
		return fmt.Errorf("store %d notifications: %w", len(ws), err)
	}
	return nil
}

// notification returns the notification of ev for the rule m, due at
// the event's time.
func (m *ruleMatch) notification(ev *jobEvent) (NotificationWrite, error) {
	id, err := notifydef.NewEventID()
	if err != nil {
		return NotificationWrite{}, err
	}
	e := notifydef.Event{Type: ev.typ, ID: id, Time: ev.at.UTC(), Workspace: m.WorkspaceID, ResourceGroup: m.ResourceGroup,
		Collection: m.Collection, Job: m.Job, Occurrence: ev.occurrence, Attempt: ev.attempt,
		JobInfo: &notifydef.JobInfo{State: m.State, Description: ev.description}}
	doc, err := json.Marshal(&e)
	if err != nil {
		return NotificationWrite{}, fmt.Errorf("event %s: %w", ev.typ, err)
	}
	return NotificationWrite{WorkspaceID: m.WorkspaceID, ChannelID: m.ChannelID, ChannelName: m.ChannelName,
		RuleID: m.RuleID, RuleName: m.RuleName, JobID: ev.jobID, EventID: id, EventType: string(ev.typ), Event: doc,
		NotBefore: ev.at}, nil
}

// attemptEvent is the event of a recorded attempt r with outcome o.
func attemptEvent(typ notifydef.EventType, o *AttemptOutcome, r *finishedRow) jobEvent {
	status := StatusCompleted
	if !o.Succeeded {
		status = StatusFailed
	}
	start, end := r.StartedAt.UTC(), o.Now.UTC()
	if end.Before(start) {
		end = start
	}
	return jobEvent{jobID: r.JobID, typ: typ, at: o.Now, description: o.Description,
		occurrence: &notifydef.Occurrence{ExpectedTime: r.ExpectedTime.UTC(), RepeatCount: int(r.Occurrence)},
		attempt: &notifydef.Attempt{Action: string(r.Action), Status: string(status), RetryCount: r.Attempt - 1,
			Message: cleanText(o.Message), StartTime: &start, EndTime: &end}}
}

// postponedEvent is the missed event of a Postponed history entry of a
// job described by description.
func postponedEvent(h *HistoryEntry, description string) jobEvent {
	start := h.StartTime.UTC()
	return jobEvent{jobID: h.JobID, typ: notifydef.Missed, at: h.StartTime, description: description,
		occurrence: &notifydef.Occurrence{ExpectedTime: h.ExpectedExecutionTime.UTC(), RepeatCount: int(h.RepeatCount)},
		attempt: &notifydef.Attempt{Action: string(h.ActionName), Status: string(h.Status), Message: h.Message,
			StartTime: &start, EndTime: &start}}
}

// endEvent is the event of a job described by description that ended in
// state at now.
func endEvent(jobID int64, state jobdef.State, now time.Time, description string) jobEvent {
	typ := notifydef.JobCompleted
	if state == jobdef.Faulted {
		typ = notifydef.JobFaulted
	}
	return jobEvent{jobID: jobID, typ: typ, at: now, description: description}
}

// faultStep is what one recorded outcome does to its job's faulted
// occurrences in a row.
type faultStep int

const (
	noStep    faultStep = iota
	faultUp             // the occurrence's main action faulted: one more
	faultDone           // the occurrence ended without a fault: back to 0
)

// stepOf returns what outcome o does to the count.
func stepOf(o *AttemptOutcome) faultStep {
	switch {
	case o.Faulted:
		return faultUp
	case o.Next == nil && !o.OccurrenceFaulted:
		return faultDone
	}
	return noStep
}

// outcomeEvents returns the events of the outcomes a FinishAttempts
// batch recorded (res[i].Recorded; rows by attempt id; ended the state of
// the jobs it ended), in attempt order per job: attemptFailed for every
// failed attempt, occurrenceFaulted when a main action faults,
// consecutiveFailures and recovered from the job's faulted occurrences in
// a row (from the count before the batch, which FinishAttempts' statement
// also brought up to date in the same way), jobCompleted or jobFaulted
// when the job ended.
func outcomeEvents(outcomes []AttemptOutcome, res []FinishedAttempt, rows map[int64]*finishedRow,
	ended map[int64]jobdef.State) []jobEvent {
	order := make([]int, 0, len(outcomes))
	for i := range outcomes {
		if !res[i].Recorded {
			continue
		}
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(outcomes[a].AttemptID, outcomes[b].AttemptID) })
	count := map[int64]int{}
	for _, i := range order {
		r := rows[outcomes[i].AttemptID]
		count[r.JobID] = r.ConsecutiveFaults
	}
	var evs []jobEvent
	add := func(ev jobEvent, i int) {
		ev.src = i
		evs = append(evs, ev)
	}
	for _, i := range order {
		o, r := &outcomes[i], rows[outcomes[i].AttemptID]
		if !o.Succeeded {
			add(attemptEvent(notifydef.AttemptFailed, o, r), i)
		}
		switch stepOf(o) {
		case faultUp:
			count[r.JobID]++
			add(attemptEvent(notifydef.OccurrenceFaulted, o, r), i)
			ev := attemptEvent(notifydef.ConsecutiveFailures, o, r)
			ev.faults = count[r.JobID]
			add(ev, i)
		case faultDone:
			if count[r.JobID] > 0 {
				add(attemptEvent(notifydef.Recovered, o, r), i)
			}
			count[r.JobID] = 0
		}
		if st, ok := ended[o.AttemptID]; ok {
			add(endEvent(r.JobID, st, o.Now, o.Description), i)
		}
	}
	return evs
}
