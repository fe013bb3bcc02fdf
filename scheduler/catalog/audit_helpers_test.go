package catalog_test

import (
	"encoding/json"

	"sked/scheduler/catalog"
)

// auditRow is an audit_entries row as these tests read it.
type auditRow struct {
	ID                                       int64
	Workspace, Kind, Name, Via, Addr, Action string
	Resource, Detail, Diff                   string
	UserID, TokenID                          int64
}

// auditSince returns the entries after id, oldest first.
func (e *env) auditSince(id int64) []auditRow {
	e.t.Helper()
	rows, err := e.db.Query(`SELECT id, coalesce(workspace_id, ''), actor_kind, actor_name, via, addr, action, resource, detail,
		diff::text, coalesce(actor_user_id, 0), coalesce(token_id, 0) FROM audit_entries WHERE id > $1 ORDER BY id`, id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.ID, &r.Workspace, &r.Kind, &r.Name, &r.Via, &r.Addr, &r.Action, &r.Resource, &r.Detail, &r.Diff,
			&r.UserID, &r.TokenID); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// lastAuditID is the id of the newest entry (0: none).
func (e *env) lastAuditID() int64 {
	e.t.Helper()
	var id int64
	if err := e.db.QueryRow(`SELECT coalesce(max(id), 0) FROM audit_entries`).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// diffOf decodes an entry's difference.
func diffOf(r auditRow) []map[string]string {
	var d []map[string]string
	_ = json.Unmarshal([]byte(r.Diff), &d)
	return d
}

// checkAudited checks that the write method, made by actor, left one entry
// after since naming want's action, workspace and resource with the
// actor (an import: one more per job it wrote), and returns the newest
// entry's id.
func (e *env) checkAudited(method string, actor catalog.Actor, want catalog.Change, since int64) int64 {
	e.t.Helper()
	rows := e.auditSince(since)
	n := 1
	if want.Op == catalog.OpImport {
		n = 2 // the import, and the one job it wrote
	}
	if len(rows) != n {
		e.t.Errorf("%s left %d audit entries, want %d: %+v", method, len(rows), n, rows)
		return e.lastAuditID()
	}
	r := rows[0]
	if r.Action != string(want.Op) || r.Workspace != want.WorkspaceID || r.Resource != want.Resource() {
		e.t.Errorf("%s: entry %s %s %q, want %s %s %q", method, r.Action, r.Workspace, r.Resource, want.Op, want.WorkspaceID, want.Resource())
	}
	if r.Kind != "token" || r.Name != actor.UserName || r.UserID != actor.UserID || r.TokenID != actor.TokenID ||
		r.Via != actor.Via || r.Addr != actor.Addr {
		e.t.Errorf("%s: entry's actor %+v, want %+v", method, r, actor)
	}
	return rows[len(rows)-1].ID
}
