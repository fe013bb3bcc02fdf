package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
)

// wireCollection is the ARM shape of a collection on input.
type wireCollection struct {
	Location   *string         `json:"location"`
	Tags       json.RawMessage `json:"tags"`
	Properties *struct {
		SKU *struct {
			Name *string `json:"name"`
		} `json:"sku"`
		State *string `json:"state"`
		// StateNote is why the collection is not Enabled (SPEC §13.2).
		StateNote json.RawMessage `json:"stateNote"`
		Quota     *struct {
			MaxJobCount      json.RawMessage `json:"maxJobCount"`
			MaxJobOccurrence json.RawMessage `json:"maxJobOccurrence"`
			MaxRecurrence    *struct {
				Frequency *string         `json:"frequency"`
				Interval  json.RawMessage `json:"interval"`
			} `json:"maxRecurrence"`
		} `json:"quota"`
	} `json:"properties"`
}

// ParseCollection reads a collection in the ARM shape ({"location",
// "tags", "properties": {"sku": {"name"}, "state", "quota"}}) and checks
// every field, reporting all problems at once as a *problem.List.
// Absent fields take the defaults: SKU Standard, state Enabled, the SKU's
// quota.
func ParseCollection(body []byte) (*models.JobCollection, error) {
	var ps []problem.Problem
	add := func(path, msg string, args ...any) {
		ps = append(ps, problem.Problem{Path: path, Message: fmt.Sprintf(msg, args...)})
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var w wireCollection
	if !json.Valid(body) {
		add("collection", "not valid JSON")
		return nil, &problem.List{Problems: ps}
	}
	if err := dec.Decode(&w); err != nil {
		add("collection", "has a field of the wrong type: %s", describeTypeError(err))
		return nil, &problem.List{Problems: ps}
	}
	c := &models.JobCollection{SKU: models.SKUStandard, State: models.CollectionEnabled, Tags: json.RawMessage(`{}`)}
	if w.Location != nil {
		if utf8.RuneCountInString(*w.Location) > 100 {
			add("location", "is longer than 100 characters")
		}
		c.Location = *w.Location
	}
	if len(w.Tags) > 0 && string(w.Tags) != "null" {
		var tags map[string]string
		if err := json.Unmarshal(w.Tags, &tags); err != nil {
			add("tags", "must be an object of string values")
		} else {
			if len(tags) > 50 {
				add("tags", "%d tags given, at most 50", len(tags))
			}
			for k, v := range tags {
				if k == "" || utf8.RuneCountInString(k) > 512 || utf8.RuneCountInString(v) > 256 {
					add("tags."+k, "a tag name must be 1 to 512 characters and its value at most 256")
				}
			}
			c.Tags, _ = json.Marshal(tags)
		}
	}
	if p := w.Properties; p != nil {
		if p.SKU != nil && p.SKU.Name != nil {
			c.SKU = ""
			for _, s := range models.SKUs {
				if strings.EqualFold(s, strings.TrimSpace(*p.SKU.Name)) {
					c.SKU = s
				}
			}
			if c.SKU == "" {
				add("properties.sku.name", "%q is not one of %s", *p.SKU.Name, strings.Join(models.SKUs, ", "))
				c.SKU = models.SKUStandard
			}
		}
		if p.State != nil {
			c.State, _ = models.ParseCollectionState(strings.TrimSpace(*p.State))
			if c.State == "" {
				add("properties.state", "%q is not one of Enabled, Disabled, Suspended", *p.State)
				c.State = models.CollectionEnabled
			}
		}
		if len(p.StateNote) > 0 && string(p.StateNote) != "null" {
			var note string
			if err := json.Unmarshal(p.StateNote, &note); err != nil {
				add("properties.stateNote", "must be a string")
			} else if msg := jobdef.CheckStateNote(strings.TrimSpace(note)); msg != "" {
				add("properties.stateNote", "%s", msg)
			} else if c.State != models.CollectionEnabled { // enabling clears the note
				c.StateNote = strings.TrimSpace(note)
			}
		}
		if q := p.Quota; q != nil {
			limits := models.SKUQuota(c.SKU)
			if v, ok := quotaInt(q.MaxJobCount, "properties.quota.maxJobCount", 0, add); ok {
				if v > limits.MaxJobCount {
					add("properties.quota.maxJobCount", "%d is over the maximum of %d for sku %s", v, limits.MaxJobCount, c.SKU)
				} else {
					c.MaxJobCount = &v
				}
			}
			if v, ok := quotaInt(q.MaxJobOccurrence, "properties.quota.maxJobOccurrence", 0, add); ok {
				c.MaxJobOccurrence = &v
			}
			if mr := q.MaxRecurrence; mr != nil {
				const path = "properties.quota.maxRecurrence"
				freq := jobdef.Frequency("")
				if mr.Frequency == nil {
					add(path+".frequency", "is required")
				} else if f := jobdef.Frequency(strings.ToLower(strings.TrimSpace(*mr.Frequency))); f.MaxInterval() > 0 {
					freq = f
				} else {
					add(path+".frequency", "%q is not one of second, minute, hour, day, week, month, year", *mr.Frequency)
				}
				interval := 1
				if v, ok := quotaInt(mr.Interval, path+".interval", 1, add); ok {
					interval = v
				}
				if freq != "" {
					r := models.Recurrence{Frequency: freq, Interval: interval}
					if most := models.SKUMostOften(c.SKU); r.Shortest() < most.Shortest() {
						add(path, "every %s is more often than sku %s allows (at most every %s)", r, c.SKU, most)
					} else {
						f := string(freq)
						c.MaxRecurrenceFrequency, c.MaxRecurrenceInterval = &f, &interval
					}
				}
			}
		}
	}
	if len(ps) > 0 {
		return nil, &problem.List{Problems: ps}
	}
	return c, nil
}

// quotaInt reads a whole number of at least min.
func quotaInt(raw json.RawMessage, path string, min int, add func(string, string, ...any)) (int, bool) {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return 0, false
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil || v < int64(min) || v > 1<<31-1 {
		add(path, "%s is not a whole number from %d to 2147483647", text, min)
		return 0, false
	}
	return int(v), true
}

// describeTypeError names the field of a JSON type error.
func describeTypeError(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asTypeError(err, &te); ok {
		return fmt.Sprintf("%s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return err.Error()
}

// PutCollection creates or replaces the collection at ref from an ARM
// body, for actor. It reports whether it was created. It is
// PutCollectionWrite without the signing secret a body enabling signing
// generates: callers that show that secret use PutCollectionWrite.
func (c *Catalog) PutCollection(ctx context.Context, actor Actor, ref models.CollectionRef, body []byte) (*models.CollectionRow, bool, error) {
	w, err := c.PutCollectionWrite(ctx, actor, ref, body)
	if err != nil {
		return nil, false, err
	}
	return w.Row, w.Created, nil
}

// PutCollectionWrite creates or replaces the collection at ref from an
// ARM body, for actor (editor), with its signing secret as
// properties.signing says (see applySigning), in one transaction.
func (c *Catalog) PutCollectionWrite(ctx context.Context, actor Actor, ref models.CollectionRef, body []byte) (*CollectionWrite, error) {
	rec := &record{Change: collectionChange(OpPutCollection, ref, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	var out *CollectionWrite
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		out, err = tc.putCollection(ctx, actor, ref, body, rec)
		if out != nil {
			rec.Detail = createdDetail(out.Created)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	c.changedParts(ctx, actor, rec)
	return out, nil
}

// putCollection is PutCollectionWrite in the write's transaction, filling
// rec's Before and After, and its Parts with a change of the signing
// secret.
func (c *Catalog) putCollection(ctx context.Context, actor Actor, ref models.CollectionRef, body []byte, rec *record) (*CollectionWrite, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	coll, err := ParseCollection(body)
	signing, serr := parseSigning(body)
	if err != nil || serr != nil {
		return nil, joinProblems(err, serr)
	}
	now := c.now().UTC()
	coll.StateChangedBy, coll.StateChangedAt = actor.UserName, &now
	if cur, err := c.store.CollectionByRef(ctx, ref); err == nil {
		rec.Before = CollectionJSON(&cur.JobCollection, false)
	}
	created, err := c.store.PutCollection(ctx, ref, coll)
	if err != nil {
		return nil, fmt.Errorf("put collection: %w", err)
	}
	row, err := c.store.CollectionByRef(ctx, ref)
	if err != nil {
		return nil, err
	}
	rec.ResourceGroup, rec.Collection, rec.After = row.ResourceGroup, row.Name, CollectionJSON(&row.JobCollection, false)
	sg, err := c.applySigning(ctx, actor, row, signing, rec)
	if err != nil {
		return nil, err
	}
	return &CollectionWrite{Row: row, Created: created, Secret: sg.secret, SigningRemoved: sg.removed}, nil
}

// PatchCollection merges an ARM body into the collection at ref, for
// actor. It is PatchCollectionWrite without the signing secret a body
// enabling signing generates.
func (c *Catalog) PatchCollection(ctx context.Context, actor Actor, ref models.CollectionRef, body []byte) (*models.CollectionRow, error) {
	w, err := c.PatchCollectionWrite(ctx, actor, ref, body)
	if err != nil {
		return nil, err
	}
	return w.Row, nil
}

// PatchCollectionWrite merges an ARM body into the collection at ref, for
// actor (editor), with its signing secret as properties.signing says (see
// applySigning), in one transaction.
func (c *Catalog) PatchCollectionWrite(ctx context.Context, actor Actor, ref models.CollectionRef, body []byte) (*CollectionWrite, error) {
	rec := &record{Change: collectionChange(OpPatchCollection, ref, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	var out *CollectionWrite
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		cur, err := tc.store.CollectionByRef(ctx, ref)
		if err != nil {
			return err
		}
		if !json.Valid(body) || !isObject(body) {
			return &problem.List{Problems: []problem.Problem{{Path: "collection", Message: "must be a JSON object"}}}
		}
		merged := mergePatch(CollectionJSON(&cur.JobCollection, true), body)
		out, err = tc.putCollection(ctx, actor, ref, merged, rec)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.changedParts(ctx, actor, rec)
	return out, nil
}

// CollectionJSON writes the input-relevant fields of a collection in the
// ARM shape; with setQuotaOnly only the quota fields it sets (so that a
// PATCH keeps following the SKU's defaults).
func CollectionJSON(c *models.JobCollection, setQuotaOnly bool) json.RawMessage {
	quota := map[string]any{}
	if c.MaxJobCount != nil {
		quota["maxJobCount"] = *c.MaxJobCount
	}
	if c.MaxJobOccurrence != nil {
		quota["maxJobOccurrence"] = *c.MaxJobOccurrence
	}
	if c.MaxRecurrenceFrequency != nil && c.MaxRecurrenceInterval != nil {
		quota["maxRecurrence"] = map[string]any{"frequency": *c.MaxRecurrenceFrequency, "interval": *c.MaxRecurrenceInterval}
	}
	props := map[string]any{"sku": map[string]string{"name": c.SKU}, "state": c.State}
	if c.StateNote != "" {
		props["stateNote"] = c.StateNote
	}
	if len(quota) > 0 {
		props["quota"] = quota
	}
	out, _ := json.Marshal(map[string]any{"location": c.Location, "tags": c.Tags, "properties": props})
	return out
}

// SetCollectionState is SetCollectionStateNote without a note.
func (c *Catalog) SetCollectionState(ctx context.Context, actor Actor, ref models.CollectionRef, state models.CollectionState) (*models.CollectionRow, error) {
	return c.SetCollectionStateNote(ctx, actor, ref, state, "")
}

// SetCollectionStateNote enables, disables or suspends the collection at
// ref with note, why (SPEC §13.2; dropped when enabling; a bad one is a
// *problem.List naming stateNote and nothing changes),
// for actor.
func (c *Catalog) SetCollectionStateNote(ctx context.Context, actor Actor, ref models.CollectionRef, state models.CollectionState, note string) (*models.CollectionRow, error) {
	rec := &record{Change: collectionChange(OpSetCollectionState, ref, string(state))}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	note, err := CheckStateNote(note)
	if err != nil {
		return nil, err
	}
	if state == models.CollectionEnabled {
		note = ""
	}
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		cur, err := tc.store.CollectionByRef(ctx, ref)
		if err != nil {
			return err
		}
		rec.ResourceGroup, rec.Collection = cur.ResourceGroup, cur.Name
		rec.Before, rec.After = collectionStateJSON(cur.State, cur.StateNote), collectionStateJSON(state, note)
		return tc.store.SetCollectionStateNote(ctx, cur.ID, state, note, actor.UserName, tc.now().UTC())
	})
	if err != nil {
		return nil, err
	}
	return c.store.CollectionByRef(ctx, ref)
}

// DeleteCollection deletes the collection at ref with its jobs, for actor.
func (c *Catalog) DeleteCollection(ctx context.Context, actor Actor, ref models.CollectionRef) error {
	rec := &record{Change: collectionChange(OpDeleteCollection, ref, "")}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	return c.audited(ctx, actor, rec, func(tc *Catalog) error {
		cur, err := tc.store.CollectionByRef(ctx, ref)
		if err != nil {
			return err
		}
		rec.ResourceGroup, rec.Collection, rec.Before = cur.ResourceGroup, cur.Name, CollectionJSON(&cur.JobCollection, false)
		return tc.store.DeleteCollection(ctx, cur.ID)
	})
}

// collectionChange is a change of the collection ref.
func collectionChange(op Op, ref models.CollectionRef, detail string) Change {
	return Change{Op: op, WorkspaceID: ref.WorkspaceID, ResourceGroup: ref.ResourceGroup, Collection: ref.Name, Detail: detail}
}

// stateJSON is a state as a definition for the audit log's difference:
// {"state": "…"}.
func stateJSON(state string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"state": state})
	return b
}

// collectionStateJSON is a collection's state with its note for the
// audit log's difference: {"state": "…"}, with "stateNote" when it has
// one.
func collectionStateJSON(state models.CollectionState, note string) json.RawMessage {
	if note == "" {
		return stateJSON(string(state))
	}
	b, _ := json.Marshal(map[string]string{"state": string(state), "stateNote": note})
	return b
}

// createdDetail is the Detail of a put: "created" or "".
func createdDetail(created bool) string {
	if created {
		return "created"
	}
	return ""
}

// checkRef validates the names in a collection path.
func checkRef(ref models.CollectionRef) error {
	var ps []problem.Problem
	if !ValidResourceGroup(ref.ResourceGroup) {
		ps = append(ps, problem.Problem{Path: "resourceGroupName", Message: fmt.Sprintf("%q is not a resource group name (1 to 90 letters, digits, '-', '_', '.', '(', ')')", ref.ResourceGroup)})
	}
	if !ValidName(ref.Name) {
		ps = append(ps, problem.Problem{Path: "jobCollectionName", Message: fmt.Sprintf("%q is not a job collection name (a letter or digit, then up to 99 letters, digits, '-' or '_')", ref.Name)})
	}
	if len(ps) > 0 {
		return &problem.List{Problems: ps}
	}
	return nil
}
