package handlers

import (
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// logRequests logs every request except static files and health checks at
// debug level (SKED_LOG_LEVEL=debug shows them), with the
// stable keys method, path, status and duration_ms.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		path := c.Request().URL.Path
		if strings.HasPrefix(path, "/static/") || path == "/healthz" || path == "/readyz" {
			return err
		}
		status := c.Response().Status
		if err != nil {
			// The error handler runs after the middleware; classify tells
			// the status it will send.
			status, _ = classify(err)
		}
		s.log.Debug("request", "method", c.Request().Method, "path", path, "status", status,
			"duration_ms", time.Since(start).Milliseconds())
		return err
	}
}
