package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/web"
)

// allJobsBulk answers the bulk form of the "All jobs" page (POST
// /jobs/bulk): the checked jobs (id) or, with all=matching, every job the
// filter fields select, and the action (enable, disable with note, run,
// delete, export). One catalog call does the action in one transaction;
// the page then shows its summary ("48 disabled, 2 already completed.")
// as the flash of the filtered page. Delete asks first (a page with the
// count and the names, confirm=yes deletes); export downloads the jobs in
// the import format. A refused action (no job selected, jobs the user
// may not see, a role too low, a bad note) is a page saying so, and
// nothing changed.
func (s *Server) allJobsBulk(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return badRequest("form", "the form could not be read")
	}
	p, err := web.ParseAllJobsParams(form)
	if pe := (*web.ParamError)(nil); errors.As(err, &pe) {
		return s.bulkRefused(c, web.AllJobsPath(nil), badRequest(pe.Param, pe.Message))
	} else if err != nil {
		return err
	}
	back := web.AllJobsPath(p.Values(false))
	ids, err := parseJobIDs(form["id"])
	if err != nil {
		return s.bulkRefused(c, back, err)
	}
	ctx := c.Request().Context()
	jobs, err := s.bulkSelection(ctx, currentUser(c).ID, form.Get("all") == "matching", ids, p)
	if err != nil {
		return s.bulkRefused(c, back, err)
	}
	actor := actorOf(c)
	switch action := form.Get("action"); {
	case action == "export":
		out, err := s.jobs.ExportJobs(ctx, actor, jobs)
		if err != nil {
			return s.bulkRefused(c, back, err)
		}
		c.Response().Header().Set("Content-Disposition", `attachment; filename="sked-jobs.json"`)
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, out)
	case action == string(catalog.BulkDelete) && form.Get("confirm") != "yes" && len(jobs) > 0:
		paths := make([]string, len(jobs))
		for i, j := range jobs {
			paths[i] = j.Path()
		}
		return render(c, http.StatusOK, web.AllJobsBulkConfirmPage(page(c, "Delete jobs"), web.NewBulkConfirm(paths, form, csrfToken(c), back)))
	default:
		res, err := s.jobs.BulkJobs(ctx, actor, catalog.BulkAction(action), jobs, form.Get("note"))
		if err != nil {
			return s.bulkRefused(c, back, err)
		}
		if err := addFlash(c, web.BulkSummary(bulkCounts(res))); err != nil {
			return err
		}
		return redirect(c, back)
	}
}

// bulkRefused answers a refused bulk action with a page saying why (the
// status of the error), or err itself when it is not the user's to fix.
func (s *Server) bulkRefused(c echo.Context, back string, err error) error {
	status, msg := classify(err)
	if status >= http.StatusInternalServerError && !errors.Is(err, catalog.ErrNoEngine) {
		return err
	}
	if pl := problem.As(err); pl != nil {
		msg = pl.Problems[0].Message
		for _, p := range pl.Problems[1:] {
			msg += "; " + p.Message
		}
		msg = capitalise(msg) + "."
	}
	return render(c, status, web.AllJobsBulkErrorPage(page(c, "Nothing was changed"), web.BulkError{Message: msg, BackURL: back}))
}

// bulkSelection is the jobs a bulk action takes among those userID may
// see: with all, every job the filter p selects (catalog.MaxBulkJobs and
// one more at most, so that the catalog can refuse too many); otherwise
// the jobs ids. An id of a job the user may not see (or of none) is a
// *problem.List naming id, as is an empty selection (from the catalog).
func (s *Server) bulkSelection(ctx context.Context, userID int64, all bool, ids []int64, p web.AllJobsParams) ([]models.BulkJob, error) {
	visible, every, err := s.store.SearchScope(ctx, userID)
	if err != nil {
		return nil, err
	}
	if all {
		visible, every := inWorkspace(visible, every, p.Workspace)
		scope, every, err := narrowScope(visible, every, p.Collection)
		if err != nil {
			return nil, err
		}
		return s.store.SearchBulkJobs(ctx, web.AllJobsSearch(p, scope, every, s.clock()), catalog.MaxBulkJobs)
	}
	jobs, missing, err := s.store.BulkJobsByID(ctx, visible, ids)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, badRequest("id", fmt.Sprintf("%s of the selection %s not among the jobs you may see (deleted meanwhile, or in a workspace you are not a member of): nothing was changed",
			web.Plural(int64(len(missing)), "job", "jobs"), map[bool]string{true: "is", false: "are"}[len(missing) == 1]))
	}
	return jobs, nil
}

// inWorkspace is the collections of visible in workspace ws (its stored
// id; "" keeps them all, every saying whether that is all of them).
func inWorkspace(visible []models.VisibleCollection, every bool, ws string) ([]models.VisibleCollection, bool) {
	if ws == "" {
		return visible, every
	}
	var in []models.VisibleCollection
	for _, vc := range visible {
		if strings.EqualFold(vc.WorkspaceID, ws) {
			in = append(in, vc)
		}
	}
	return in, false
}

// narrowScope is the collections a search covers: visible (every says
// whether that is all of them), narrowed to collection (a path; "" for
// all), which must be one of them, else a 400 naming collection.
func narrowScope(visible []models.VisibleCollection, every bool, collection string) ([]models.VisibleCollection, bool, error) {
	if collection == "" {
		return visible, every, nil
	}
	for _, vc := range visible {
		if vc.Path() == collection {
			return []models.VisibleCollection{vc}, false, nil
		}
	}
	return nil, false, badRequest("collection", "no collection "+collection+" in your workspaces")
}

// parseJobIDs reads the checked jobs' ids; anything else is a 400 naming
// id.
func parseJobIDs(vals []string) ([]int64, error) {
	ids := make([]int64, 0, len(vals))
	for _, v := range vals {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, badRequest("id", fmt.Sprintf("%q is not a job id", v))
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// bulkCounts counts the outcomes of res in the order they first come.
func bulkCounts(res *catalog.BulkResult) []web.BulkOutcomeCount {
	var out []web.BulkOutcomeCount
	at := map[catalog.BulkOutcome]int{}
	for _, it := range res.Items {
		i, ok := at[it.Outcome]
		if !ok {
			i = len(out)
			at[it.Outcome] = i
			out = append(out, web.BulkOutcomeCount{Outcome: string(it.Outcome)})
		}
		out[i].N++
	}
	return out
}

// capitalise upper-cases the first letter of an ASCII message.
func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// bulkFilterValues is the filter of a bulk request of the API as the
// page's query parameters.
func bulkFilterValues(f map[string]string) url.Values {
	q := url.Values{}
	for k, v := range f {
		q.Set(k, v)
	}
	return q
}
