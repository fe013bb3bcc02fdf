package catalog

import (
	"context"
	"fmt"

	"sked/models/jobdef"
)

// checkImportTriggers adds to rep, for each job of file that the import
// would write and whose trigger (SPEC §17.1) names a job that neither the
// file writes nor the job's workspace holds, a problem naming
// trigger.after[i]: the dry run then reports what the write would refuse
// (models' syncTriggers, which checks the names again under the trigger
// graph's lock), and with mode valid such a job is left out instead of
// failing the whole import. Cycles are left to the write: a dry run
// does not look for them. It runs before rep.Summary counts the jobs.
// colls and parsed are the jobs' collections and definitions (nil for a
// job that has none).
func (c *Catalog) checkImportTriggers(ctx context.Context, rep *ImportReport, file *ImportFile, colls []*importColl, parsed []*jobdef.Job) error {
	key := func(ws string, p jobdef.JobPath) string { return ws + "\x00" + p.Key() }
	// The jobs the file writes or keeps (skipped: already stored).
	inFile := map[string]bool{}
	for i := range file.Jobs {
		if colls[i] != nil && rep.Jobs[i].Valid() {
			r := colls[i].report
			inFile[key(colls[i].ref.WorkspaceID, jobdef.JobPath{ResourceGroup: r.ResourceGroup, Collection: r.Name, Job: file.Jobs[i].Name})] = true
		}
	}
	checked := func(i int) *jobdef.Trigger {
		if parsed[i] == nil || parsed[i].Trigger == nil || colls[i] == nil || !rep.Jobs[i].Valid() || rep.Jobs[i].Action == ActionSkip {
			return nil
		}
		return parsed[i].Trigger
	}
	ask := map[string][]jobdef.JobPath{}
	for i := range file.Jobs {
		if t := checked(i); t != nil {
			ws := colls[i].ref.WorkspaceID
			for _, a := range t.After {
				if !inFile[key(ws, a)] {
					ask[ws] = append(ask[ws], a)
				}
			}
		}
	}
	stored := map[string]bool{}
	for ws, paths := range ask {
		found, err := c.store.ExistingJobPaths(ctx, ws, paths)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		for k := range found {
			stored[ws+"\x00"+k] = true
		}
	}
	for i := range file.Jobs {
		t := checked(i)
		if t == nil {
			continue
		}
		rj := &rep.Jobs[i]
		ws := colls[i].ref.WorkspaceID
		for n, a := range t.After {
			if k := key(ws, a); !inFile[k] && !stored[k] {
				rj.Problems = append(rj.Problems, fmt.Sprintf("trigger.after[%d]: there is no job %s in this workspace or the file", n, a))
			}
		}
	}
	return nil
}
