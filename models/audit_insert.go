package models

import (
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// auditBatch is how many entries one INSERT appends.
const auditBatch = 5000

// auditInsertRow is an entry as insertAudit sends it, one element of the JSON
// array the INSERT reads.
type auditInsertRow struct {
	I        int             `json:"i"`
	At       *time.Time      `json:"at"`
	WS       string          `json:"ws"`
	Kind     AuditActorKind  `json:"kind"`
	UserID   int64           `json:"uid"`
	Name     string          `json:"name"`
	TokenID  int64           `json:"tid"`
	Via      string          `json:"via"`
	Addr     string          `json:"addr"`
	Action   string          `json:"action"`
	Resource string          `json:"resource"`
	Detail   string          `json:"detail"`
	Diff     json.RawMessage `json:"diff"`
}

// insertAuditSQL appends the entries of a JSON array of auditInsertRow, in
// order, returning their ids in order. An entry's workspace id is the
// stored spelling when a workspace matches it case-insensitively (ARM
// subscription ids are), else as given, NULL for none; its token name is
// the token's.
const insertAuditSQL = `INSERT INTO audit_entries (at, workspace_id, actor_kind, actor_user_id, actor_name, token_id, token_name,
		via, addr, action, resource, detail, diff)
	SELECT coalesce(e.at, now()),
	       coalesce((SELECT id FROM workspaces WHERE id = e.ws),
	                (SELECT min(id) FROM workspaces WHERE lower(id) = lower(e.ws)), nullif(e.ws, '')),
	       e.kind, nullif(e.uid, 0), e.name, nullif(e.tid, 0),
	       coalesce((SELECT name FROM api_tokens WHERE id = e.tid), ''),
	       e.via, e.addr, e.action, e.resource, e.detail, e.diff
	FROM json_to_recordset(?::json) AS e(i int, at timestamptz, ws text, kind text, uid bigint, name text, tid bigint,
		via text, addr text, action text, resource text, detail text, diff jsonb)
	ORDER BY e.i
	RETURNING id`

// insertAudit appends es in the transaction tx, setting their IDs, in
// statements of auditBatch entries (one parameter each: thousands of
// entries, such as an import's, cost a few statements). An entry without
// At gets the database's clock.
func insertAudit(tx *gorm.DB, es []AuditEntry) error {
	for start := 0; start < len(es); start += auditBatch {
		part := es[start:min(start+auditBatch, len(es))]
		rows := make([]auditInsertRow, len(part))
		for i := range part {
			e := &part[i]
			diff := e.Diff
			if diff == nil {
				diff = []AuditChange{}
			}
			d, err := json.Marshal(diff)
			if err != nil {
				return fmt.Errorf("audit diff: %w", err)
			}
			r := auditInsertRow{I: i, WS: e.WorkspaceID, Kind: e.ActorKind, UserID: e.ActorUserID, Name: cleanText(e.ActorName),
				TokenID: e.TokenID, Via: e.Via, Addr: cleanText(e.Addr), Action: e.Action, Resource: cleanText(e.Resource),
				Detail: cleanText(e.Detail), Diff: d}
			if !e.At.IsZero() {
				at := e.At.UTC()
				r.At = &at
			}
			rows[i] = r
		}
		data, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("audit entries: %w", err)
		}
		var ids []int64
		if err := tx.Raw(insertAuditSQL, string(data)).Scan(&ids).Error; err != nil {
			return err
		}
		for i := range min(len(ids), len(part)) {
			part[i].ID = ids[i]
		}
	}
	return nil
}
