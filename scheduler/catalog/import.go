package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/recurrence"
)

// The modes of an import (ImportOptions.Mode).
const (
	// ModeAll writes every job or, when any is invalid, none.
	ModeAll = "all"
	// ModeValid writes the valid jobs and leaves out the others.
	ModeValid = "valid"
)

// What an import does with a job that exists (ImportOptions.OnConflict).
const (
	// OnConflictReplace replaces it (and, from an export bundle, the
	// settings of a collection that exists).
	OnConflictReplace = "replace"
	// OnConflictSkip leaves it (and an existing collection) alone.
	OnConflictSkip = "skip"
)

// What an import does with a job or a collection (ReportJob.Action,
// ReportCollection.Action).
const (
	ActionNew     = "new"     // it is created
	ActionReplace = "replace" // it exists and is replaced
	ActionSkip    = "skip"    // it exists and is left alone
)

// DefaultImportPreview is how many next occurrences the report shows per
// job unless asked otherwise; MaxImportPreview is the most it shows.
const (
	DefaultImportPreview = 3
	MaxImportPreview     = 100
)

// ImportOptions says how Import runs. The zero value is a real import
// (not a dry run) in mode "all", replacing jobs that exist.
type ImportOptions struct {
	// DryRun checks and reports without writing anything.
	DryRun bool
	// Mode is ModeAll (default) or ModeValid.
	Mode string
	// OnConflict is OnConflictReplace (default) or OnConflictSkip.
	OnConflict string
	// PreviewCount is how many next occurrences to report per job: 0
	// means DefaultImportPreview, at most MaxImportPreview.
	PreviewCount int
	// Progress, when not nil, is called after each job is checked with
	// the number checked so far and the number of jobs in the file.
	// Checking is the slow part of an import; the single transaction that
	// writes afterwards takes a fraction of that time.
	Progress func(done, total int)
}

// ImportReport is the answer of Import: per collection and per job what
// the import does (a dry run) or did, with every job's problems,
// description and next occurrences.
type ImportReport struct {
	DryRun     bool   `json:"dryRun"`
	Mode       string `json:"mode"`
	OnConflict string `json:"onConflict"`
	// Applied says that the import wrote to the database.
	Applied     bool               `json:"applied"`
	Summary     ImportSummary      `json:"summary"`
	Collections []ReportCollection `json:"jobCollections"`
	Jobs        []ReportJob        `json:"jobs"`
}

// ImportSummary counts the jobs of a report: by action among the valid
// ones, the invalid ones (jobs to skip are not checked for validity), and
// those written.
type ImportSummary struct {
	Jobs    int `json:"jobs"`
	New     int `json:"new"`
	Replace int `json:"replace"`
	Skip    int `json:"skip"`
	Invalid int `json:"invalid"`
	Written int `json:"written"`
}

// add counts job, as checked, in its kind: skipped, invalid, new or
// replacing.
func (s *ImportSummary) add(job *ReportJob) {
	switch {
	case job.Action == ActionSkip:
		s.Skip++
	case !job.Valid():
		s.Invalid++
	case job.Action == ActionNew:
		s.New++
	default:
		s.Replace++
	}
}

// ReportCollection is a collection an import puts jobs in.
type ReportCollection struct {
	// Path is where the file gives its settings ("jobCollections[0]"),
	// empty when it only names it.
	Path          string `json:"path,omitempty"`
	Subscription  string `json:"subscription"`
	ResourceGroup string `json:"resourceGroup"`
	Name          string `json:"name"`
	// Action is ActionNew (created, from the file's settings or else
	// the defaults), ActionReplace (its settings replaced by the file's)
	// or ActionSkip (it exists and keeps its settings).
	Action   string   `json:"action"`
	Problems []string `json:"problems"`
	Written  bool     `json:"written"`
}

// ReportJob is one job of an import.
type ReportJob struct {
	// Path is where the job is in the file.
	Path          string `json:"path"`
	Subscription  string `json:"subscription"`
	ResourceGroup string `json:"resourceGroup"`
	Collection    string `json:"jobCollection"`
	Name          string `json:"name"`
	// Action is ActionNew, ActionReplace or ActionSkip.
	Action string `json:"action"`
	// Problems are the job's validation errors as "path: message" lines;
	// a job with problems is invalid.
	Problems []string `json:"problems"`
	// Warnings include the secrets the file leaves out (the job is then
	// imported disabled) and those of the preview.
	Warnings []string `json:"warnings"`
	// State is the state the job is stored in.
	State       string `json:"state,omitempty"`
	Description string `json:"description,omitempty"`
	// NextOccurrences are RFC 3339 times in the job's zone, as if it
	// were created now.
	NextOccurrences []string `json:"nextOccurrences"`
	Written         bool     `json:"written"`
}

// Valid reports whether the job has no problems.
func (j *ReportJob) Valid() bool { return len(j.Problems) == 0 }

// importColl is a collection while an import is planned.
type importColl struct {
	report   *ReportCollection
	ref      models.CollectionRef
	existing *models.CollectionRow
	jobs     map[string]models.StoredJob
	// settings are the file's (bundle collections), nil otherwise.
	settings *models.JobCollection
	// effective is the collection whose quota applies.
	effective *models.JobCollection
	invalid   bool
	// count is how many jobs it holds with those planned so far.
	count int
	index int // in the batch, -1 until a job or its settings need it
	// cals are the calendars of the collection's workspace.
	cals recurrence.Calendars
}

// Import checks the jobs of file and, unless opts.DryRun, writes them in
// one transaction (SPEC §8).
//
// Where jobs go: workspaceID, when not empty, is the workspace (API
// subscription) everything is imported into, whatever subscriptions the
// file names; when empty, each job goes to the subscription its ARM id
// names, else to target.WorkspaceID. A job's resource group and
// collection are those of its bundle collection or its id (see
// ParseImport), else target's. Collections that do not exist are created:
// with the bundle's settings, else the defaults (sku Standard); with
// OnConflictReplace a bundle also replaces the settings of collections
// that exist. Jobs that exist are replaced or skipped per opts.OnConflict;
// a replacing job that leaves a secret out keeps the stored one. A new
// job whose secrets the file leaves out (exports never hold them) is
// imported disabled, with a warning per missing secret: set them, then
// enable it.
//
// Every job is checked as a PUT would check it (validation, the
// collection's quotas including maxJobCount for the jobs the import adds)
// and reported with its action, problems, description and next
// occurrences. A dry run writes nothing. Otherwise, in ModeAll any invalid
// job (or collection) means nothing is written and the error is a
// *problem.List listing every problem, its path prefixed with
// the job's path in the file; in ModeValid the valid jobs are written and
// the invalid ones reported. A refusal by the database (a quota reached by
// a concurrent writer) rolls the whole import back. actor makes the
// change. When ctx ends while the jobs are checked, the import stops and
// its error wraps ctx's.
func (c *Catalog) Import(ctx context.Context, actor Actor, workspaceID string, target models.CollectionRef, file *ImportFile, opts ImportOptions) (*ImportReport, error) {
	if file != nil {
		for _, ws := range file.Workspaces(workspaceID, target) {
			if err := c.allow(ctx, actor, Change{Op: OpImport, WorkspaceID: ws}); err != nil {
				return nil, err
			}
		}
	}
	if err := normalizeImportOptions(&opts); err != nil {
		return nil, err
	}
	if file == nil {
		return nil, fileProblem("is missing")
	}
	rep := &ImportReport{DryRun: opts.DryRun, Mode: opts.Mode, OnConflict: opts.OnConflict,
		Collections: []ReportCollection{}, Jobs: make([]ReportJob, len(file.Jobs))}
	p, err := c.newImportPlan(ctx, workspaceID, target, opts.OnConflict)
	if err != nil {
		return nil, err
	}
	defer p.fill(rep)
	bundle := make([]*importColl, len(file.Collections))
	for i := range file.Collections {
		if bundle[i], err = p.bundleCollection(ctx, &file.Collections[i]); err != nil {
			return nil, err
		}
	}
	now := c.now()
	writes := make([]models.JobWrite, len(file.Jobs))
	parsed := make([]*jobdef.Job, len(file.Jobs))
	colls := make([]*importColl, len(file.Jobs))
	seen := map[string]string{}
	for i := range file.Jobs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		fj := &file.Jobs[i]
		rj := &rep.Jobs[i]
		*rj = ReportJob{Path: fj.Path, Name: fj.Name, Problems: []string{}, Warnings: append([]string{}, fj.Warnings...), NextOccurrences: []string{}}
		for _, pr := range fj.Problems {
			rj.Problems = append(rj.Problems, pr.String())
		}
		var coll *importColl
		if fj.Collection >= 0 {
			coll = bundle[fj.Collection]
		} else {
			coll, err = p.jobCollection(ctx, fj)
			if err != nil {
				return nil, err
			}
		}
		colls[i] = coll
		if coll != nil {
			rj.Subscription, rj.ResourceGroup, rj.Collection = coll.report.Subscription, coll.report.ResourceGroup, coll.report.Name
			if coll.invalid {
				rj.Problems = append(rj.Problems, "jobCollection: "+coll.invalidReason())
			}
		} else {
			rj.Problems = append(rj.Problems, "jobCollection: the job does not name its collection (it has no ARM id): choose the collection to import into")
		}
		rj.Action = ActionNew
		var stored models.StoredJob
		if coll != nil && coll.jobs != nil {
			if s, ok := coll.jobs[strings.ToLower(fj.Name)]; ok {
				stored, rj.Action, rj.Name = s, ActionReplace, s.Name
				if opts.OnConflict == OnConflictSkip {
					rj.Action = ActionSkip
				}
			}
		}
		if !ValidName(fj.Name) {
			rj.Problems = append(rj.Problems, fmt.Sprintf("name: %q is not a job name (a letter or digit, then up to 99 letters, digits, '-' or '_')", fj.Name))
		} else if coll != nil {
			key := strings.ToLower(coll.report.Subscription + "/" + coll.report.ResourceGroup + "/" + coll.report.Name + "/" + fj.Name)
			if first, dup := seen[key]; dup {
				rj.Problems = append(rj.Problems, fmt.Sprintf("name: the job %q is in the file twice for collection %s (first at %s)", fj.Name, coll.report.Name, first))
			} else {
				seen[key] = fj.Path
			}
		}
		w, job, ok := c.checkImportJob(rj, coll, fj, stored, now, opts.PreviewCount)
		if ok && rj.Valid() && rj.Action == ActionNew {
			if q := coll.effective.Quota(); q.MaxJobCount > 0 && coll.count >= q.MaxJobCount {
				rj.Problems = append(rj.Problems, fmt.Sprintf(
					"maxJobCount: the collection %s would hold more than its quota maxJobCount of %d jobs", coll.report.Name, q.MaxJobCount))
			} else {
				coll.count++
			}
		}
		w.StateBy = actor.UserName
		writes[i], parsed[i] = w, job
		if opts.Progress != nil {
			opts.Progress(i+1, len(file.Jobs))
		}
	}
	if err := c.checkImportTriggers(ctx, rep, file, colls, parsed); err != nil {
		return nil, err
	}
	for i := range rep.Jobs {
		rep.Summary.add(&rep.Jobs[i])
	}
	rep.Summary.Jobs = len(file.Jobs)
	if opts.DryRun {
		return rep, nil
	}
	if opts.Mode == ModeAll {
		if err := p.problems(rep); err != nil {
			return rep, err
		}
	}
	c.replanDue(rep, colls, parsed, writes)
	rec := &record{Change: Change{Op: OpImport, WorkspaceID: workspaceID, ResourceGroup: target.ResourceGroup, Collection: target.Name}}
	if err := c.applyImport(ctx, actor, rec, rep, p, bundle, colls, parsed, writes); err != nil {
		return rep, err
	}
	return rep, nil
}

// normalizeImportOptions fills in the defaults and checks the options.
func normalizeImportOptions(o *ImportOptions) error {
	var ps []problem.Problem
	switch strings.ToLower(o.Mode) {
	case "", ModeAll:
		o.Mode = ModeAll
	case ModeValid:
		o.Mode = ModeValid
	default:
		ps = append(ps, problem.Problem{Path: "mode", Message: fmt.Sprintf("%q is not one of all, valid", o.Mode)})
	}
	switch strings.ToLower(o.OnConflict) {
	case "", OnConflictReplace:
		o.OnConflict = OnConflictReplace
	case OnConflictSkip:
		o.OnConflict = OnConflictSkip
	default:
		ps = append(ps, problem.Problem{Path: "onConflict", Message: fmt.Sprintf("%q is not one of skip, replace", o.OnConflict)})
	}
	switch {
	case o.PreviewCount == 0:
		o.PreviewCount = DefaultImportPreview
	case o.PreviewCount < 0 || o.PreviewCount > MaxImportPreview:
		ps = append(ps, problem.Problem{Path: "previewCount", Message: fmt.Sprintf("%d is not from 1 to %d", o.PreviewCount, MaxImportPreview)})
	}
	if len(ps) > 0 {
		return &problem.List{Problems: ps}
	}
	return nil
}

// checkImportJob parses and checks one job against its collection,
// filling in rj, and returns the write that stores it and the parsed job;
// ok is false when the job could not be checked that far.
func (c *Catalog) checkImportJob(rj *ReportJob, coll *importColl, fj *FileJob, stored models.StoredJob, now time.Time, n int) (models.JobWrite, *jobdef.Job, bool) {
	job, err := jobdef.ParseWith(fj.Body, jobdef.Options{Keep: stored.Secrets})
	if err != nil {
		strict := problem.As(err)
		lenient, lerr := jobdef.ParseWith(fj.Body, jobdef.Options{Keep: stored.Secrets, SecretsOptional: true})
		if lerr != nil || strict == nil {
			rj.Problems = append(rj.Problems, problemLines(err)...)
			return models.JobWrite{}, nil, false
		}
		// Only secrets are missing: import the job, but not to run.
		job = lenient
		for _, p := range strict.Problems {
			rj.Warnings = append(rj.Warnings, fmt.Sprintf("%s: the secret is not in the file (exports leave secrets out): the job is imported disabled; set the secret, then enable the job", p.Path))
		}
		if job.State == jobdef.Enabled {
			job.State = jobdef.Disabled
		}
	}
	var cals recurrence.Calendars
	if coll != nil {
		cals = coll.cals
	}
	if res, err := recurrence.PreviewWith(job, now, n, recurrence.Options{Calendars: cals}); err == nil {
		rj.Description = res.Description
		for _, t := range res.Occurrences {
			rj.NextOccurrences = append(rj.NextOccurrences, t.Format(time.RFC3339))
		}
		rj.Warnings = append(rj.Warnings, res.Warnings...)
	}
	if coll == nil || coll.invalid {
		return models.JobWrite{}, nil, false
	}
	w, err := c.Prepare(coll.effective, fj.Name, job, coll.cals)
	if err != nil {
		rj.Problems = append(rj.Problems, problemLines(err)...)
		return models.JobWrite{}, nil, false
	}
	rj.State = string(w.State)
	return w, job, true
}

// problemLines turns a refusal into "path: message" lines.
func problemLines(err error) []string {
	var qe *models.QuotaError
	switch {
	case problem.As(err) != nil:
		return problem.As(err).Lines()
	case errors.As(err, &qe):
		return []string{qe.Quota + ": " + qe.Message}
	}
	return []string{"job: " + err.Error()}
}

// applyImport writes the valid jobs (and their collections) of a checked
// import in one transaction, with the audit log's entries: rec's, and one
// per collection and job written (its parts); the first runs that passed
// while it wrote them are planned again after the entries, just before
// the commit (replanWritten).
// parsed holds each job as checked.
func (c *Catalog) applyImport(ctx context.Context, actor Actor, rec *record, rep *ImportReport, p *importPlan, bundle, colls []*importColl,
	parsed []*jobdef.Job, writes []models.JobWrite) error {
	var batch models.ImportBatch
	use := func(ic *importColl) int {
		if ic.index < 0 {
			ic.index = len(batch.Collections)
			batch.Collections = append(batch.Collections, models.ImportCollection{Ref: ic.ref, Settings: ic.settings,
				Replace: ic.report.Action == ActionReplace})
		}
		return ic.index
	}
	// Bundle collections are written even without jobs (an empty
	// collection exports and imports as such).
	for _, ic := range bundle {
		if !ic.invalid && ic.report.Action != ActionSkip {
			use(ic)
		}
	}
	var jobIndex []int
	for i := range rep.Jobs {
		rj := &rep.Jobs[i]
		if rj.Action == ActionSkip || !rj.Valid() {
			continue
		}
		batch.Jobs = append(batch.Jobs, models.ImportJob{Collection: use(colls[i]), Write: writes[i]})
		jobIndex = append(jobIndex, i)
	}
	if len(batch.Collections) == 0 {
		return nil
	}
	if rec.WorkspaceID == "" {
		rec.WorkspaceID = batch.Collections[0].Ref.WorkspaceID
	}
	rec.Detail = fmt.Sprintf("%d jobs written", len(jobIndex))
	var res *models.ImportResult
	err := c.auditedThen(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if res, err = tc.store.ApplyImport(ctx, batch); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		rec.Parts = importParts(batch, res, colls, jobIndex)
		return nil
	}, func(tc *Catalog) error {
		if err := tc.replanWritten(ctx, batch, res, colls, parsed, jobIndex); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Applied = true
	for _, ic := range p.order {
		if ic.index >= 0 {
			ic.report.Written = true
			if res.CollectionCreated[ic.index] {
				ic.report.Action = ActionNew
			}
		}
	}
	for k, i := range jobIndex {
		rep.Jobs[i].Written = true
		if res.JobCreated[k] {
			rep.Jobs[i].Action = ActionNew
		}
	}
	rep.Summary.Written = len(jobIndex)
	return nil
}
