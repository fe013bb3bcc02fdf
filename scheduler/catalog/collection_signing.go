package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sked/models"
	"sked/models/problem"
)

// CollectionWrite is the answer of PutCollectionWrite and
// PatchCollectionWrite.
type CollectionWrite struct {
	// Row is the collection as stored after the write.
	Row *models.CollectionRow
	// Created says that the write created the collection (a put only).
	Created bool
	// Secret is the signing secret ("whsec_…") the write generated, when
	// properties.signing.enabled was true on a collection without one: it
	// is shown to the user once, in the answer to the write, and never
	// again. "" when the write generated none.
	Secret string
	// SigningRemoved says that the write removed the collection's signing
	// secret (properties.signing.enabled false on a collection that
	// signed).
	SigningRemoved bool
}

// signingEnabled is the one field of properties.signing a PUT or PATCH
// sets (a JSON key, not a job state).
const signingEnabled = "enabled"

// signingReadOnly are the fields of properties.signing that a GET shows
// and a PUT or PATCH ignores, so that a client may send back what it read.
var signingReadOnly = []string{"createdAt", "updatedAt", "previousValidUntil"}

// parseSigning reads properties.signing of an ARM collection body (SPEC
// §13.3, signed job requests): nil when it is absent or null (the
// collection's secret stays as it is), else the wanted
// properties.signing.enabled. Field names match case-insensitively, like
// the rest of the ARM body. Problems are a *problem.List: signing not an
// object, enabled missing or not a boolean, "secret" (it is generated,
// never given) or any field but enabled and the read-only ones. A body
// that is not a JSON object, or whose properties is not one, is left to
// ParseCollection to report.
func parseSigning(body []byte) (*bool, error) {
	props := jsonField(body, "properties")
	if props == nil || !isObject(props) {
		return nil, nil
	}
	raw := jsonField(props, "signing")
	if raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	const path = "properties.signing"
	var in map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &in) != nil {
		return nil, problem.New(path, `must be an object such as {"enabled": true}`)
	}
	var ps problem.List
	var enabled *bool
	for k, v := range in {
		switch {
		case strings.EqualFold(k, signingEnabled):
			t := string(bytes.TrimSpace(v))
			if t != "true" && t != "false" {
				ps.Add(path+".enabled", fmt.Sprintf("%s is not true or false", t))
				continue
			}
			b := t == "true"
			enabled = &b
		case strings.EqualFold(k, "secret"):
			ps.Add(path+".secret", "is generated, never given: enable signing to get one, and rotate it with POST …/signing-secret")
		case isReadOnlySigningField(k):
		default:
			ps.Add(path+"."+k, "is not a field of signing (enabled; createdAt and previousValidUntil are read-only)")
		}
	}
	if enabled == nil && ps.Len() == 0 {
		ps.Add(path+".enabled", "is required: true to sign the collection's requests, false to stop")
	}
	if err := ps.OrNil(); err != nil {
		return nil, err
	}
	return enabled, nil
}

// isReadOnlySigningField says whether k is one of signingReadOnly.
func isReadOnlySigningField(k string) bool {
	for _, r := range signingReadOnly {
		if strings.EqualFold(k, r) {
			return true
		}
	}
	return false
}

// jsonField returns the value of key (matched case-insensitively) in the JSON
// object raw, or nil when raw is not an object or has no such key.
func jsonField(raw []byte, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if v, ok := m[key]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// joinProblems is the problems of errs together as one *problem.List; an
// error that is not a *problem.List is returned as it is.
func joinProblems(errs ...error) error {
	var out problem.List
	for _, err := range errs {
		if err == nil {
			continue
		}
		l := problem.As(err)
		if l == nil {
			return err
		}
		out.Merge("", l)
	}
	return out.OrNil()
}

// signingOutcome is what applySigning did: the secret it generated, or
// that it removed the secret.
type signingOutcome struct {
	secret  string
	removed bool
}

// applySigning makes the signing secret of the collection row, in the
// write's transaction, what a put or patch asked (enabled; nil: leave it):
// true on a collection without a secret generates one, as
// NewSigningSecret does (with no overlap: there is no previous secret), and returns it; true on a collection that signs
// already changes nothing (rotation is NewSigningSecret's); false removes
// the secret if there is one, and says so. A change is authorised like
// NewSigningSecret and RemoveSigningSecret and appended to rec's Parts,
// its own entry in the audit log.
func (c *Catalog) applySigning(ctx context.Context, actor Actor, row *models.CollectionRow, enabled *bool, rec *record) (signingOutcome, error) {
	var out signingOutcome
	if enabled == nil {
		return out, nil
	}
	ref := models.CollectionRef{WorkspaceID: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name}
	_, err := c.store.SigningOf(ctx, row.ID)
	signs := err == nil
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return out, fmt.Errorf("catalog: signing of collection: %w", err)
	}
	switch {
	case *enabled && !signs:
		part := record{Change: collectionChange(OpPutSigning, ref, ""), Secrets: []string{"signingSecret"}}
		if err := c.allow(ctx, actor, part.Change); err != nil {
			return out, err
		}
		g, err := c.newSigningSecret(ctx, actor, row, 0, &part)
		if err != nil {
			return out, err
		}
		rec.Parts = append(rec.Parts, part)
		out.secret = g.Secret
	case !*enabled && signs:
		part := record{Change: collectionChange(OpDeleteSigning, ref, ""), Secrets: []string{"signingSecret"}}
		if err := c.allow(ctx, actor, part.Change); err != nil {
			return out, err
		}
		if err := c.store.DeleteSigning(ctx, row.ID); err != nil {
			return out, fmt.Errorf("catalog: remove signing secret: %w", err)
		}
		rec.Parts = append(rec.Parts, part)
		out.removed = true
	}
	return out, nil
}

// changedParts passes the changes of rec's Parts to changed, after the
// commit (audited passes rec's own).
func (c *Catalog) changedParts(ctx context.Context, actor Actor, rec *record) {
	for i := range rec.Parts {
		c.changed(ctx, actor, rec.Parts[i].Change)
	}
}
