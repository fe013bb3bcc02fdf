package catalog

import (
	"context"
	"encoding/json"

	"sked/models"
	"slices"
)

// record is what a write tells the audit log: its Change, and for a
// definition its value before and after.
type record struct {
	Change
	// Before and After are the definition before and after the change
	// (nil: none, as for a creation or a deletion), whose difference the
	// audit log keeps; they never hold secrets.
	Before, After json.RawMessage
	// Secrets are the paths of secrets the change set, replaced or removed
	// (their values never leave the store).
	Secrets []string
	// Parts are the changes a change made of several (an import) made,
	// each its own entry in the audit log.
	Parts []record
	// By, when not nil, is who the audit log names for the entries of
	// this record, instead of the actor of audited: a write that learns
	// who acts as it writes (a first sign-in creates its user).
	By *Actor
}

// audited is the one way the catalog writes (SPEC §13.5): it runs write in
// one transaction of the store, in which write works on tc, a copy of c
// whose store is bound to that transaction, and completes rec (the names
// as stored, Detail, Before and After, Secrets, Parts); then it appends
// the audit log's entries of rec in the same transaction, so that the
// change and its entries are kept together or not at all; after the
// commit it passes rec's Change to changed. A write that fails leaves no
// entry. The caller has already checked rec's Change with allow. A rec
// without an Op (a group) passes nothing to changed: the caller passes
// its parts.
//
// A transaction that meets a deadlock or a serialization failure is run
// again, write included (models.Store.Audited): each try starts from rec
// as audited got it, so write must set (not add to) what it fills
// outside the transaction, and the audit log keeps the entries of the
// try that commits.
func (c *Catalog) audited(ctx context.Context, actor Actor, rec *record, write func(tc *Catalog) error) error {
	return c.auditedThen(ctx, actor, rec, write, nil)
}

// auditEntries are the audit log's entries of the change rec made by
// actor: its own (none when rec has no Op: a group of changes such as a
// bulk action, whose parts are the entries), then one per part.
func (c *Catalog) auditEntries(actor Actor, rec *record) []models.AuditEntry {
	if rec.By != nil {
		actor = *rec.By
	}
	now := c.now()
	out := make([]models.AuditEntry, 0, 1+len(rec.Parts))
	add := func(r *record) {
		diff := diffJSON(r.Before, r.After)
		diff = append(diff, secretChanges(r.Secrets)...)
		out = append(out, models.AuditEntry{
			At: now, WorkspaceID: r.WorkspaceID,
			ActorKind: actorKind(actor), ActorUserID: actor.UserID, ActorName: actor.UserName, TokenID: actor.TokenID,
			Via: actor.Via, Addr: actor.Addr,
			Action: string(r.Op), Resource: r.Resource(), Detail: r.Detail, Diff: diff,
		})
	}
	if rec.Op != "" {
		add(rec)
	}
	for i := range rec.Parts {
		add(&rec.Parts[i])
	}
	return out
}

// actorKind is the kind of actor the audit log records.
func actorKind(a Actor) models.AuditActorKind {
	switch {
	case a.system:
		return models.ActorSystem
	case a.Via == ViaCLI:
		return models.ActorCLI
	case a.TokenID != 0:
		return models.ActorToken
	case a.UserID != 0 || a.UserName != "":
		return models.ActorUser
	}
	return models.ActorSystem
}

// Resource is the path of what ch changed in its workspace, as the audit
// log names it: a job, a collection, a calendar, a channel, an alert rule,
// a member, a user or a user's token; "" for the workspace itself.
func (ch Change) Resource() string {
	switch {
	case ch.Job != "":
		return models.AuditJobResource(ch.ResourceGroup, ch.Collection, ch.Job)
	case ch.Collection != "":
		return models.AuditCollectionResource(ch.ResourceGroup, ch.Collection)
	case ch.ResourceGroup != "":
		return "resourceGroups/" + ch.ResourceGroup
	case ch.Calendar != "":
		return "calendars/" + ch.Calendar
	case ch.Channel != "":
		return "channels/" + ch.Channel
	case ch.Alert != "":
		return "alertRules/" + ch.Alert
	case ch.Target != "":
		return "targets/" + ch.Target
	case ch.Monitor != "":
		return "monitors/" + ch.Monitor
	case ch.Member != "":
		return "members/" + ch.Member
	case ch.Token != "":
		return "users/" + ch.User + "/tokens/" + ch.Token
	case ch.User != "":
		return "users/" + ch.User
	}
	return ""
}

// auditedThen is audited with a last step: then (nil: none) runs on tc
// after the audit log's entries are appended, just before the commit (see
// models.Store.AuditedThen); its error rolls everything back.
func (c *Catalog) auditedThen(ctx context.Context, actor Actor, rec *record, write, then func(tc *Catalog) error) error {
	var last func(tx *models.Store) error
	if then != nil {
		last = func(tx *models.Store) error {
			tc := *c
			tc.store = tx
			return then(&tc)
		}
	}
	// Each try starts from rec as given (a retry after a deadlock runs
	// write again; appends to Parts must not survive it).
	given := *rec
	given.Parts = slices.Clip(rec.Parts)
	// A write may change the actor's roles (a membership, a token, a
	// workspace): the request reads them again after it.
	defer actor.Roles.forget()
	tries := 0
	err := c.store.AuditedThen(ctx, "catalog: "+string(rec.Op), func(tx *models.Store) ([]models.AuditEntry, error) {
		if tries++; tries > 1 {
			*rec = given
			c.cals.forget() // calendars compiled in the rolled-back try
		}
		tc := *c
		tc.store = tx
		if err := write(&tc); err != nil {
			return nil, err
		}
		return c.auditEntries(actor, rec), nil
	}, last)
	if err != nil {
		// A calendar compiled inside the rolled-back transaction may be
		// cached under a version that never was: forget them all.
		c.cals.forget()
		return err
	}
	if rec.Op != "" {
		c.changed(ctx, actor, rec.Change)
	}
	return nil
}
