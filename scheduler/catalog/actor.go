package catalog

import (
	"context"
	"strings"
	"sync"

	"sked/models"
)

// Actor is who makes a change: the signed-in user of a page, the user of
// an API token, the command line, or a named part of Sked itself
// (System). Every write method of Catalog takes one, so that the role
// checks and the audit log know who changed what. The zero Actor is
// nobody: it has no rights (RoleOf), so that a caller that forgets to
// say who acts changes nothing.
//
// Actor lives in catalog, not in models: it is an argument of the write
// service, built by its callers (handlers, the CLI); the audit log stores
// its own row type built from it (models.AuditEntry, see audited).
type Actor struct {
	// UserID is the user's id; 0 when no user is known (the CLI without
	// --user).
	UserID int64
	// UserName is the user's name, or for the CLI the operating system
	// user running it.
	UserName string
	// TokenID is the API token the request carried; 0 for pages and the
	// CLI.
	TokenID int64
	// Addr is the client's address (behind trusted proxies, the one they
	// name); "" for the CLI.
	Addr string
	// Via is the way the change came: ViaAPI, ViaWeb or ViaCLI ("" for
	// Sked itself).
	Via string
	// Roles, when not nil, remembers the roles RoleOf finds for this
	// actor, so that the checks of one request (its route's, then its
	// write's) read the memberships and the token once; nil: every check
	// reads them.
	Roles *RoleMemo
	// system marks the actors System makes.
	system bool
}

// RoleMemo keeps the roles RoleOf found for one actor, by workspace
// (case-insensitively). A memo lives for one request: a role changed
// meanwhile by someone else is what the next request sees; every write of
// the catalog empties it (a write may change the actor's own roles). The zero RoleMemo is empty and
// ready; it is safe for concurrent use.
type RoleMemo struct {
	mu    sync.Mutex
	roles map[string]models.Role
}

// role returns the role remembered for workspaceID.
func (m *RoleMemo) role(workspaceID string) (models.Role, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.roles[strings.ToLower(workspaceID)]
	return r, ok
}

// forget empties the memo.
func (m *RoleMemo) forget() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.roles)
}

// remember keeps role for workspaceID.
func (m *RoleMemo) remember(workspaceID string, role models.Role) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.roles == nil {
		m.roles = map[string]models.Role{}
	}
	m.roles[strings.ToLower(workspaceID)] = role
}

// The ways a change comes (Actor.Via).
const (
	ViaAPI = "api" // the ARM API or /api/v1, with a bearer token
	ViaWeb = "web" // the pages and fragments, with a session
	ViaCLI = "cli" // the sked command
)

// System is the actor of a change Sked makes by itself, not for a user:
// name says which part of it (for instance "engine", "setup"; the audit
// log records it as a system actor of that name). It is trusted as
// owner everywhere. Only System makes such an actor: one built as a
// literal is a user's, the command line's, or nobody's.
func System(name string) Actor { return Actor{UserName: name, system: true} }

// IsSystem reports whether a is an actor System made.
func (a Actor) IsSystem() bool { return a.system }

// Op names a kind of change.
type Op string

// The changes the catalog makes.
const (
	OpPutCollection      Op = "collection.put"
	OpPatchCollection    Op = "collection.patch"
	OpSetCollectionState Op = "collection.state"
	OpDeleteCollection   Op = "collection.delete"
	OpPutJob             Op = "job.put"
	OpPatchJob           Op = "job.patch"
	OpDeleteJob          Op = "job.delete"
	OpEnableJob          Op = "job.enable"
	OpDisableJob         Op = "job.disable"
	OpRunJob             Op = "job.run"
	OpRerunJob           Op = "job.rerun"
	// OpRunJobChanges is a run now with changes of the request (SPEC
	// §16.4): editors only, where a run as defined needs an operator.
	OpRunJobChanges   Op = "job.run.changes"
	OpBackfillJob     Op = "job.backfill"
	OpCancelBackfill  Op = "job.backfill.cancel"
	OpPutCalendar     Op = "calendar.put"
	OpDeleteCalendar  Op = "calendar.delete"
	OpImportCalendar  Op = "calendar.import"
	OpImport          Op = "import"
	OpCreateWorkspace Op = "workspace.create"
	OpRenameWorkspace Op = "workspace.rename"
	OpDeleteWorkspace Op = "workspace.delete"
	OpPutMember       Op = "member.put"
	OpRemoveMember    Op = "member.remove"
	OpPutMonitor      Op = "monitor.put"
	OpDeleteMonitor   Op = "monitor.delete"
	OpRotateMonitor   Op = "monitor.rotate"
)

// Change is one write the catalog made: its kind and what it changed.
// Fields that do not apply are empty.
type Change struct {
	Op          Op
	WorkspaceID string
	// ResourceGroup and Collection name the collection (of the job).
	ResourceGroup string
	Collection    string
	// Job is the job's name.
	Job string
	// Calendar is the calendar's name.
	Calendar string
	// Channel is the notification channel's name.
	Channel string
	// Alert is the alert rule's name.
	Alert string
	// Target is the host of a target limit.
	Target string
	// Monitor is the heartbeat monitor's name.
	Monitor string
	// Member is the user name of a member whose membership changed.
	Member string
	// User is the user name of an account that changed (users, passwords,
	// tokens; no workspace).
	User string
	// Token is the name of an API token of User that changed.
	Token string
	// Detail is what else the change says: the new state of a collection,
	// the attempt id of a run, "created", the jobs an import wrote, or a
	// member's role.
	Detail string
}

// changed is the one point every successful write of the catalog passes
// after its commit, with who made it and what changed (audited calls it);
// notifications of changes start here. The audit log (SPEC §13.5) is
// written before, in the write's own transaction (audited). A test may
// observe it (onChange).
func (c *Catalog) changed(ctx context.Context, actor Actor, ch Change) {
	if c.onChange != nil {
		c.onChange(ctx, actor, ch)
	}
}
