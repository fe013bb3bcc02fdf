package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// AuditFilter selects entries of one workspace's audit log. Zero fields
// select everything.
type AuditFilter struct {
	WorkspaceID string
	// Actor is a user name (ActorName, case-insensitive), or
	// EngineActorName.
	Actor string
	// Resource is a resource path: the entries of it and of everything
	// under it (a collection's include its jobs').
	Resource string
	// Action is an action ("job.put") or its family ("job").
	Action string
	// Since and Until bound At: Since <= At < Until.
	Since, Until time.Time
	// Before is the keyset cursor: only entries with a smaller ID (0: from
	// the newest).
	Before int64
	// Limit caps the entries returned; zero or less means 50, at most 500.
	Limit int
}

// AuditPage is one page of a workspace's audit log, newest first.
type AuditPage struct {
	Entries []AuditEntry
	// Next is the cursor of the next (older) page (AuditFilter.Before); 0
	// when this is the last.
	Next int64
}

// auditRow is an audit_entries row as scanned.
type auditRow struct {
	ID          int64
	At          time.Time
	WorkspaceID *string
	ActorKind   string
	ActorUserID *int64
	ActorName   string
	TokenID     *int64
	TokenName   string
	Via         string
	Addr        string
	Action      string
	Resource    string
	Detail      string
	Diff        []byte
}

func (r *auditRow) entry() (AuditEntry, error) {
	e := AuditEntry{ID: r.ID, At: r.At, ActorKind: AuditActorKind(r.ActorKind), ActorName: r.ActorName, TokenName: r.TokenName,
		Via: r.Via, Addr: r.Addr, Action: r.Action, Resource: r.Resource, Detail: r.Detail}
	if r.WorkspaceID != nil {
		e.WorkspaceID = *r.WorkspaceID
	}
	if r.ActorUserID != nil {
		e.ActorUserID = *r.ActorUserID
	}
	if r.TokenID != nil {
		e.TokenID = *r.TokenID
	}
	if err := json.Unmarshal(r.Diff, &e.Diff); err != nil {
		return e, fmt.Errorf("audit entry %d: %w", r.ID, err)
	}
	return e, nil
}

// likePrefix is a LIKE pattern matching s followed by anything.
func likePrefix(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
}

// AuditEntries returns a page of the audit log that f selects, newest
// first.
func (s *Store) AuditEntries(ctx context.Context, f AuditFilter) (AuditPage, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	q := s.db.WithContext(ctx).Table("audit_entries").Where("workspace_id = ?", f.WorkspaceID)
	if f.Actor != "" {
		q = q.Where("lower(actor_name) = lower(?)", f.Actor)
	}
	if f.Resource != "" {
		r := strings.TrimSuffix(f.Resource, "/")
		q = q.Where("(resource = ? OR resource LIKE ?)", r, likePrefix(r+"/"))
	}
	if f.Action != "" {
		if strings.Contains(f.Action, ".") {
			q = q.Where("action = ?", f.Action)
		} else {
			q = q.Where("(action = ? OR action LIKE ?)", f.Action, likePrefix(f.Action+"."))
		}
	}
	if !f.Since.IsZero() {
		q = q.Where("at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		q = q.Where("at < ?", f.Until)
	}
	if f.Before > 0 {
		q = q.Where("id < ?", f.Before)
	}
	var rows []auditRow
	if err := q.Order("id DESC").Limit(limit + 1).Scan(&rows).Error; err != nil {
		return AuditPage{}, translate("models: audit entries", err)
	}
	return auditPage(rows, limit)
}

func auditPage(rows []auditRow, limit int) (AuditPage, error) {
	var p AuditPage
	if len(rows) > limit {
		rows = rows[:limit]
		p.Next = rows[limit-1].ID
	}
	p.Entries = make([]AuditEntry, 0, len(rows))
	for i := range rows {
		e, err := rows[i].entry()
		if err != nil {
			return AuditPage{}, fmt.Errorf("models: audit entries: %w", err)
		}
		p.Entries = append(p.Entries, e)
	}
	return p, nil
}

// LastAudit returns the newest entry of exactly resource in workspaceID,
// or ErrNotFound when it has none.
func (s *Store) LastAudit(ctx context.Context, workspaceID, resource string) (*AuditEntry, error) {
	var rows []auditRow
	err := s.db.WithContext(ctx).Raw(`SELECT * FROM audit_entries WHERE workspace_id = ? AND resource = ? ORDER BY id DESC LIMIT 1`,
		workspaceID, resource).Scan(&rows).Error
	if err != nil {
		return nil, translate("models: last audit entry", err)
	}
	if len(rows) == 0 {
		return nil, translate("models: last audit entry", ErrNotFound)
	}
	e, err := rows[0].entry()
	if err != nil {
		return nil, fmt.Errorf("models: last audit entry: %w", err)
	}
	return &e, nil
}

// pruneAudit deletes the entries older than before, in a transaction
// that allows it (the table's trigger refuses deletes otherwise).
func pruneAudit(db *gorm.DB, before time.Time) (int64, error) {
	var n int64
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT set_config('sked.audit_retention', 'on', true)`).Error; err != nil {
			return err
		}
		res := tx.Exec(`DELETE FROM audit_entries WHERE at < ?`, before)
		n = res.RowsAffected
		return res.Error
	})
	return n, err
}
