package models

// Jobs that run after other jobs (SPEC §17.1, migration 0039): the
// catalog's side. Every write of a job's definition rewrites the job's
// edges in job_trigger_upstreams from its trigger (syncTriggers), in the
// write's transaction, refusing names that are not jobs of the workspace
// and cycles; every delete of jobs refuses to delete an upstream of a job
// it leaves (refuseDeletingUpstreams). Both take the workspace's trigger
// graph lock (lockTriggerGraph, a transaction-scoped advisory lock) after
// their job locks and wait for no row lock while they hold it, so that a
// write naming an upstream and the delete of that upstream are decided one
// after the other without locking the upstream's row (which an engine
// finishing it holds FOR UPDATE).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"sked/models/jobdef"
	"sked/models/problem"

	"gorm.io/gorm"
)

// triggerGraphLock is the first key of the workspaces' trigger graph
// locks (the second is hashtext of the workspace id).
const triggerGraphLock = 0x736b7467 // "sktg"

// lockTriggerGraph takes the trigger graph locks of the workspaces ws, in
// order, until tx ends.
func lockTriggerGraph(tx *gorm.DB, ws []string) error {
	ws = slices.Clone(ws)
	slices.Sort(ws)
	for _, w := range slices.Compact(ws) {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(?, hashtext(?))`, triggerGraphLock, w).Error; err != nil {
			return fmt.Errorf("lock trigger graph: %w", err)
		}
	}
	return nil
}

// triggeredJob is a written job as syncTriggers reads it back.
type triggeredJob struct {
	ID          int64
	WorkspaceID string
	Path        string // rg/jc/job as stored
	Trigger     json.RawMessage
}

// storedTrigger is the stored form of properties.trigger (canonical:
// jobdef.Trigger's marshal).
type storedTrigger struct {
	After []string `json:"after"`
	On    string   `json:"on"`
}

// syncTriggers rewrites the edges of the jobs ids (just written in tx)
// from their definitions' triggers. A name in trigger.after that is not a
// job of the job's workspace, or an upstream from which the job is
// reachable (a cycle, the job itself included), is a *problem.List naming
// trigger.after[i] (prefixed with the job's rg/jc/name when several jobs
// are written); tx is then to be rolled back. Its edges and the waits of
// upstreams it no longer names are deleted.
func syncTriggers(tx *gorm.DB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	var jobs []triggeredJob
	err := tx.Raw(`SELECT j.id, g.workspace_id, g.name || '/' || c.name || '/' || j.name AS path, j.definition->'trigger' AS trigger
		FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups g ON g.id = c.resource_group_id
		WHERE j.id = ANY (`+idsArray+`) ORDER BY j.id`, idsJSON(ids)).Scan(&jobs).Error
	if err != nil {
		return fmt.Errorf("sync triggers: %w", err)
	}
	type ref struct {
		D   int64  `json:"d"`
		WS  string `json:"ws"`
		RG  string `json:"rg"`
		JC  string `json:"jc"`
		Job string `json:"job"`
		Pos int    `json:"pos"`
		On  string `json:"on"`
	}
	var refs []ref
	var ws []string
	paths := map[int64]string{}
	for _, j := range jobs {
		paths[j.ID] = j.Path
		if len(j.Trigger) == 0 || string(j.Trigger) == "null" {
			continue
		}
		var t storedTrigger
		if err := json.Unmarshal(j.Trigger, &t); err != nil {
			return fmt.Errorf("sync triggers: job %d: %w", j.ID, err)
		}
		if t.On == "" {
			t.On = string(jobdef.TriggerSucceeded)
		}
		ws = append(ws, j.WorkspaceID)
		for i, a := range t.After {
			p, _ := jobdef.ParseJobPath(a)
			refs = append(refs, ref{D: j.ID, WS: j.WorkspaceID, RG: p.ResourceGroup, JC: p.Collection, Job: p.Job, Pos: i, On: t.On})
		}
	}
	// The edges of jobs that name none are simply deleted: that creates
	// no reference, so it needs no lock of the graph.
	if err := tx.Exec(`DELETE FROM job_trigger_upstreams WHERE downstream_id = ANY (`+idsArray+`)`, idsJSON(ids)).Error; err != nil {
		return fmt.Errorf("sync triggers: %w", err)
	}
	if len(refs) == 0 {
		return tx.Exec(`DELETE FROM job_trigger_waits WHERE downstream_id = ANY (`+idsArray+`)`, idsJSON(ids)).Error
	}
	if err := lockTriggerGraph(tx, ws); err != nil {
		return err
	}
	data, err := json.Marshal(refs)
	if err != nil {
		return fmt.Errorf("sync triggers: %w", err)
	}
	// Resolve (under the lock: a delete of an upstream is decided before
	// or after this), then insert the edges that resolved.
	var resolved []struct {
		D   int64
		Pos int
		U   *int64
	}
	err = tx.Raw(`
		WITH r AS (
			SELECT * FROM json_to_recordset(?::json) AS r(d bigint, ws text, rg text, jc text, job text, pos int, "on" text)
		), m AS (
			SELECT r.d, r.pos, r."on", (SELECT j.id FROM `+jobAtPath("r.ws", "r.rg", "r.jc", "r.job")+`) AS u
			FROM r
		), i AS (
			INSERT INTO job_trigger_upstreams (downstream_id, upstream_id, position, on_status)
			SELECT d, u, pos, "on" FROM m WHERE u IS NOT NULL
			ON CONFLICT DO NOTHING
		)
		SELECT d, pos, u FROM m ORDER BY d, pos`, string(data)).Scan(&resolved).Error
	if err != nil {
		return fmt.Errorf("sync triggers: %w", err)
	}
	ps := &problem.List{}
	prefix := func(d int64) string {
		if len(ids) == 1 {
			return ""
		}
		return paths[d] + ": "
	}
	for _, r := range resolved {
		if r.U == nil {
			rf := refs[slices.IndexFunc(refs, func(x ref) bool { return x.D == r.D && x.Pos == r.Pos })]
			ps.Add(fmt.Sprintf("%strigger.after[%d]", prefix(r.D), r.Pos),
				fmt.Sprintf("there is no job %s/%s/%s in this workspace", rf.RG, rf.JC, rf.Job))
		}
	}
	if len(ps.Problems) > 0 {
		return ps
	}
	// A cycle: the job is reachable upstream from one of its upstreams
	// (itself included), through the edges as they now stand.
	var cycles []struct {
		D   int64
		Pos int
	}
	err = tx.Raw(`
		WITH RECURSIVE e0 AS (
			SELECT downstream_id AS d, position AS pos, upstream_id AS u FROM job_trigger_upstreams WHERE downstream_id = ANY (`+idsArray+`)
		), reach(d, pos, id) AS (
			SELECT d, pos, u FROM e0
			UNION
			SELECT r.d, r.pos, e.upstream_id FROM reach r JOIN job_trigger_upstreams e ON e.downstream_id = r.id
		)
		SELECT DISTINCT d, pos FROM reach WHERE id = d ORDER BY d, pos`, idsJSON(ids)).Scan(&cycles).Error
	if err != nil {
		return fmt.Errorf("sync triggers: %w", err)
	}
	for _, c := range cycles {
		rf := refs[slices.IndexFunc(refs, func(x ref) bool { return x.D == c.D && x.Pos == c.Pos })]
		up := rf.RG + "/" + rf.JC + "/" + rf.Job
		msg := fmt.Sprintf("%s runs after %s: naming it would make a cycle", up, paths[c.D])
		if strings.EqualFold(up, paths[c.D]) {
			msg = fmt.Sprintf("%s is this job: a job cannot run after itself", up)
		}
		ps.Add(fmt.Sprintf("%strigger.after[%d]", prefix(c.D), c.Pos), msg)
	}
	if len(ps.Problems) > 0 {
		return ps
	}
	// Waits of upstreams the job no longer names are dropped.
	return tx.Exec(`DELETE FROM job_trigger_waits w WHERE w.downstream_id = ANY (`+idsArray+`)
		AND NOT EXISTS (SELECT 1 FROM job_trigger_upstreams e WHERE e.downstream_id = w.downstream_id AND e.upstream_id = w.upstream_id)`,
		idsJSON(ids)).Error
}

// refuseDeletingUpstreams returns a *ConflictError when a job of ids is
// an upstream of a job not in ids (SPEC §17.1: deleting an upstream is
// refused while a job is triggered by it). tx holds the jobs' locks; it
// takes their workspaces' trigger graph locks first.
func refuseDeletingUpstreams(tx *gorm.DB, ids []int64) error {
	var ws []string
	err := tx.Raw(`SELECT DISTINCT g.workspace_id FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups g ON g.id = c.resource_group_id WHERE j.id IN ?`, ids).Scan(&ws).Error
	if err != nil {
		return fmt.Errorf("check upstreams: %w", err)
	}
	if err := lockTriggerGraph(tx, ws); err != nil {
		return err
	}
	var refs []struct{ Up, Down string }
	err = tx.Raw(`SELECT `+jobPathSQL("u", "uc", "ug")+` AS up, `+jobPathSQL("d", "dc", "dg")+` AS down
		FROM job_trigger_upstreams e
		JOIN jobs u ON u.id = e.upstream_id JOIN job_collections uc ON uc.id = u.job_collection_id JOIN resource_groups ug ON ug.id = uc.resource_group_id
		JOIN jobs d ON d.id = e.downstream_id JOIN job_collections dc ON dc.id = d.job_collection_id JOIN resource_groups dg ON dg.id = dc.resource_group_id
		WHERE e.upstream_id IN ? AND e.downstream_id NOT IN ?
		ORDER BY 1, 2 LIMIT 6`, ids, ids).Scan(&refs).Error
	if err != nil {
		return fmt.Errorf("check upstreams: %w", err)
	}
	if len(refs) == 0 {
		return nil
	}
	downs := make([]string, 0, len(refs))
	for i, r := range refs {
		if i == 5 {
			downs = append(downs, "…")
			break
		}
		if r.Up == refs[0].Up {
			downs = append(downs, r.Down)
		}
	}
	return &ConflictError{Message: fmt.Sprintf(
		"The job %s cannot be deleted: %s %s after it (trigger.after). Remove it from their trigger.after first, or delete them too.",
		refs[0].Up, strings.Join(downs, ", "), map[bool]string{true: "runs", false: "run"}[len(refs) == 1])}
}

// jobPathSQL is the SQL expression of a job's rg/jc/name from the aliases
// of its jobs, job_collections and resource_groups rows.
func jobPathSQL(j, c, g string) string {
	return g + `.name || '/' || ` + c + `.name || '/' || ` + j + `.name`
}

// idsArray is the SQL array of the ids a parameter holds as a JSON array
// (idsJSON): one parameter however many ids a write has.
const idsArray = `ARRAY(SELECT jsonb_array_elements_text(?::jsonb)::bigint)`

// idsJSON is ids as a JSON array, the parameter of idsArray.
func idsJSON(ids []int64) string {
	b, _ := json.Marshal(ids)
	if ids == nil {
		return "[]"
	}
	return string(b)
}

// mayTrigger reports whether a write of one job may change its edges: its
// definition mentions a trigger, or it replaced a job (whose stored
// definition may have had one). A new job without a trigger has none.
func mayTrigger(w JobWrite, created bool) bool {
	if mentionsTrigger(w.Definition) {
		return true
	}
	if created {
		return false
	}
	return w.Locked == nil || mentionsTrigger(w.Locked.Definition)
}

// mentionsTrigger reports whether a stored definition may hold a trigger
// (a false "yes" costs one sync, never a wrong edge).
func mentionsTrigger(def []byte) bool { return bytes.Contains(def, []byte(`"trigger"`)) }

// syncTriggersOf is syncTriggers for the jobs a multi-job write upserted
// (up): all of them when a write mentions a trigger, else only the
// replaced ones (whose stored definitions may have had one).
func syncTriggersOf(tx *gorm.DB, writes []JobWrite, up []upserted) error {
	any := slices.ContainsFunc(writes, func(w JobWrite) bool { return mentionsTrigger(w.Definition) })
	var ids []int64
	for _, u := range up {
		if any || !u.Inserted {
			ids = append(ids, u.ID)
		}
	}
	return syncTriggers(tx, ids)
}

// notUpstream is a condition on jobs j: no job runs after j. Retention
// keeps an ended job that still triggers another (its delete would be
// refused).
const notUpstream = `NOT EXISTS (SELECT 1 FROM job_trigger_upstreams e WHERE e.upstream_id = j.id)`

// jobAtPath is the FROM and WHERE of a query of the job j at rg/jc/job
// in workspace ws (SQL expressions): names compare case-insensitively.
// Every look-up of a trigger's upstream by its path uses it.
func jobAtPath(ws, rg, jc, job string) string {
	return `resource_groups g
		JOIN job_collections c ON c.resource_group_id = g.id
		JOIN jobs j ON j.job_collection_id = c.id
		WHERE g.workspace_id = ` + ws + ` AND lower(g.name) = lower(` + rg + `) AND lower(c.name) = lower(` + jc + `)
		  AND lower(j.name) = lower(` + job + `)`
}

// ExistingJobPaths returns which of paths (jobs of workspace
// workspaceID) exist, by their jobdef.JobPath.Key: names compare
// case-insensitively, as a trigger's upstreams are resolved
// (syncTriggers). It reads without locking: an import's check of the
// names its file's triggers give, which the write checks again.
func (s *Store) ExistingJobPaths(ctx context.Context, workspaceID string, paths []jobdef.JobPath) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	type ref struct {
		RG  string `json:"rg"`
		JC  string `json:"jc"`
		Job string `json:"job"`
	}
	refs := make([]ref, len(paths))
	for i, p := range paths {
		refs[i] = ref{RG: p.ResourceGroup, JC: p.Collection, Job: p.Job}
	}
	data, err := json.Marshal(refs)
	if err != nil {
		return nil, fmt.Errorf("models: existing job paths: %w", err)
	}
	var found []ref
	err = s.db.WithContext(ctx).Raw(`
		SELECT r.rg, r.jc, r.job
		FROM json_to_recordset(?::json) AS r(rg text, jc text, job text)
		WHERE EXISTS (SELECT 1 FROM `+jobAtPath("?", "r.rg", "r.jc", "r.job")+`)`, string(data), workspaceID).Scan(&found).Error
	if err != nil {
		return nil, translate("models: existing job paths", err)
	}
	for _, f := range found {
		out[jobdef.JobPath{ResourceGroup: f.RG, Collection: f.JC, Job: f.Job}.Key()] = true
	}
	return out, nil
}
