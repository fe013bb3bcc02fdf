package handlers

import (
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/scheduler/catalog"
)

// apiListTargets answers GET …/targets: {"value": [limit, …]} in host
// order, each with its attempts in flight and waiting now and its
// longest wait in the last hour.
func (s *Server) apiListTargets(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	rows, err := s.store.TargetStatuses(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	out := make([]catalog.TargetDocument, len(rows))
	for i := range rows {
		out[i] = catalog.TargetStatusDocument(&rows[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiGetTarget answers GET …/targets/{host}: the limit (404 when the
// host has none).
func (s *Server) apiGetTarget(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	host, err := catalog.ParseTargetHost(c.Param("host"))
	if err != nil {
		return err
	}
	row, err := s.store.TargetLimit(c.Request().Context(), ws, host)
	if err != nil {
		return targetNotFound(err, host)
	}
	return c.JSON(http.StatusOK, catalog.TargetDocumentOf(row))
}

// apiPutTarget answers PUT …/targets/{host} with {"maxConcurrent": n,
// "maxPerSecond": n} (either or both): 201 when created, 200 when
// replaced, with the stored limit.
func (s *Server) apiPutTarget(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("put target limit: read body: %w", err)
	}
	row, created, err := s.targets.PutTargetLimit(c.Request().Context(), actorOf(c), ws, c.Param("host"), body)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.log.Info("target limit saved", "workspace", ws, "host", row.Host, "user", currentUser(c).Username)
	return c.JSON(status, catalog.TargetDocumentOf(row))
}

// apiDeleteTarget answers DELETE …/targets/{host}: 200, 404 when the host
// has no limit. The attempts waiting for it start at once.
func (s *Server) apiDeleteTarget(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	host, err := catalog.ParseTargetHost(c.Param("host"))
	if err != nil {
		return err
	}
	if err := s.targets.DeleteTargetLimit(c.Request().Context(), actorOf(c), ws, host); err != nil {
		return targetNotFound(err, host)
	}
	s.log.Info("target limit deleted", "workspace", ws, "host", host, "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, map[string]string{"deleted": host})
}

// targetNotFound names the host in a 404.
func targetNotFound(err error, host string) error {
	if status, _ := classify(err); status == http.StatusNotFound {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The host %q has no target limit in this workspace.", host))
	}
	return err
}
