package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/notifydef"
	"sked/models/problem"
)

// PutAlertRule creates or replaces the alert rule name of workspaceID
// with body (the rule JSON of notifydef), for actor. A channel that is
// not one of the workspace's is a problem at "channel". It returns the
// stored rule and whether it was created. Errors: a *problem.List (400),
// models.ErrNotFound for an unknown workspace.
func (c *Catalog) PutAlertRule(ctx context.Context, actor Actor, workspaceID, name string, body []byte) (*models.AlertRule, bool, error) {
	if err := c.allow(ctx, actor, Change{Op: OpPutAlertRule, WorkspaceID: workspaceID, Alert: name}); err != nil {
		return nil, false, err
	}
	if err := checkChannelName("rule", name); err != nil {
		return nil, false, err
	}
	r, err := notifydef.ParseRule(body)
	if err != nil {
		return nil, false, err
	}
	ch, err := c.store.ChannelByName(ctx, workspaceID, r.Channel)
	if errors.Is(err, models.ErrNotFound) {
		return nil, false, problem.New("channel", fmt.Sprintf("%q is not a channel of this workspace", r.Channel))
	}
	if err != nil {
		return nil, false, fmt.Errorf("catalog: put alert rule: %w", err)
	}
	events, err := json.Marshal(r.Events)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: put alert rule: %w", err)
	}
	rec := &record{Change: Change{Op: OpPutAlertRule, WorkspaceID: workspaceID, Alert: name}}
	var row *models.AlertRule
	var created bool
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		row, created, err = tc.putAlertRule(ctx, actor, workspaceID, name, r, ch, events, rec)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return row, created, nil
}

// putAlertRule is PutAlertRule in the write's transaction.
func (c *Catalog) putAlertRule(ctx context.Context, actor Actor, workspaceID, name string, r *notifydef.Rule, ch *models.Channel,
	events []byte, rec *record) (*models.AlertRule, bool, error) {
	if cur, err := c.store.AlertRuleByName(ctx, workspaceID, name); err == nil {
		name, rec.Before = cur.Name, ruleJSON(cur)
	}
	created, err := c.store.PutAlertRule(ctx, models.AlertRuleWrite{WorkspaceID: workspaceID, Name: name, ChannelID: ch.ID,
		ScopeResourceGroup: r.Scope.ResourceGroup, ScopeCollection: r.Scope.Collection, ScopeJob: r.Scope.Job, ScopeMonitor: r.Scope.Monitor,
		Events: events, Threshold: r.Threshold, MinInterval: r.MinInterval, UserID: actor.UserID})
	if errors.Is(err, models.ErrNotFound) { // the channel was deleted meanwhile
		return nil, false, problem.New("channel", fmt.Sprintf("%q is not a channel of this workspace", r.Channel))
	}
	if err != nil {
		return nil, false, fmt.Errorf("catalog: put alert rule: %w", err)
	}
	row, err := c.store.AlertRuleByName(ctx, workspaceID, name)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: put alert rule: %w", err)
	}
	rec.Alert, rec.Detail, rec.After = row.Name, createdDetail(created), ruleJSON(row)
	return row, created, nil
}

// ruleJSON is a rule's document without its times, for the audit log's
// difference.
func ruleJSON(row *models.AlertRule) json.RawMessage {
	doc, err := AlertRuleDocument(row)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return nil
	}
	delete(m, "createdAt")
	delete(m, "updatedAt")
	b, _ := json.Marshal(m)
	return b
}

// DeleteAlertRule deletes the alert rule name of workspaceID, or returns
// models.ErrNotFound.
func (c *Catalog) DeleteAlertRule(ctx context.Context, actor Actor, workspaceID, name string) error {
	rec := &record{Change: Change{Op: OpDeleteAlertRule, WorkspaceID: workspaceID, Alert: name}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		if cur, err := tc.store.AlertRuleByName(ctx, workspaceID, name); err == nil {
			rec.Before = ruleJSON(cur)
		}
		if err := tc.store.DeleteAlertRule(ctx, workspaceID, name); err != nil {
			return fmt.Errorf("catalog: delete alert rule: %w", err)
		}
		return nil
	})
}

// AlertRuleDocument is a stored rule as the API answers it: the rule JSON
// of notifydef with its name and times.
func AlertRuleDocument(row *models.AlertRule) (json.RawMessage, error) {
	var events []notifydef.EventType
	if err := json.Unmarshal(row.Events, &events); err != nil {
		return nil, fmt.Errorf("catalog: alert rule %s: %w", row.Name, err)
	}
	return json.Marshal(struct {
		Name        string                `json:"name"`
		Channel     string                `json:"channel"`
		Scope       notifydef.Scope       `json:"scope"`
		Events      []notifydef.EventType `json:"events"`
		Threshold   int                   `json:"threshold,omitempty"`
		MinInterval string                `json:"minInterval"`
		CreatedAt   time.Time             `json:"createdAt"`
		UpdatedAt   time.Time             `json:"updatedAt"`
	}{row.Name, row.ChannelName, notifydef.Scope{ResourceGroup: row.ScopeResourceGroup, Collection: row.ScopeCollection, Job: row.ScopeJob, Monitor: row.ScopeMonitor},
		events, row.Threshold, jobdef.FormatISODuration(row.MinInterval()), row.CreatedAt.UTC(), row.UpdatedAt.UTC()})
}
