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
// standby, not read-only) and has every migration this release needs
// (models.Store.CheckReady), and the engine (when there is one) starts
// attempts; 503 otherwise, with the reason. A ready answer's "schema"
// names a database newer than this release (the release it needs) or
// contract migrations that wait for older instances.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	st, err := s.store.Readiness(ctx)
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": err.Error()})
	}
	if s.engineReady != nil {
		if err := s.engineReady(); err != nil {
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": err.Error()})
		}
	}
	body := map[string]string{"status": "ready"}
	// A newer schema (beside a newer release) or contract migrations that
	// wait leave the instance ready; "schema" says so.
	if st.Notice() != "" {
		body["schema"] = st.Notice()
	}
	return c.JSON(http.StatusOK, body)
}
