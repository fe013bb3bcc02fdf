package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
	"sked/web"
)

// bulkRequest is the body of POST /api/v1/jobs/bulk: an action, the note
// of a disable, and the jobs, named by their ARM ids (jobs) or selected by
// the "All jobs" page's filter (filter: q, state, result, collection, tz,
// failed, alerts); exactly one of the two.
type bulkRequest struct {
	Action    string            `json:"action"`
	StateNote string            `json:"stateNote"`
	Jobs      []string          `json:"jobs"`
	Filter    map[string]string `json:"filter"`
}

// bulkAnswer is the answer of a bulk action: the summary, the count per
// outcome and each job's outcome.
type bulkAnswer struct {
	Action  string         `json:"action"`
	Summary string         `json:"summary"`
	Counts  map[string]int `json:"counts"`
	Jobs    []bulkJobOut   `json:"jobs"`
}

// bulkJobOut is one job of a bulk answer.
type bulkJobOut struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
}

// apiBulkJobs answers POST /api/v1/jobs/bulk: the bulk actions of the
// "All jobs" page for API tokens (enable, disable with stateNote, run,
// delete, export), one transaction each through the catalog. Export
// answers the jobs in the import format; the others a bulkAnswer. Bad
// input is a 400 naming the field (jobs[i] for a job that does not exist
// or the token's user may not see), a role too low a 403; nothing changes
// then.
func (s *Server) apiBulkJobs(c echo.Context) error {
	body, err := readBody(c, maxAPIBody*8)
	if err != nil {
		return err
	}
	var req bulkRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return badRequest("body", "must be a JSON object with action, jobs or filter, and stateNote: "+err.Error())
	}
	ctx := c.Request().Context()
	user := currentUser(c)
	var jobs []models.BulkJob
	switch {
	case req.Jobs != nil && req.Filter != nil:
		return badRequest("filter", "give jobs or filter, not both")
	case req.Filter != nil:
		p, err := web.ParseAllJobsParams(bulkFilterValues(req.Filter))
		if pe := (*web.ParamError)(nil); errors.As(err, &pe) {
			return badRequest("filter."+pe.Param, pe.Message)
		} else if err != nil {
			return err
		}
		if jobs, err = s.bulkSelection(ctx, user.ID, true, nil, p); err != nil {
			return err
		}
	default:
		if jobs, err = s.bulkJobsByARMID(c, user.ID, req.Jobs); err != nil {
			return err
		}
	}
	actor := actorOf(c)
	if req.Action == "export" {
		out, err := s.jobs.ExportJobs(ctx, actor, jobs)
		if err != nil {
			return err
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, out)
	}
	res, err := s.jobs.BulkJobs(ctx, actor, catalog.BulkAction(req.Action), jobs, req.StateNote)
	if err != nil {
		return err
	}
	counts := bulkCounts(res)
	out := bulkAnswer{Action: req.Action, Summary: web.BulkSummary(counts), Counts: map[string]int{}, Jobs: []bulkJobOut{}}
	for _, n := range counts {
		out.Counts[n.Outcome] = n.N
	}
	for _, it := range res.Items {
		j := it.Job
		coll := &models.CollectionRow{JobCollection: models.JobCollection{Name: j.Collection}, WorkspaceID: j.WorkspaceID, ResourceGroup: j.ResourceGroup}
		out.Jobs = append(out.Jobs, bulkJobOut{ID: collectionID(coll) + "/jobs/" + j.Name, Outcome: string(it.Outcome)})
	}
	return c.JSON(http.StatusOK, out)
}

// bulkJobsByARMID finds the jobs of ARM ids
// (/subscriptions/{ws}/resourceGroups/{rg}/providers/Microsoft.Scheduler/jobCollections/{jc}/jobs/{job})
// among those userID may see; any other is a 400 naming jobs[i].
func (s *Server) bulkJobsByARMID(c echo.Context, userID int64, ids []string) ([]models.BulkJob, error) {
	ctx := c.Request().Context()
	visible, err := s.store.VisibleCollections(ctx, userID)
	if err != nil {
		return nil, err
	}
	names := make([]models.JobName, len(ids))
	for i, id := range ids {
		ws, rg, jc, job, ok := parseARMJobID(id)
		var coll *models.VisibleCollection
		for k := range visible {
			v := &visible[k]
			if ok && strings.EqualFold(v.WorkspaceID, ws) && strings.EqualFold(v.ResourceGroup, rg) && strings.EqualFold(v.Name, jc) {
				coll = v
			}
		}
		if coll == nil {
			return nil, badRequest(fmt.Sprintf("jobs[%d]", i), fmt.Sprintf("%q is not the id of a job you may see", id))
		}
		names[i] = models.JobName{CollectionID: coll.ID, Name: job}
	}
	jobs, missing, err := s.store.BulkJobsByName(ctx, names)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		i := missing[0]
		return nil, badRequest(fmt.Sprintf("jobs[%d]", i), fmt.Sprintf("%q is not the id of a job you may see", ids[i]))
	}
	return jobs, nil
}

// parseARMJobID splits a job's ARM id into its workspace, resource group,
// collection and name (the fixed segments compared without regard to
// case).
func parseARMJobID(id string) (ws, rg, jc, job string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(id, "/"), "/")
	if len(parts) != 10 || !strings.EqualFold(parts[0], "subscriptions") || !strings.EqualFold(parts[2], "resourceGroups") ||
		!strings.EqualFold(parts[4], "providers") || !strings.EqualFold(parts[5], "Microsoft.Scheduler") ||
		!strings.EqualFold(parts[6], "jobCollections") || !strings.EqualFold(parts[8], "jobs") {
		return "", "", "", "", false
	}
	for _, p := range []string{parts[1], parts[3], parts[7], parts[9]} {
		if p == "" {
			return "", "", "", "", false
		}
	}
	return parts[1], parts[3], parts[7], parts[9], true
}
