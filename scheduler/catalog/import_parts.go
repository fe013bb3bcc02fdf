package catalog

import (
	"strings"

	"sked/models"
)

// importParts are the audit log's entries of an applied import: one per
// collection it created or replaced, one per job it wrote (jobIndex: the
// index in colls of each job of the batch).
func importParts(batch models.ImportBatch, res *models.ImportResult, colls []*importColl, jobIndex []int) []record {
	parts := make([]record, 0, len(batch.Collections)+len(batch.Jobs))
	for i, ic := range batch.Collections {
		if !ic.Replace && !res.CollectionCreated[i] {
			continue
		}
		r := record{Change: collectionChange(OpPutCollection, ic.Ref, "replaced by import")}
		if res.CollectionCreated[i] {
			r.Detail = "created by import"
		}
		if ic.Settings != nil {
			r.After = CollectionJSON(ic.Settings, false)
		}
		parts = append(parts, r)
	}
	for k, j := range batch.Jobs {
		ref := batch.Collections[j.Collection].Ref
		r := record{Change: Change{Op: OpPutJob, WorkspaceID: ref.WorkspaceID, ResourceGroup: ref.ResourceGroup, Collection: ref.Name,
			Job: j.Write.Name, Detail: "replaced by import"}, After: j.Write.Definition}
		var kept map[string]string
		if res.JobCreated[k] {
			r.Detail = "created by import"
		} else if ic := colls[jobIndex[k]]; ic != nil && ic.jobs != nil {
			if s, ok := ic.jobs[strings.ToLower(j.Write.Name)]; ok {
				r.Before, kept = s.Definition, s.Secrets
			}
		}
		r.Secrets = changedSecrets(kept, j.Write.Secrets)
		parts = append(parts, r)
	}
	return parts
}
