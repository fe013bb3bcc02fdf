package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"sked/models"
	"sked/models/problem"
)

// The changes of target limits (SPEC §16.2).
const (
	OpPutTarget    Op = "target.put"
	OpDeleteTarget Op = "target.delete"
)

// TargetLimitBody is a target limit as the API reads and answers it:
// either limit or both (nil: no limit of that kind).
type TargetLimitBody struct {
	MaxConcurrent *int `json:"maxConcurrent,omitempty"`
	MaxPerSecond  *int `json:"maxPerSecond,omitempty"`
}

// ParseTargetHost returns host as a target limit's key
// (models.NormalizeTargetHost), or a *problem.List naming "host".
func ParseTargetHost(host string) (string, error) {
	h, err := models.NormalizeTargetHost(host)
	if err != nil {
		return "", problem.New("host", "The host "+err.Error())
	}
	return h, nil
}

// ParseTargetLimit reads a target limit's JSON body: an object with
// maxConcurrent and/or maxPerSecond, each an integer from 1 to
// models.MaxTargetLimit (null: absent), at least one of them. Every
// problem is one *problem.List entry naming its field.
func ParseTargetLimit(body []byte) (TargetLimitBody, error) {
	var out TargetLimitBody
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return out, problem.New("", "The body must be a JSON object such as {\"maxConcurrent\": 10, \"maxPerSecond\": 50}")
	}
	probs := &problem.List{}
	var names []string
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := raw[k]
		var dst **int
		switch k {
		case "maxConcurrent":
			dst = &out.MaxConcurrent
		case "maxPerSecond":
			dst = &out.MaxPerSecond
		default:
			probs.Add(k, "Unknown field: a target limit has maxConcurrent and maxPerSecond")
			continue
		}
		if string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		if err != nil || n < 1 || n > models.MaxTargetLimit {
			probs.Add(k, fmt.Sprintf("Must be a whole number from 1 to %d", models.MaxTargetLimit))
			continue
		}
		i := int(n)
		*dst = &i
	}
	if probs.Len() == 0 && out.MaxConcurrent == nil && out.MaxPerSecond == nil {
		probs.Add("maxConcurrent", "Give maxConcurrent, maxPerSecond or both")
	}
	return out, probs.OrNil()
}

// PutTargetLimit creates or replaces the limit of host (any spelling
// ParseTargetHost accepts) in workspaceID with body, for actor, and
// returns it as stored with whether it was created. It takes effect at
// once: the engines are woken. Errors: a *problem.List (400),
// models.ErrNotFound for an unknown workspace.
func (c *Catalog) PutTargetLimit(ctx context.Context, actor Actor, workspaceID, host string, body []byte) (*models.TargetLimit, bool, error) {
	rec := &record{Change: Change{Op: OpPutTarget, WorkspaceID: workspaceID, Target: host}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, false, err
	}
	h, err := ParseTargetHost(host)
	if err != nil {
		return nil, false, err
	}
	lim, err := ParseTargetLimit(body)
	if err != nil {
		return nil, false, err
	}
	rec.Target = h
	var out *models.TargetLimit
	var created bool
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		rec.Before = nil
		cur, err := tc.store.TargetLimit(ctx, workspaceID, h)
		switch {
		case err == nil:
			rec.Before = targetJSON(cur)
		case !errors.Is(err, models.ErrNotFound):
			return fmt.Errorf("catalog: put target limit: %w", err)
		}
		created, err = tc.store.PutTargetLimit(ctx, models.TargetLimitWrite{WorkspaceID: workspaceID, Host: h,
			MaxConcurrent: lim.MaxConcurrent, MaxPerSecond: lim.MaxPerSecond, Now: c.now().UTC()})
		if err != nil {
			return fmt.Errorf("catalog: put target limit: %w", err)
		}
		if out, err = tc.store.TargetLimit(ctx, workspaceID, h); err != nil {
			return fmt.Errorf("catalog: put target limit: %w", err)
		}
		rec.After, rec.Detail = targetJSON(out), createdDetail(created)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	c.wake()
	return out, created, nil
}

// DeleteTargetLimit deletes the limit of host in workspaceID, for actor:
// the attempts waiting for it start at once (the engines are woken). An
// unknown limit is models.ErrNotFound; a host that cannot be one a
// *problem.List.
func (c *Catalog) DeleteTargetLimit(ctx context.Context, actor Actor, workspaceID, host string) error {
	rec := &record{Change: Change{Op: OpDeleteTarget, WorkspaceID: workspaceID, Target: host}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	h, err := ParseTargetHost(host)
	if err != nil {
		return err
	}
	rec.Target = h
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		cur, err := tc.store.TargetLimit(ctx, workspaceID, h)
		if err != nil {
			return fmt.Errorf("catalog: delete target limit: %w", err)
		}
		rec.Before = targetJSON(cur)
		if err := tc.store.DeleteTargetLimit(ctx, workspaceID, h); err != nil {
			return fmt.Errorf("catalog: delete target limit: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.wake()
	return nil
}

// wake tells this process's engine, when there is one, to look again at
// once (a target limit or a monitor changed); the other engines get the
// write's NOTIFY.
func (c *Catalog) wake() {
	if c.runner != nil {
		c.runner.Wake()
	}
}

// targetJSON is a limit's definition for the audit log's difference.
func targetJSON(t *models.TargetLimit) json.RawMessage {
	b, _ := json.Marshal(TargetLimitBody{MaxConcurrent: t.MaxConcurrent, MaxPerSecond: t.MaxPerSecond})
	return b
}

// TargetDocument is a target limit as the API answers it.
type TargetDocument struct {
	Host          string    `json:"host"`
	MaxConcurrent *int      `json:"maxConcurrent,omitempty"`
	MaxPerSecond  *int      `json:"maxPerSecond,omitempty"`
	InFlight      *int64    `json:"inFlight,omitempty"`
	Waiting       *int64    `json:"waiting,omitempty"`
	LongestWaitMs *int64    `json:"longestWaitMs,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// TargetDocumentOf is the API's document of limit t.
func TargetDocumentOf(t *models.TargetLimit) TargetDocument {
	return TargetDocument{Host: t.Host, MaxConcurrent: t.MaxConcurrent, MaxPerSecond: t.MaxPerSecond,
		CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()}
}

// TargetStatusDocument is the API's document of a limit with what runs
// under it now.
func TargetStatusDocument(t *models.TargetStatus) TargetDocument {
	d := TargetDocumentOf(&t.TargetLimit)
	d.InFlight, d.Waiting, d.LongestWaitMs = &t.InFlight, &t.Waiting, t.LongestWaitMs
	return d
}
