package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz answers 200 while the process is up.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "version": s.version})
}

// readyz answers 200 when the database answers, takes writes (not a
// standby, not read-only) and is migrated, 503 otherwise, with the reason
// (models.Store.CheckReady).
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.store.CheckReady(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": err.Error()})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
