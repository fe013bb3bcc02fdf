package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sked/models"
	"sked/models/problem"
)

// importPlan works out the collections of an import: where each job goes,
// which collections exist, and the quota that applies.
type importPlan struct {
	c           *Catalog
	workspaceID string
	target      models.CollectionRef
	onConflict  string
	// workspaces maps the lowercase id of every workspace to its id.
	workspaces map[string]string
	byKey      map[string]*importColl
	// order lists the collections as first met, for the report.
	order []*importColl
}

func (c *Catalog) newImportPlan(ctx context.Context, workspaceID string, target models.CollectionRef, onConflict string) (*importPlan, error) {
	ids, err := c.store.WorkspaceIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	p := &importPlan{c: c, workspaceID: workspaceID, target: target, onConflict: onConflict,
		workspaces: map[string]string{}, byKey: map[string]*importColl{}}
	for _, id := range ids {
		p.workspaces[strings.ToLower(id)] = id
	}
	if p.target.WorkspaceID == "" {
		p.target.WorkspaceID = workspaceID
	}
	if p.target.WorkspaceID == "" {
		p.target.WorkspaceID = models.DefaultWorkspaceID
	}
	return p, nil
}

// Workspaces returns the workspaces (API subscriptions) that Import with
// the same workspaceID and target would write to, as the file and the
// arguments spell them, so that the caller can check access first.
func (f *ImportFile) Workspaces(workspaceID string, target models.CollectionRef) []string {
	p := &importPlan{workspaceID: workspaceID, target: target}
	if p.target.WorkspaceID == "" {
		p.target.WorkspaceID = workspaceID
	}
	if p.target.WorkspaceID == "" {
		p.target.WorkspaceID = models.DefaultWorkspaceID
	}
	var out []string
	seen := map[string]bool{}
	add := func(sub string) {
		ws := p.workspaceFor(sub)
		if !seen[strings.ToLower(ws)] {
			seen[strings.ToLower(ws)] = true
			out = append(out, ws)
		}
	}
	for _, c := range f.Collections {
		add(c.Subscription)
	}
	for _, j := range f.Jobs {
		if j.Collection < 0 {
			add(j.Subscription)
		}
	}
	return out
}

// workspaceFor is the workspace of an entry whose id names subscription
// sub ("" when it names none), as given.
func (p *importPlan) workspaceFor(sub string) string {
	switch {
	case p.workspaceID != "":
		return p.workspaceID
	case sub != "":
		return sub
	}
	return p.target.WorkspaceID
}

// locate returns the collection of an entry that names sub, group and
// name (each "" when it does not), the target filling in the rest.
func (p *importPlan) locate(sub, group, name string) models.CollectionRef {
	ref := models.CollectionRef{WorkspaceID: p.workspaceFor(sub), ResourceGroup: group, Name: name}
	if ref.ResourceGroup == "" {
		ref.ResourceGroup = p.target.ResourceGroup
	}
	if ref.Name == "" {
		ref.Name = p.target.Name
	}
	return ref
}

// collection returns the plan's collection at ref, looking it up the
// first time: whether it exists, its jobs and its quota.
func (p *importPlan) collection(ctx context.Context, ref models.CollectionRef) (*importColl, error) {
	if ws, ok := p.workspaces[strings.ToLower(ref.WorkspaceID)]; ok {
		ref.WorkspaceID = ws
	}
	key := strings.ToLower(ref.WorkspaceID + "/" + ref.ResourceGroup + "/" + ref.Name)
	if ic, ok := p.byKey[key]; ok {
		return ic, nil
	}
	ic := &importColl{ref: ref, index: -1, report: &ReportCollection{Subscription: ref.WorkspaceID,
		ResourceGroup: ref.ResourceGroup, Name: ref.Name, Action: ActionNew, Problems: []string{}},
		effective: &models.JobCollection{SKU: models.SKUStandard, State: models.CollectionEnabled}}
	p.byKey[key] = ic
	p.order = append(p.order, ic)
	if ws, ok := p.workspaces[strings.ToLower(ref.WorkspaceID)]; !ok {
		ic.problem("subscription", fmt.Sprintf("the workspace %q does not exist", ref.WorkspaceID))
	} else {
		cals, err := p.c.WorkspaceCalendars(ctx, ws)
		if err != nil {
			return nil, err
		}
		ic.cals = cals
	}
	if err := checkRef(ref); err != nil {
		for _, pr := range problem.As(err).Problems {
			ic.problem(pr.Path, pr.Message)
		}
	}
	if ic.invalid {
		return ic, nil
	}
	row, err := p.c.store.CollectionByRef(ctx, ref)
	if errors.Is(err, models.ErrNotFound) {
		return ic, nil
	}
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	ic.existing, ic.effective, ic.report.Action = row, &row.JobCollection, ActionSkip
	ic.ref.ResourceGroup, ic.ref.Name = row.ResourceGroup, row.Name
	ic.report.ResourceGroup, ic.report.Name = row.ResourceGroup, row.Name
	if ic.jobs, err = p.c.store.JobsWithSecrets(ctx, row.ID); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	ic.count = len(ic.jobs)
	return ic, nil
}

// bundleCollection plans a collection that the file gives with its
// settings.
func (p *importPlan) bundleCollection(ctx context.Context, fc *FileCollection) (*importColl, error) {
	var ic *importColl
	if fc.Name == "" {
		ic = &importColl{index: -1, report: &ReportCollection{Problems: []string{}}}
		p.order = append(p.order, ic)
	} else {
		var err error
		if ic, err = p.collection(ctx, p.locate(fc.Subscription, fc.ResourceGroup, fc.Name)); err != nil {
			return nil, err
		}
		if ic.report.Path != "" {
			// The same collection twice: the second is reported on its own.
			dup := &importColl{index: -1, report: &ReportCollection{Subscription: ic.report.Subscription,
				ResourceGroup: ic.report.ResourceGroup, Name: ic.report.Name, Action: ic.report.Action, Problems: []string{}}}
			p.order = append(p.order, dup)
			dup.report.Path = fc.Path
			dup.problem("name", fmt.Sprintf("the collection %q is in the file twice (first at %s)", fc.Name, ic.report.Path))
			return dup, nil
		}
	}
	ic.report.Path = fc.Path
	for _, pr := range fc.Problems {
		ic.problem(pr.Path, pr.Message)
	}
	settings, err := ParseCollection(fc.Body)
	if ve := problem.As(err); ve != nil {
		for _, pr := range ve.Problems {
			ic.problem(pr.Path, pr.Message)
		}
	} else if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if ic.invalid {
		return ic, nil
	}
	ic.settings = settings
	switch {
	case ic.existing == nil:
		ic.effective = settings
	case p.onConflict == OnConflictReplace:
		ic.report.Action = ActionReplace
		with := *settings
		with.ID = ic.existing.ID
		ic.effective = &with
		if q := with.Quota(); q.MaxJobCount > 0 && ic.count > q.MaxJobCount {
			ic.problem("properties.quota.maxJobCount", fmt.Sprintf(
				"the collection holds %d jobs, more than the quota maxJobCount of %d the file gives it", ic.count, q.MaxJobCount))
		}
	}
	return ic, nil
}

// jobCollection returns the collection of a job that no bundle collection
// lists, or nil when neither the job nor the target names one.
func (p *importPlan) jobCollection(ctx context.Context, fj *FileJob) (*importColl, error) {
	ref := p.locate(fj.Subscription, fj.ResourceGroup, fj.CollectionName)
	if ref.ResourceGroup == "" || ref.Name == "" {
		return nil, nil
	}
	return p.collection(ctx, ref)
}

// problem records a problem with the collection, which makes it invalid.
func (ic *importColl) problem(path, msg string) {
	ic.report.Problems = append(ic.report.Problems, path+": "+msg)
	ic.invalid = true
}

// invalidReason says why the jobs of an invalid collection cannot be
// imported.
func (ic *importColl) invalidReason() string {
	where := ic.report.Path
	if where == "" {
		where = ic.report.Name
	}
	return fmt.Sprintf("the collection %s cannot be imported: %s", where, strings.Join(ic.report.Problems, "; "))
}

// fill puts the collections of the plan into the report.
func (p *importPlan) fill(rep *ImportReport) {
	rep.Collections = make([]ReportCollection, len(p.order))
	for i, ic := range p.order {
		rep.Collections[i] = *ic.report
	}
}

// problems returns every problem that stops an import in ModeAll as one
// *problem.List, or nil.
func (p *importPlan) problems(rep *ImportReport) error {
	var ps []problem.Problem
	for _, ic := range p.order {
		if !ic.invalid {
			continue
		}
		where := ic.report.Path
		if where == "" {
			where = "jobCollection " + ic.report.Name
		}
		for _, line := range ic.report.Problems {
			path, msg, _ := strings.Cut(line, ": ")
			ps = append(ps, problem.Problem{Path: where + "." + path, Message: msg})
		}
	}
	for _, rj := range rep.Jobs {
		if rj.Action == ActionSkip {
			continue
		}
		for _, line := range rj.Problems {
			path, msg, _ := strings.Cut(line, ": ")
			if path == "jobCollection" && strings.HasPrefix(msg, "the collection ") {
				continue // listed with the collection
			}
			ps = append(ps, problem.Problem{Path: rj.Path + "." + path, Message: msg})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &problem.List{Problems: ps}
}
