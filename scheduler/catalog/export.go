package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// ExportNote is what every export says about secrets.
const ExportNote = "secrets (passwords, pfx, client secrets, SAS tokens and keys) are not exported; set them again after import"

// The ARM resource types of an export.
const (
	collectionType = "Microsoft.Scheduler/jobCollections"
	jobType        = "Microsoft.Scheduler/jobCollections/jobs"
)

// exportedJob is a job in the ARM shape.
type exportedJob struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Properties json.RawMessage `json:"properties"`
}

// exportedCollection is a collection in the ARM shape.
type exportedCollection struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Location   string          `json:"location"`
	Tags       json.RawMessage `json:"tags"`
	Properties json.RawMessage `json:"properties"`
}

// bundledCollection is a collection of an export bundle: with its jobs.
type bundledCollection struct {
	exportedCollection
	Jobs []exportedJob `json:"jobs"`
}

// exportPage is how many rows an export reads at a time.
const exportPage = 1000

// ExportJob returns the job name of the collection at ref in the ARM shape
// ({"id", "type", "name", "properties"}) with "secretsOmitted": true and
// the ExportNote beside it. Errors: models.ErrNotFound.
func (c *Catalog) ExportJob(ctx context.Context, ref models.CollectionRef, name string) (json.RawMessage, error) {
	coll, err := c.store.CollectionByRef(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("export job: %w", err)
	}
	j, err := c.store.JobByName(ctx, coll.ID, name)
	if err != nil {
		return nil, fmt.Errorf("export job: %w", err)
	}
	ej, err := exportJob(coll, j)
	if err != nil {
		return nil, err
	}
	return marshalExport(struct {
		exportedJob
		SecretsOmitted bool   `json:"secretsOmitted"`
		Note           string `json:"note"`
	}{ej, true, ExportNote})
}

// ExportCollection returns the jobs of the collection at ref as an ARM list
// {"value": [job, …]}, with the collection itself beside it as
// "jobCollection" (so that an import into another database recreates it
// with its sku and quota), "secretsOmitted": true and the ExportNote.
func (c *Catalog) ExportCollection(ctx context.Context, ref models.CollectionRef) (json.RawMessage, error) {
	coll, err := c.store.CollectionByRef(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("export collection: %w", err)
	}
	bc, err := c.exportCollection(ctx, coll)
	if err != nil {
		return nil, err
	}
	return marshalExport(struct {
		Value          []exportedJob      `json:"value"`
		JobCollection  exportedCollection `json:"jobCollection"`
		SecretsOmitted bool               `json:"secretsOmitted"`
		Note           string             `json:"note"`
	}{bc.Jobs, bc.exportedCollection, true, ExportNote})
}

// ExportAll returns everything userID may see (every collection of the
// workspaces the user is a member of) as an export bundle.
func (c *Catalog) ExportAll(ctx context.Context, userID int64) (json.RawMessage, error) {
	ws, err := c.store.WorkspacesOf(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	ids := make([]string, len(ws))
	for i, w := range ws {
		ids[i] = w.ID
	}
	return c.ExportWorkspaces(ctx, ids, "")
}

// ExportWorkspaces returns the collections of the workspaces
// workspaceIDs (of resource group group only, when not empty), each with
// its jobs, as an export bundle: {"jobCollections": [{…collection…,
// "jobs": [job, …]}], "secretsOmitted": true, "note": ExportNote}; without
// group, the workspaces' heartbeat monitors too ("workspaces": [{"id",
// "monitors": […]}], export_monitors.go), which sked apply reads and
// import ignores.
func (c *Catalog) ExportWorkspaces(ctx context.Context, workspaceIDs []string, group string) (json.RawMessage, error) {
	colls := []bundledCollection{}
	for _, ws := range workspaceIDs {
		for skip := 0; ; skip += exportPage {
			rows, err := c.store.ListCollections(ctx, models.ListCollectionsParams{WorkspaceID: ws, ResourceGroup: group, Skip: skip, Limit: exportPage})
			if err != nil {
				return nil, fmt.Errorf("export: %w", err)
			}
			for i := range rows {
				bc, err := c.exportCollection(ctx, &rows[i])
				if err != nil {
					return nil, err
				}
				colls = append(colls, bc)
			}
			if len(rows) < exportPage {
				break
			}
		}
	}
	var objects []exportedWorkspace
	if group == "" {
		var err error
		if objects, err = c.exportWorkspaceObjects(ctx, workspaceIDs); err != nil {
			return nil, err
		}
	}
	return marshalExport(struct {
		JobCollections []bundledCollection `json:"jobCollections"`
		Workspaces     []exportedWorkspace `json:"workspaces,omitempty"`
		SecretsOmitted bool                `json:"secretsOmitted"`
		Note           string              `json:"note"`
	}{colls, objects, true, ExportNote})
}

// exportCollection renders a collection with all its jobs.
func (c *Catalog) exportCollection(ctx context.Context, coll *models.CollectionRow) (bundledCollection, error) {
	out, err := exportCollectionHead(coll)
	if err != nil {
		return bundledCollection{}, err
	}
	for skip := 0; ; skip += exportPage {
		jobs, err := c.store.ListJobs(ctx, models.ListJobsParams{CollectionID: coll.ID, Skip: skip, Limit: exportPage})
		if err != nil {
			return bundledCollection{}, fmt.Errorf("export collection %s: %w", coll.Name, err)
		}
		for i := range jobs {
			ej, err := exportJob(coll, &jobs[i])
			if err != nil {
				return bundledCollection{}, err
			}
			out.Jobs = append(out.Jobs, ej)
		}
		if len(jobs) < exportPage {
			break
		}
	}
	return out, nil
}

// exportCollectionHead renders a collection without its jobs (Jobs is
// empty, not nil).
func exportCollectionHead(coll *models.CollectionRow) (bundledCollection, error) {
	var in struct {
		Location   string          `json:"location"`
		Tags       json.RawMessage `json:"tags"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(CollectionJSON(&coll.JobCollection, true), &in); err != nil {
		return bundledCollection{}, fmt.Errorf("export collection %s: %w", coll.Name, err)
	}
	if len(in.Tags) == 0 || string(in.Tags) == "null" {
		in.Tags = json.RawMessage(`{}`)
	}
	return bundledCollection{Jobs: []exportedJob{}, exportedCollection: exportedCollection{ID: collectionID(coll),
		Type: collectionType, Name: coll.Name, Location: in.Location, Tags: in.Tags, Properties: in.Properties}}, nil
}

// exportJob renders a stored job: its canonical definition (which holds
// no secrets) with times given in local wall-clock time written with
// their offset, and its current state and state note (an import keeps
// it).
func exportJob(coll *models.CollectionRow, j *models.Job) (exportedJob, error) {
	job, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return exportedJob{}, fmt.Errorf("export job %s/%s: the stored definition does not read back: %w", coll.Name, j.Name, err)
	}
	job.State, job.StateNote = jobdef.State(j.State), j.StateNote
	return exportedJob{
		ID:         collectionID(coll) + "/jobs/" + j.Name,
		Type:       jobType,
		Name:       coll.Name + "/" + j.Name,
		Properties: unescapeHTML(job.MarshalProperties(jobdef.MarshalOptions{ResolveLocal: recurrence.WallInstant})),
	}, nil
}

// collectionID is the ARM id of a collection.
func collectionID(coll *models.CollectionRow) string {
	return "/subscriptions/" + coll.WorkspaceID + "/resourceGroups/" + coll.ResourceGroup +
		"/providers/Microsoft.Scheduler/jobCollections/" + coll.Name
}

// marshalExport writes an export, indented for people to read and diff,
// without escaping <, > and & (bodies and URLs stay readable).
func marshalExport(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return b.Bytes(), nil
}

// unescapeHTML undoes the escaping of <, > and & as \u003c, \u003e and
// \u0026 that encoding/json applies inside JSON strings, so that bodies
// and URLs read as written. Other escapes are kept.
func unescapeHTML(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`\u00`)) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			out = append(out, raw[i])
			continue
		}
		if raw[i+1] == 'u' && i+6 <= len(raw) {
			switch strings.ToLower(string(raw[i+2 : i+6])) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out = append(out, raw[i], raw[i+1]) // an escape: copied whole
		i++
	}
	return out
}
