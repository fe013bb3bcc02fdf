// Package monitordef is the wire format of a heartbeat monitor (SPEC
// §17.3): its schedule (a recurrence as a job's, with timeZone and
// calendars), its grace, description, deadline and whether it is paused.
// It is pure: no database, no clock.
package monitordef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"sked/models/jobdef"
	"sked/models/problem"
)

// Limits of a monitor.
const (
	// MaxGrace bounds grace; MinGrace is PT0S (an exact ping time is
	// hardly useful, but allowed).
	MaxGrace = 24 * time.Hour
	// DefaultGrace is grace when the definition leaves it out.
	DefaultGrace = 5 * time.Minute
	// MaxDuration bounds deadline.maxDuration.
	MaxDuration = 7 * 24 * time.Hour
	// MaxDescription bounds description, in characters.
	MaxDescription = 500
	// MaxMessage bounds a fail ping's kept body, in bytes.
	MaxMessage = 10 * 1024
)

// The kinds of ping.
type PingKind string

// The pings of SPEC §17.3.
const (
	PingSuccess PingKind = "success"
	PingStart   PingKind = "start"
	PingFail    PingKind = "fail"
)

// Status is a monitor's state as pages and answers show it.
type Status string

// The states of a monitor.
const (
	StatusNew    Status = "new"    // no occurrence decided yet
	StatusUp     Status = "up"     // the last occurrence was met (or a success came since)
	StatusLate   Status = "late"   // past an occurrence, within grace, no ping yet
	StatusDown   Status = "down"   // an occurrence was missed, no success since
	StatusPaused Status = "paused" // not evaluated
)

// namePattern is the shape of a monitor's name: it appears in URLs.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidName reports whether s may name a monitor: a letter or digit,
// then up to 63 letters, digits, '-', '_' or '.'.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// Monitor is a parsed monitor definition.
type Monitor struct {
	// Recurrence is the schedule (never nil).
	Recurrence *jobdef.Recurrence
	// Grace is how far a success ping may be from an occurrence and
	// still meet it.
	Grace time.Duration
	// Description is free text ("" for none).
	Description string
	// MaxDuration is deadline.maxDuration: how long after a start ping a
	// success may come before slowRun; 0 for none.
	MaxDuration time.Duration
	// Paused monitors are not evaluated.
	Paused bool
}

// Parse reads and validates a monitor definition. Every problem is
// reported at once in a *problem.List; a schedule's problems are named
// "schedule.…" (as a job's are "recurrence.…").
func Parse(data []byte) (*Monitor, error) {
	ps := &problem.List{}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil || doc == nil {
		ps.Add("monitor", `must be a JSON object with "schedule" (and "grace", "description", "deadline", "paused")`)
		return nil, ps
	}
	m := &Monitor{Grace: DefaultGrace}
	scheduleSeen := false
	for _, key := range slices.Sorted(maps.Keys(doc)) {
		raw := doc[key]
		switch strings.ToLower(key) {
		case "schedule":
			scheduleSeen = true
			if isNull(raw) {
				ps.Add("schedule", "is required: a recurrence such as {\"frequency\": \"day\", \"schedule\": {\"hours\": [3], \"minutes\": [0]}}")
				continue
			}
			r, err := jobdef.ParseRecurrence(raw)
			if err != nil {
				if l := problem.As(err); l != nil {
					for _, p := range l.Problems {
						ps.Add("schedule"+strings.TrimPrefix(p.Path, "recurrence"), p.Message)
					}
					continue
				}
				ps.Add("schedule", err.Error())
				continue
			}
			m.Recurrence = r
		case "grace":
			d, ok := duration(raw)
			switch {
			case !ok:
				ps.Add("grace", "must be an ISO 8601 duration such as PT5M")
			case d < 0 || d > MaxGrace:
				ps.Add("grace", fmt.Sprintf("%s is outside PT0S to P1D", string(raw)))
			default:
				m.Grace = d
			}
		case "description":
			s, ok := str(raw)
			switch {
			case !ok && !isNull(raw):
				ps.Add("description", "must be a string")
			case len([]rune(s)) > MaxDescription:
				ps.Add("description", fmt.Sprintf("is over the maximum of %d characters", MaxDescription))
			default:
				m.Description = strings.TrimSpace(s)
			}
		case "deadline":
			if isNull(raw) {
				continue
			}
			var d map[string]json.RawMessage
			if err := json.Unmarshal(raw, &d); err != nil || d == nil {
				ps.Add("deadline", `must be an object such as {"maxDuration": "PT10M"}`)
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(d)) {
				if !strings.EqualFold(k, "maxDuration") {
					ps.Add("deadline."+k, "is not a field of a monitor's deadline (maxDuration)")
					continue
				}
				v, ok := duration(d[k])
				switch {
				case !ok:
					ps.Add("deadline.maxDuration", "must be an ISO 8601 duration such as PT10M")
				case v <= 0 || v > MaxDuration:
					ps.Add("deadline.maxDuration", fmt.Sprintf("%s is outside PT1S to P7D", string(d[k])))
				default:
					m.MaxDuration = v
				}
			}
		case "paused":
			if err := json.Unmarshal(raw, &m.Paused); err != nil || isNull(raw) {
				ps.Add("paused", "must be true or false")
			}
		case "name", "status", "pingurl", "token", "createdat", "updatedat", "version", "lastping", "nextexpected", "next":
			// Written by answers; ignored on input so that a GET can be
			// sent back.
		default:
			ps.Add(key, "is not a field of a monitor (schedule, grace, description, deadline, paused)")
		}
	}
	if !scheduleSeen {
		ps.Add("schedule", "is required: a recurrence such as {\"frequency\": \"day\", \"schedule\": {\"hours\": [3], \"minutes\": [0]}}")
	}
	if m.Recurrence != nil && m.Recurrence.Count > 0 {
		ps.Add("schedule.count", "does not apply to a monitor (it expects pings until it is deleted or paused)")
	}
	if err := ps.OrNil(); err != nil {
		return nil, err
	}
	return m, nil
}

// Job returns a job that stands for the monitor's schedule, anchored at
// anchor (its startTime), so that the recurrence core compiles it as it
// compiles a job's.
func (m *Monitor) Job(anchor time.Time) *jobdef.Job {
	dt := jobdef.DateTime{Time: anchor.UTC().Truncate(time.Second), HasOffset: true, Raw: anchor.UTC().Truncate(time.Second).Format(time.RFC3339)}
	return &jobdef.Job{StartTime: &dt, Recurrence: m.Recurrence, State: jobdef.Enabled}
}

// Marshal writes the monitor in canonical form: schedule (as a job's
// recurrence is written), grace, description when set, deadline when
// set, paused.
func (m *Monitor) Marshal() json.RawMessage {
	var rec json.RawMessage
	if m.Recurrence != nil {
		var props struct {
			Recurrence json.RawMessage `json:"recurrence"`
		}
		j := &jobdef.Job{Recurrence: m.Recurrence}
		_ = json.Unmarshal(j.MarshalProperties(jobdef.MarshalOptions{}), &props)
		rec = props.Recurrence
	}
	type deadline struct {
		MaxDuration string `json:"maxDuration"`
	}
	out := struct {
		Schedule    json.RawMessage `json:"schedule"`
		Grace       string          `json:"grace"`
		Description string          `json:"description,omitempty"`
		Deadline    *deadline       `json:"deadline,omitempty"`
		Paused      bool            `json:"paused"`
	}{Schedule: rec, Grace: jobdef.FormatISODuration(m.Grace), Description: m.Description, Paused: m.Paused}
	if m.MaxDuration > 0 {
		out.Deadline = &deadline{MaxDuration: jobdef.FormatISODuration(m.MaxDuration)}
	}
	doc, _ := json.Marshal(out)
	return doc
}

// ScheduleEqual reports whether a and b expect pings at the same times
// (schedule and grace), so that a change of only the description or the
// deadline keeps the monitor's progress.
func ScheduleEqual(a, b *Monitor) bool {
	if a == nil || b == nil {
		return a == b
	}
	ma, mb := a.Marshal(), b.Marshal()
	var da, db struct {
		Schedule json.RawMessage
		Grace    string
	}
	_ = json.Unmarshal(ma, &da)
	_ = json.Unmarshal(mb, &db)
	return bytes.Equal(da.Schedule, db.Schedule) && da.Grace == db.Grace
}

// duration decodes raw as an ISO 8601 duration string.
func duration(raw json.RawMessage) (time.Duration, bool) {
	s, ok := str(raw)
	if !ok {
		return 0, false
	}
	d, err := jobdef.ParseISODuration(s)
	if err != nil {
		return 0, false
	}
	return d, true
}

// str decodes raw as a string.
func str(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
