package handlers

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// maxPreviewBody bounds a preview request: a job (at most 16,000 bytes)
// plus "n" and "now". A larger body is refused without reading it whole.
const maxPreviewBody = 64 << 10

// preview answers POST /api/v1/preview (SPEC §3): the job JSON in either
// shape plus optional "n" and "now", and the same answer as `sked preview
// --json`. A job that excludes calendars needs "workspace" too: the
// workspace (ARM subscription id) whose calendars apply, of which the
// token's user must be a member. Invalid input is a 400 that lists every
// problem.
func (s *Server) preview(c echo.Context) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxPreviewBody+1))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "could not read the request body")
	}
	if len(body) > maxPreviewBody {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "the request body is over the maximum of 65536 bytes")
	}
	req, err := recurrence.DecodePreviewRequest(body, s.now())
	if err != nil {
		return err
	}
	cals, err := s.previewCalendars(c, body, req.Job)
	if err != nil {
		return err
	}
	res, err := recurrence.PreviewWith(req.Job, req.Now, req.N, recurrence.Options{Calendars: cals})
	if err != nil {
		return err
	}
	res.Warnings = append(res.Warnings, catalog.TargetWarnings(req.Job, s.allow)...)
	return c.JSON(http.StatusOK, res)
}

// now is the server's clock.
func (s *Server) now() time.Time { return s.clock() }

// previewCalendars returns the calendars of the request's "workspace" for
// a job that excludes calendars: none (no query) for one that excludes
// none, a 400 naming "workspace" when it is missing, a 403 for a workspace
// the user is not a member of.
func (s *Server) previewCalendars(c echo.Context, body []byte, job *jobdef.Job) (recurrence.Calendars, error) {
	if !job.ExcludesCalendars() {
		return nil, nil
	}
	var extra struct {
		Workspace *string `json:"workspace"`
	}
	if json.Unmarshal(body, &extra) != nil || extra.Workspace == nil || *extra.Workspace == "" {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "workspace",
			Message: "is required when the job excludes calendars: the workspace whose calendars apply"}}}
	}
	ws, err := s.memberWorkspace(c, *extra.Workspace)
	if err != nil {
		return nil, err
	}
	return s.catalog.WorkspaceCalendars(c.Request().Context(), ws)
}
