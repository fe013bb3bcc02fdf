package models

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// AlertRule is a stored alert rule of a workspace (SPEC §13.3,
// migrations/0010): the events of the jobs in its scope that go to one
// channel. Empty scope fields mean "any". Events is a JSON array of
// event type names (models/notifydef). ChannelName is the channel's
// name, read with the rule.
type AlertRule struct {
	ID                 int64
	WorkspaceID        string
	Name               string
	ChannelID          int64
	ChannelName        string `gorm:"->;-:migration"`
	ScopeResourceGroup string
	ScopeCollection    string
	ScopeJob           string
	// ScopeMonitor names the one monitor whose events the rule sends
	// ("": none; it then excludes a job scope).
	ScopeMonitor  string
	Events        json.RawMessage `gorm:"type:jsonb"`
	Threshold     int
	MinIntervalMs int64
	CreatedAt     time.Time
	UpdatedAt     time.Time
	CreatedBy     *int64
	UpdatedBy     *int64
}

// TableName tells GORM the table.
func (AlertRule) TableName() string { return "alert_rules" }

// MinInterval returns the rule's minInterval.
func (r *AlertRule) MinInterval() time.Duration {
	return time.Duration(r.MinIntervalMs) * time.Millisecond
}

// AlertRuleWrite is what PutAlertRule writes.
type AlertRuleWrite struct {
	WorkspaceID string
	// Name is the rule's name; an existing rule is found without regard
	// to case and keeps its spelling.
	Name string
	// ChannelID is the channel's id; it must be a channel of WorkspaceID.
	ChannelID                                     int64
	ScopeResourceGroup, ScopeCollection, ScopeJob string
	// ScopeMonitor names a monitor (migration 0038); "" for none.
	ScopeMonitor string
	// Events is a JSON array of event type names.
	Events      json.RawMessage
	Threshold   int
	MinInterval time.Duration
	// UserID (0: none) is recorded as creator or last editor.
	UserID int64
}

// PutAlertRule creates the rule w.Name of w.WorkspaceID or replaces the
// one of that name. It reports whether the rule was created. A channel
// that is not one of the workspace's, like an unknown workspace, is
// ErrNotFound.
func (s *Store) PutAlertRule(ctx context.Context, w AlertRuleWrite) (created bool, err error) {
	var by *int64
	if w.UserID != 0 {
		by = &w.UserID
	}
	now := time.Now().UTC()
	var rows []struct{ Inserted bool }
	err = s.db.WithContext(ctx).Raw(`
		INSERT INTO alert_rules (workspace_id, name, channel_id, scope_resource_group, scope_collection, scope_job,
		                         scope_monitor, events, threshold, min_interval_ms, created_at, updated_at, created_by, updated_by)
		SELECT ?, ?, c.id, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?
		FROM channels c WHERE c.id = ? AND c.workspace_id = ?
		ON CONFLICT (workspace_id, lower(name)) DO UPDATE
		SET channel_id = EXCLUDED.channel_id, scope_resource_group = EXCLUDED.scope_resource_group,
		    scope_collection = EXCLUDED.scope_collection, scope_job = EXCLUDED.scope_job,
		    scope_monitor = EXCLUDED.scope_monitor, events = EXCLUDED.events,
		    threshold = EXCLUDED.threshold, min_interval_ms = EXCLUDED.min_interval_ms,
		    updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
		RETURNING (xmax = 0) AS inserted`,
		w.WorkspaceID, w.Name, w.ScopeResourceGroup, w.ScopeCollection, w.ScopeJob, w.ScopeMonitor, string(w.Events), w.Threshold,
		w.MinInterval.Milliseconds(), now, now, by, by, w.ChannelID, w.WorkspaceID).Scan(&rows).Error
	if err != nil {
		return false, translate("models: put alert rule", err)
	}
	if len(rows) == 0 {
		return false, translate("models: put alert rule: channel", ErrNotFound)
	}
	return rows[0].Inserted, nil
}

// alertRuleSelect reads rules with their channel's name.
const alertRuleSelect = `
	SELECT r.*, c.name AS channel_name
	FROM alert_rules r JOIN channels c ON c.id = r.channel_id `

// AlertRuleByName returns the rule name of workspaceID
// (case-insensitive), or ErrNotFound.
func (s *Store) AlertRuleByName(ctx context.Context, workspaceID, name string) (*AlertRule, error) {
	var out []AlertRule
	err := s.db.WithContext(ctx).Raw(alertRuleSelect+`WHERE r.workspace_id = ? AND lower(r.name) = lower(?)`,
		workspaceID, name).Scan(&out).Error
	if err != nil {
		return nil, translate("models: alert rule", err)
	}
	if len(out) == 0 {
		return nil, translate("models: alert rule", ErrNotFound)
	}
	return &out[0], nil
}

// AlertRulesOf returns the rules of workspaceID in name order.
func (s *Store) AlertRulesOf(ctx context.Context, workspaceID string) ([]AlertRule, error) {
	var out []AlertRule
	err := s.db.WithContext(ctx).Raw(alertRuleSelect+`WHERE r.workspace_id = ? ORDER BY lower(r.name)`,
		workspaceID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: alert rules of workspace", err)
	}
	return out, nil
}

// AlertRulesOfChannel returns the rules that send to channel channelID,
// in name order.
func (s *Store) AlertRulesOfChannel(ctx context.Context, channelID int64) ([]AlertRule, error) {
	var out []AlertRule
	err := s.db.WithContext(ctx).Raw(alertRuleSelect+`WHERE r.channel_id = ? ORDER BY lower(r.name)`,
		channelID).Scan(&out).Error
	if err != nil {
		return nil, translate("models: alert rules of channel", err)
	}
	return out, nil
}

// AlertRulesForJob returns the rules of workspaceID whose scope holds the
// job rg/collection/job (names compared without regard to case) and that
// send eventType, in name order: the rules the engine asks when a job's
// event happens.
func (s *Store) AlertRulesForJob(ctx context.Context, workspaceID, rg, collection, job, eventType string) ([]AlertRule, error) {
	var out []AlertRule
	err := s.db.WithContext(ctx).Raw(alertRuleSelect+`
		WHERE r.workspace_id = ? AND jsonb_exists(r.events, ?) AND r.scope_monitor = ''
		  AND (r.scope_resource_group = '' OR lower(r.scope_resource_group) = lower(?))
		  AND (r.scope_collection = '' OR lower(r.scope_collection) = lower(?))
		  AND (r.scope_job = '' OR lower(r.scope_job) = lower(?))
		ORDER BY lower(r.name)`,
		workspaceID, eventType, rg, collection, job).Scan(&out).Error
	if err != nil {
		return nil, translate("models: alert rules for job", err)
	}
	return out, nil
}

// DeleteAlertRule deletes the rule name of workspaceID, or returns
// ErrNotFound.
func (s *Store) DeleteAlertRule(ctx context.Context, workspaceID, name string) error {
	res := s.db.WithContext(ctx).
		Where("workspace_id = ? AND lower(name) = lower(?)", workspaceID, name).
		Delete(&AlertRule{})
	if res.Error != nil {
		return translate("models: delete alert rule", res.Error)
	}
	if res.RowsAffected == 0 {
		return translate("models: delete alert rule", ErrNotFound)
	}
	return nil
}

// isForeignKeyViolation reports whether err is PostgreSQL's
// foreign_key_violation (23503).
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// alertRuleApplies is the join condition of an alert rule r on a job j of
// the collection jc in the resource group rg: the rule's workspace, and
// each part of its scope empty (all) or the name, case-insensitively. The
// engine matches rules to jobs with it (enqueueJobEvents) and the "has alerts"
// filter of SearchJobs keeps the jobs it finds a rule for.
const alertRuleApplies = `r.workspace_id = rg.workspace_id AND r.scope_monitor = ''
	AND (r.scope_resource_group = '' OR lower(r.scope_resource_group) = lower(rg.name))
	AND (r.scope_collection = '' OR lower(r.scope_collection) = lower(jc.name))
	AND (r.scope_job = '' OR lower(r.scope_job) = lower(j.name))`
