package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// The paths of import and export (SPEC §8).
const (
	importPath = "/api/v1/import"
	exportPath = "/api/v1/export"
)

// importFile answers POST /api/v1/import (SPEC §8). The body is the file
// (any shape ParseImport accepts, at most 50 MB: a larger one is refused
// with 413 without being read whole). Query parameters:
//
//   - dryRun: true (the default: report only, write nothing) or false;
//   - mode: all (default: every job or none) or valid (the valid jobs);
//   - onConflict: replace (default) or skip, for jobs that exist;
//   - resourceGroup and jobCollection: where jobs go that do not name
//     their collection (no ARM id);
//   - subscription: when given, the workspace everything goes into,
//     whatever the file's ids say; otherwise each job goes to the
//     subscription its id names, else "default";
//   - previewCount: next occurrences per job in the report, 1–100
//     (default 3).
//
// The user must be a member of every workspace written to (403). The
// answer is the catalog.ImportReport (200); an import in mode all with an
// invalid job is a 400 listing every problem, with the report beside the
// error.
func (s *Server) importFile(c echo.Context) error {
	q := c.QueryParams()
	opts := catalog.ImportOptions{DryRun: true, Mode: q.Get("mode"), OnConflict: q.Get("onConflict")}
	var ps []problem.Problem
	if v := q.Get("dryRun"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			ps = append(ps, problem.Problem{Path: "dryRun", Message: fmt.Sprintf("%q is not true or false", v)})
		}
		opts.DryRun = b || err != nil
	}
	if v := q.Get("previewCount"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			ps = append(ps, problem.Problem{Path: "previewCount", Message: fmt.Sprintf("%q is not a whole number from 1 to %d", v, catalog.MaxImportPreview)})
		}
		opts.PreviewCount = n
	}
	if len(ps) > 0 {
		return &problem.List{Problems: ps}
	}
	body, err := readImportBody(c)
	if errors.Is(err, errImportTooLarge) {
		// Answered here: the error handler has one message for every 413.
		return c.JSON(http.StatusRequestEntityTooLarge, apiError{Error: apiErrorBody{Code: "RequestEntityTooLarge", Message: err.Error()}})
	}
	if err != nil {
		return err
	}
	file, err := catalog.ParseImport(body)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	user := currentUser(c)
	workspaceID := q.Get("subscription")
	target := models.CollectionRef{WorkspaceID: workspaceID, ResourceGroup: q.Get("resourceGroup"), Name: q.Get("jobCollection")}
	if err := file.RequireTarget(target); err != nil {
		return err
	}
	if target.WorkspaceID == "" {
		target.WorkspaceID = models.DefaultWorkspaceID
	}
	for _, ws := range file.Workspaces(workspaceID, target) {
		if err := s.checkMember(c, ws); err != nil {
			return err
		}
	}
	rep, err := s.importer.Import(ctx, actorOf(c), workspaceID, target, file, opts)
	if ve := problem.As(err); ve != nil && rep != nil {
		return c.JSON(http.StatusBadRequest, struct {
			Error  apiErrorBody          `json:"error"`
			Report *catalog.ImportReport `json:"report"`
		}{apiErrorBody{Code: "BadRequest", Message: "Nothing was imported: " + ve.Error(), Details: problemDetails(ve)}, rep})
	}
	if err != nil {
		return err
	}
	s.log.Info("import", "user", user.Username, "dryRun", rep.DryRun, "mode", rep.Mode, "jobs", rep.Summary.Jobs, "written", rep.Summary.Written)
	return c.JSON(http.StatusOK, rep)
}

// errImportTooLarge refuses an import file over catalog.MaxImportBytes.
var errImportTooLarge = fmt.Errorf("The import file is over the maximum of %d bytes (50 MB): split it into several imports.", catalog.MaxImportBytes)

// readImportBody reads an import file of at most catalog.MaxImportBytes.
// A larger one is errImportTooLarge: at once when its Content-Length says
// so, else as soon as the limit is passed, without reading the rest.
func readImportBody(c echo.Context) ([]byte, error) {
	r := c.Request()
	if r.ContentLength > catalog.MaxImportBytes {
		return nil, errImportTooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, catalog.MaxImportBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errImportTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("import: read body: %w", err)
	}
	return body, nil
}

// exportFile answers GET /api/v1/export (SPEC §8) with an export file, no
// secrets in it: the job named by subscription (default "default"),
// resourceGroup, jobCollection and job; the collection, as an ARM list,
// when job is not given; without jobCollection, every collection of the
// subscription (of resourceGroup only, when given) as an export bundle;
// without subscription either, everything the user may see.
func (s *Server) exportFile(c echo.Context) error {
	q := c.QueryParams()
	sub, group, coll, job := q.Get("subscription"), q.Get("resourceGroup"), q.Get("jobCollection"), q.Get("job")
	var ps []problem.Problem
	if job != "" && coll == "" {
		ps = append(ps, problem.Problem{Path: "jobCollection", Message: "is required with job"})
	}
	if coll != "" && group == "" {
		ps = append(ps, problem.Problem{Path: "resourceGroup", Message: "is required with jobCollection"})
	}
	if len(ps) > 0 {
		return &problem.List{Problems: ps}
	}
	ctx := c.Request().Context()
	var (
		out  []byte
		err  error
		name = "sked-export"
	)
	switch {
	case coll != "" || sub != "":
		if sub == "" {
			sub = models.DefaultWorkspaceID
		}
		if sub, err = s.memberWorkspace(c, sub); err != nil {
			return err
		}
		if err = s.authorize(c, sub, models.RoleEditor); err != nil {
			return err
		}
		ref := models.CollectionRef{WorkspaceID: sub, ResourceGroup: group, Name: coll}
		switch {
		case job != "":
			out, err = s.catalog.ExportJob(ctx, ref, job)
			name += "-" + coll + "-" + job
		case coll != "":
			out, err = s.catalog.ExportCollection(ctx, ref)
			name += "-" + coll
		default:
			out, err = s.catalog.ExportWorkspaces(ctx, []string{sub}, group)
			name += "-" + sub
		}
	default:
		// Every workspace of the user where the request may export
		// (editor, within an API token's scope).
		var ws []models.Workspace
		if ws, err = s.store.WorkspacesOf(ctx, currentUser(c).ID); err == nil {
			ids := []string{}
			for _, w := range ws {
				if s.roleIn(c, w.ID).Includes(models.RoleEditor) {
					ids = append(ids, w.ID)
				}
			}
			out, err = s.catalog.ExportWorkspaces(ctx, ids, group)
		}
	}
	if errors.Is(err, models.ErrNotFound) {
		what := fmt.Sprintf("The job collection %q does not exist in resource group %q.", coll, group)
		if job != "" {
			what = fmt.Sprintf("The job %q does not exist in job collection %q of resource group %q (or the collection does not).", job, coll, group)
		}
		return echo.NewHTTPError(http.StatusNotFound, what)
	}
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.json"`, safeFileName(name)))
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, out)
}

// checkMember is memberWorkspace without the id.
func (s *Server) checkMember(c echo.Context, ws string) error {
	_, err := s.memberWorkspace(c, ws)
	return err
}

// safeFileName keeps letters, digits, '-', '_' and '.' of a file name.
func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}
