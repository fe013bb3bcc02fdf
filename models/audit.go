package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// The audit log (SPEC §13.5): one row per change, appended in the
// transaction of the change (Audited for the write service and the
// account writes, endJob and endFinishedJobs for the engine). Nothing in
// Sked updates or deletes a row but the retention (Prune); the table's
// trigger refuses anything else.

// AuditActorKind is who made a change.
type AuditActorKind string

// The kinds of actor.
const (
	// ActorUser is a signed-in user at a page.
	ActorUser AuditActorKind = "user"
	// ActorToken is a user's API token (the entry names both).
	ActorToken AuditActorKind = "token"
	// ActorCLI is the sked command (ActorName: --user, or the operating
	// system user running it).
	ActorCLI AuditActorKind = "cli"
	// ActorEngine is the execution engine: a job completing or faulting.
	ActorEngine AuditActorKind = "engine"
	// ActorSystem is Sked itself acting for no user (catalog.System),
	// named by ActorName.
	ActorSystem AuditActorKind = "system"
)

// EngineActorName is the ActorName of the engine's entries.
const EngineActorName = "engine"

// The actions the store itself writes: the engine's and the account's
// (the write service's are its catalog.Op values).
const (
	AuditJobComplete  = "job.complete"
	AuditJobFault     = "job.fault"
	AuditTokenCreate  = "token.create"
	AuditTokenRevoke  = "token.revoke"
	AuditUserCreate   = "user.create"
	AuditUserDisable  = "user.disable"
	AuditUserEnable   = "user.enable"
	AuditUserPassword = "user.password"
)

// AuditActions are the actions the audit log accepts (its CHECK
// constraint, migrations 0016, 0035, 0037 and 0038): the write service's catalog.Op values and
// the store's own, grouped by family (the part before the dot).
var AuditActions = []string{
	"collection.put", "collection.patch", "collection.state", "collection.delete", "collection.signing.put", "collection.signing.delete",
	"job.put", "job.patch", "job.delete", "job.enable", "job.disable", "job.run", "job.rerun", "job.run.changes", "job.backfill", "job.backfill.cancel", AuditJobComplete, AuditJobFault,
	"calendar.put", "calendar.delete", "calendar.import",
	"import",
	"workspace.create", "workspace.rename", "workspace.delete",
	"member.put", "member.remove",
	"channel.put", "channel.delete", "channel.test",
	"alert.put", "alert.delete",
	"target.put", "target.delete",
	"monitor.put", "monitor.delete", "monitor.rotate",
	AuditTokenCreate, AuditTokenRevoke,
	AuditUserCreate, AuditUserDisable, AuditUserEnable, AuditUserPassword,
	"signin", "signout",
}

// AuditChange is one difference of a definition: the JSON path that
// changed and its value before and after, as JSON text ("" when absent:
// added or removed). A secret's values are never stored: both sides read
// AuditSecretMask.
type AuditChange struct {
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
}

// AuditSecretMask stands for a secret's value in an AuditChange.
const AuditSecretMask = `"•••"`

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID int64
	// At is when the change was made (the writer's clock).
	At time.Time
	// WorkspaceID is the workspace changed; "" for users and tokens.
	WorkspaceID string
	ActorKind   AuditActorKind
	// ActorUserID is the user's id (0: none); ActorName the user's name
	// (EngineActorName for the engine).
	ActorUserID int64
	ActorName   string
	// TokenID and TokenName name the API token of an ActorToken entry
	// (Audited fills TokenName in from TokenID).
	TokenID   int64
	TokenName string
	// Via is the way the change came ("api", "web", "cli", "engine", or
	// "").
	Via string
	// Addr is the client's address ("" for the CLI and the engine).
	Addr string
	// Action names the change (a catalog.Op, or one of the Audit*
	// constants).
	Action string
	// Resource is the path of what changed in the workspace
	// (AuditCollectionResource, AuditJobResource, …).
	Resource string
	// Detail is what else the change says ("created", a new state, …).
	Detail string
	// Diff is the difference of the definition, secrets masked.
	Diff []AuditChange
}

// AuditCollectionResource is the Resource of a collection.
func AuditCollectionResource(rg, coll string) string {
	return "resourceGroups/" + rg + "/jobCollections/" + coll
}

// AuditJobResource is the Resource of a job.
func AuditJobResource(rg, coll, job string) string {
	return AuditCollectionResource(rg, coll) + "/jobs/" + job
}

// auditJobResourceSQL is AuditJobResource in SQL, of the job j in the
// collection c of the resource group g.
const auditJobResourceSQL = `'resourceGroups/' || g.name || '/jobCollections/' || c.name || '/jobs/' || j.name`

// Audited runs fn in one transaction with a Store bound to it, then
// appends the entries fn returns (none: nothing) in the same transaction:
// the change and its entries are kept together or not at all. Store
// methods fn calls on tx that open transactions of their own run as
// savepoints of this one. op prefixes the errors of the transaction
// itself; fn's are returned as fn returned them.
//
// A transaction that fails with a serialization failure or a deadlock
// (SQLSTATE 40001, 40P01) is rolled back and run again, fn included,
// up to 5 times with a jittered backoff, and one refused by a read-only
// server (SQLSTATE 25006, a failover) or whose connection was lost before
// the commit once more, at once, on a new connection (withRetry,
// locks.go): fn must
// start from scratch on every call (reset what it fills outside tx), and
// only the entries of the try that commits are kept.
func (s *Store) Audited(ctx context.Context, op string, fn func(tx *Store) ([]AuditEntry, error)) error {
	return s.AuditedThen(ctx, op, fn, nil)
}

// insertEngineAudit appends the engine's entry action (AuditJobComplete
// or AuditJobFault) for job id at now, in tx.
func insertEngineAudit(tx *gorm.DB, id int64, action string, now time.Time) error {
	err := tx.Exec(`INSERT INTO audit_entries (at, workspace_id, actor_kind, actor_name, via, action, resource)
		SELECT ?, g.workspace_id, ?, ?, ?, ?, `+auditJobResourceSQL+`
		FROM jobs j JOIN job_collections c ON c.id = j.job_collection_id JOIN resource_groups g ON g.id = c.resource_group_id
		WHERE j.id = ?`, now, ActorEngine, EngineActorName, EngineActorName, action, id).Error
	if err != nil {
		return fmt.Errorf("audit job %d: %w", id, err)
	}
	return nil
}

// AuditedThen is Audited with a last step: then (nil: none), when fn
// succeeded, runs on tx after the entries are appended, just before the
// commit; its error rolls everything back (a retry runs it again). A long write (an import) plans
// there what depends on the moment it commits.
func (s *Store) AuditedThen(ctx context.Context, op string, fn func(tx *Store) ([]AuditEntry, error), then func(tx *Store) error) error {
	return withRetry(ctx, func(int) error {
		if err := s.writes.acquire(ctx); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		defer s.writes.release()
		// beforeCommit: the error came before the commit was sent (BEGIN
		// or the body failed), so nothing of this try was committed.
		beforeCommit := true
		err := s.inTx(ctx, op, func(db *gorm.DB) error {
			txs := *s
			txs.db = db
			// A write nested in this one (the same transaction) waits for
			// no second slot.
			txs.writes = nil
			es, err := fn(&txs)
			if err != nil {
				return err
			}
			if err := insertAudit(db, es); err != nil {
				return translate(op+": audit", err)
			}
			if then != nil {
				if err := then(&txs); err != nil {
					return err
				}
			}
			beforeCommit = false
			return nil
		})
		if err != nil && (beforeCommit && (errors.Is(err, ErrUnavailable) || lostConnection(err)) || pgconn.SafeToRetry(err)) {
			// The server went away (a restart, a failover): the pool's
			// other connections to it are as dead as this one, and the
			// retry must not take one of them.
			if s.guard != nil {
				s.guard.dropAll()
			}
			return lostBeforeCommit{err}
		}
		return err
	})
}

// lostBeforeCommit is the error of a transaction whose connection was
// lost (the server restarted, or went away in a failover) before its
// commit was sent (pgconn.SafeToRetry: the failing statement, the commit
// included, was not sent at all): nothing of it was committed, so
// withRetry runs it once more, on a new connection. A connection lost
// while the commit was on its way is not run again: the commit may have
// happened.
type lostBeforeCommit struct{ error }

// Unwrap returns the error.
func (e lostBeforeCommit) Unwrap() error { return e.error }
