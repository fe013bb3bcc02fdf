package models

// The "All jobs" page's read model: every job a user may see, across
// workspaces and collections, searched, filtered and sorted, a keyset page
// at a time (its orders and their keysets: jobs_search_keyset.go; the
// collections a user may see: collections_visible.go). Migration 0011
// adds one btree index per sort order; the search text and the time zone
// are the jobs' facets (migration 0025: job_facets, with a trigram index
// on search).

import (
	"context"
	"encoding/json"
	"sked/models/jobdef"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// JobSearchParams selects a page of SearchJobs. The zero value of each
// filter keeps every job.
type JobSearchParams struct {
	// Collections are the collections searched: those the user may see
	// (VisibleCollections), or fewer to filter by collection. Every
	// collection when AllCollections is set instead (a user who is a member
	// of every workspace: no condition on collections, cheaper).
	Collections    []VisibleCollection
	AllCollections bool
	// Query is split at white space; a job matches when each word is
	// found (case-insensitively) in its name, its action's target (URI
	// host and path, queue, topic), its state note or its "resource
	// group/collection".
	Query string
	// States keeps the jobs in one of these states.
	States []string
	// LastResult keeps the jobs whose latest history entry has this
	// status (Completed, Failed, Postponed), or "none": jobs without one.
	LastResult string
	// Zone keeps the jobs of this recurrence.timeZone as written,
	// case-insensitively; "UTC" also matches the jobs without one.
	Zone string
	// FailedSince keeps the jobs whose newest Failed entry started at or
	// after it (job_results.last_failed_at, migrations 0024 and 0029: a failure counts even
	// when retention has deleted its entry), and is when FailuresSince
	// counts from; zero: no filter.
	FailedSince time.Time
	// HasAlerts keeps the jobs at least one alert rule applies to, matched
	// as the engine matches them (alertRuleApplies).
	HasAlerts bool
	// Sort is the order (SortNext when empty); After, when set, is the
	// end of the previous page.
	Sort  JobSort
	After *JobCursor
	// Limit is how many jobs at most (at least 1).
	Limit int
	// FailuresSince counts each returned job's Failed entries at or after
	// it (JobSearchRow.RecentFailures).
	FailuresSince time.Time
}

// JobSearchRow is a job of SearchJobs with where it lives, its latest
// history entry (nil when none) and its Failed entries since
// JobSearchParams.FailuresSince.
type JobSearchRow struct {
	ID             int64
	Name           string
	Definition     json.RawMessage
	State          jobdef.State
	NextRunAt      *time.Time
	LastRunAt      *time.Time
	ScheduleBase   *time.Time
	NeedsSchedule  bool
	ScheduledCount int64
	FailureCount   int64
	CreatedAt      time.Time
	Collection     string
	ResourceGroup  string
	WorkspaceID    string
	LastStatus     *HistoryStatus
	LastStartTime  *time.Time
	RecentFailures int64
	// StateNote, StateChangedBy and StateChangedAt are the job's (SPEC
	// §13.2).
	StateNote      string
	StateChangedBy string
	StateChangedAt *time.Time
}

// likeEscaper escapes LIKE's wildcards and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// searchFew is how many matches of a search SearchJobs sorts itself;
// beyond, it walks the order's index.
const searchFew = 5000

// searchProbe is how many jobs in order SearchJobs first looks at for a
// search word that matches many jobs: when they hold a full page of
// matches, that is the page.
const searchProbe = 250

// JobSearchPage is a page of SearchJobs.
type JobSearchPage struct {
	Rows []JobSearchRow
	// Matches is how many jobs the search selects in all when the search
	// counted them on its way (a first page of a search word that matches
	// at most searchFew jobs), else -1.
	Matches int64
	// Dense says the page was found among the first searchProbe jobs of
	// the order: the search words match many jobs (CountSearchJobs is told,
	// so that it stops early instead of reading every match).
	Dense bool
}

// SearchJobs returns a page of the jobs p selects, in p.Sort order, after
// p.After. The search words use the trigram index on job_facets.search, the
// orders their btree indexes (migration 0011; the failures job_results',
// 0029), the last result filter job_results.last_status (migrations 0023
// and 0029), the recent failure filter job_results.last_failed_at (0024);
// the recent failures are looked up for the page's rows only. Jobs are read
// through jobs_with_results.
// It is a read model for the "All jobs" page.
func (s *Store) SearchJobs(ctx context.Context, p JobSearchParams) (JobSearchPage, error) {
	if !p.AllCollections && len(p.Collections) == 0 {
		return JobSearchPage{}, nil
	}
	where, args := searchConds(p)
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	for _, c := range lastResultCond(p.LastResult) {
		add(c, searchArgs(c, p.LastResult)...)
	}
	var after []string
	var afterArgs []any
	order, err := keyset(p.Sort, p.After, func(cond string, a ...any) {
		after = append(after, cond)
		afterArgs = append(afterArgs, a...)
		add(cond, a...)
	})
	if err != nil {
		return JobSearchPage{}, err
	}
	limit := max(p.Limit, 1)
	cond := joinConds(where)
	var out []JobSearchRow
	res := JobSearchPage{Matches: -1}
	// A custom plan for every search: a generic plan of the prepared
	// statement cannot see how selective a search word or filter is and
	// would walk a sort index over every job. No JIT: compiling costs
	// more than these short queries. No parallel workers: the planner
	// would split a scan of the narrow job_facets over workers rather than
	// look its few matches up in the trigram index.
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL jit = off;
			SET LOCAL max_parallel_workers_per_gather = 0`).Error; err != nil {
			return err
		}
		page := func(with, from string, fromArgs []any, dest any) error {
			return tx.Raw(searchSelect(with, from, order), append(fromArgs, p.FailuresSince)...).Scan(dest).Error
		}
		// The planner cannot tell how many jobs a search word matches. A
		// word that matches many (every job has "example" in its URL) finds
		// a page among the next searchProbe jobs of the order's index; one
		// that matches few is found through the trigram index, all its
		// matches read once, counted and sorted in one statement (when
		// there are at most searchFew); else the order's index is walked.
		walk := `SELECT j.*, 0 AS matches FROM jobs_with_results j WHERE ` + cond + ` ORDER BY ` + order + ` LIMIT ?`
		var rows []searchRow
		if !trigramWords(p.Query) {
			err := page("", walk, append(slices.Clip(args), limit), &rows)
			out = rowsOf(rows)
			return err
		}
		err := page("", `SELECT j.*, 0 AS matches FROM (SELECT j.* FROM jobs_with_results j WHERE `+joinConds(after)+`
				ORDER BY `+order+` LIMIT ?) j
			WHERE `+cond+` ORDER BY `+order+` LIMIT ?`,
			append(append(slices.Clip(afterArgs), searchProbe), append(slices.Clip(args), limit)...), &rows)
		if err != nil || len(rows) == limit {
			out, res.Dense = rowsOf(rows), true
			return err
		}
		rows = nil
		// Only the columns of the orders are kept and sorted; the page's
		// rows are read again by id (a thousand matches' definitions
		// would otherwise be copied and sorted).
		err = page(`WITH m AS MATERIALIZED (SELECT j.id, j.name, j.next_run_at, j.last_run_at, j.failure_count, j.result_id
				FROM jobs_with_results j WHERE `+sparseConds(cond)+` LIMIT ?) `,
			`SELECT j.*, (SELECT count(*) FROM m) AS matches FROM jobs_with_results j
				WHERE j.id IN (SELECT j.id FROM m j ORDER BY `+order+` LIMIT ?)`,
			append(slices.Clip(args), searchFew+1, limit), &rows)
		if err != nil || len(rows) == 0 || rows[0].Matches <= searchFew {
			out = rowsOf(rows)
			if len(rows) > 0 && p.After == nil {
				res.Matches = rows[0].Matches
			}
			return err
		}
		rows = nil
		err = page("", walk, append(slices.Clip(args), limit), &rows)
		out = rowsOf(rows)
		return err
	})
	if err != nil {
		return JobSearchPage{}, translate("models: search jobs", err)
	}
	res.Rows = out
	return res, nil
}

// searchRow is a row of SearchJobs with how many jobs its search matched
// (counted by the sparse search only).
type searchRow struct {
	JobSearchRow
	Matches int64
}

// rowsOf is the JobSearchRows of rows.
func rowsOf(rows []searchRow) []JobSearchRow {
	out := make([]JobSearchRow, len(rows))
	for i, r := range rows {
		out[i] = r.JobSearchRow
	}
	return out
}

// joinConds joins WHERE conditions with AND ("true" for none).
func joinConds(where []string) string {
	if len(where) == 0 {
		return "true"
	}
	return strings.Join(where, " AND ")
}

// searchArgs is the argument of a last result condition: the status when
// the condition has a placeholder.
func searchArgs(cond, status string) []any {
	if strings.Contains(cond, "?") {
		return []any{status}
	}
	return nil
}

// searchSelect is the query of a page of SearchJobs: after with (a WITH
// clause or ""), the jobs from (a query of jobs j with a matches column,
// in order and limited) with their collection and their recent failures
// (since the last placeholder), in order.
func searchSelect(with, from, order string) string {
	return with + `
		SELECT j.id, j.name, j.definition, j.state, j.next_run_at, j.last_run_at, j.schedule_base,
		       j.needs_schedule, j.scheduled_count, j.failure_count, j.created_at,
		       j.state_note, j.state_changed_by, j.state_changed_at,
		       c.name AS collection, rg.name AS resource_group, rg.workspace_id,
		       j.last_status, j.last_status_at AS last_start_time, j.matches,
		       coalesce(rf.n, 0) AS recent_failures
		FROM (` + from + `) j
		JOIN job_collections c ON c.id = j.job_collection_id
		JOIN resource_groups rg ON rg.id = c.resource_group_id
		LEFT JOIN LATERAL (
			SELECT count(*) AS n FROM job_history h
			WHERE h.job_id = j.id AND h.status = 'Failed' AND h.start_time >= ?
		) rf ON true
		ORDER BY ` + order
}

// searchConds is the WHERE conditions (joined by AND) of the jobs p
// selects, with their arguments: collections, search words, states, time
// zone, recent failures and alert rules (not the last result, nor the
// keyset).
func searchConds(p JobSearchParams) (where []string, args []any) {
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if !p.AllCollections {
		add("j.job_collection_id IN ?", collectionIDs(p.Collections))
	}
	// The search words and the time zone are the job's facets (migration
	// 0025), looked up together in one probe of job_facets.
	var facets []string
	var facetArgs []any
	facet := func(cond string, a ...any) {
		facets = append(facets, cond)
		facetArgs = append(facetArgs, a...)
	}
	for _, word := range strings.Fields(strings.ToLower(p.Query)) {
		var in []int64
		for _, c := range p.Collections {
			if strings.Contains(strings.ToLower(c.ResourceGroup+"/"+c.Name), word) {
				in = append(in, c.ID)
			}
		}
		pattern := "%" + likeEscaper.Replace(word) + "%"
		if len(in) == 0 {
			facet("f.search LIKE ?", pattern)
		} else {
			add(wordOrCollection, pattern, in)
		}
	}
	if len(p.States) > 0 {
		add("j.state IN ?", p.States)
	}
	if p.Zone != "" {
		if strings.EqualFold(p.Zone, "UTC") {
			facet("lower(f.time_zone) IN ('', 'utc')")
		} else {
			facet("lower(f.time_zone) = lower(?)", p.Zone)
		}
	}
	if len(facets) > 0 {
		add("EXISTS (SELECT 1 FROM job_facets f WHERE f.job_id = j.id AND "+joinConds(facets)+")", facetArgs...)
	}
	if !p.FailedSince.IsZero() {
		add(`j.last_failed_at >= ?`, p.FailedSince)
	}
	if p.HasAlerts {
		add(`EXISTS (SELECT 1 FROM job_collections jc
			JOIN resource_groups rg ON rg.id = jc.resource_group_id
			JOIN alert_rules r ON ` + alertRuleApplies + `
			JOIN channels c ON c.id = r.channel_id
			WHERE jc.id = j.job_collection_id)`)
	}
	return where, args
}

// wordOrCollection is the condition of a search word that is also found
// in the "resource group/collection" of the collections of the second
// placeholder: the job's facets match it, or the job is in one of them.
// The facets' matches are looked up once (a hashed subplan) and each job
// of a walk in sort order is checked against them and its collection.
// Reading every match instead (the sparse search, the bulk selection),
// sparseConds turns it into wordOrCollectionSparse, the same arguments
// in the same order.
const wordOrCollection = `(j.id IN (SELECT f.job_id FROM job_facets f WHERE f.search LIKE ?) OR j.job_collection_id IN ?)`

// wordOrCollectionSparse is wordOrCollection with the facets' matches as
// an array of ids (looked up once through the trigram index of
// job_facets), so that both sides are index conditions on jobs (a
// BitmapOr of jobs_pkey and the collection's jobs) rather than a filter
// on a scan of every job.
const wordOrCollectionSparse = `(j.id = ANY (ARRAY(SELECT f.job_id FROM job_facets f WHERE f.search LIKE ?))
	OR j.job_collection_id IN ?)`

// sparseConds is cond (of searchConds) for a query that reads every match
// through the indexes: each wordOrCollection as wordOrCollectionSparse.
func sparseConds(cond string) string {
	return strings.ReplaceAll(cond, wordOrCollection, wordOrCollectionSparse)
}

// trigramWords reports whether a search has a word of three characters
// or more (one the trigram index can look up).
func trigramWords(q string) bool {
	for _, w := range strings.Fields(q) {
		if utf8.RuneCountInString(w) >= 3 {
			return true
		}
	}
	return false
}
