package handlers

import "github.com/labstack/echo/v4"

// calendarPageRoutes registers the calendar pages and the month view.
func (s *Server) calendarPageRoutes(e *echo.Echo) {}
