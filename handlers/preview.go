package handlers

import (
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
)

// maxPreviewBody bounds a preview request: a job (at most 16,000 bytes)
// plus "n" and "now". A larger body is refused without reading it whole.
const maxPreviewBody = 64 << 10

// preview answers POST /api/v1/preview (SPEC §3): the job JSON in either
// shape plus optional "n" and "now", and the same answer as `sked preview
// --json`. Invalid input is a 400 that lists every problem.
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
	res, err := recurrence.Preview(req.Job, req.Now, req.N)
	if err != nil {
		return err
	}
	res.Warnings = append(res.Warnings, catalog.TargetWarnings(req.Job, s.allow)...)
	return c.JSON(http.StatusOK, res)
}

// now is the server's clock.
func (s *Server) now() time.Time { return s.clock() }
