package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
)

// writeCalendarICS answers with the calendar row as an iCalendar file to
// download (workspace ws).
func (s *Server) writeCalendarICS(c echo.Context, ws string, row *models.Calendar) error {
	out, err := s.catalog.CalendarICS(row)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition,
		fmt.Sprintf(`attachment; filename="%s-%s.ics"`, safeFileName(ws), safeFileName(row.Name)))
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", out)
}
