package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/web"
)

// jobFormFromCron fills the builder from the pasted cron line (SPEC
// §13.7): frequency, interval and schedule become the line's recurrence
// (its CRON_TZ= sets the zone); the rest of the form stays. A line the
// recurrence cannot express, or the builder cannot show, re-renders the
// form with the reason under the field (422).
func (s *Server) jobFormFromCron(c echo.Context, row *models.CollectionRow, f web.JobForm) error {
	cron, err := jobdef.ParseCron(f.Cron)
	if err == nil {
		err = web.FillFormFromCron(&f, cron, s.clock())
	}
	status := http.StatusOK
	if err != nil {
		f.Errors, status = web.FieldErrors{"cron": "cron: " + err.Error()}, statusUnprocessable
	}
	f.Preview = s.previewOf(c, row, f.BuilderJSON(), f.PreviewN())
	return s.renderJobForm(c, status, f)
}
