package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/scheduler/catalog"
)

// apiListAlerts answers GET …/alerts: {"value": [rule, …]} in name
// order, each as GET answers it.
func (s *Server) apiListAlerts(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	rows, err := s.store.AlertRulesOf(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	out := make([]json.RawMessage, 0, len(rows))
	for i := range rows {
		doc, err := catalog.AlertRuleDocument(&rows[i])
		if err != nil {
			return err
		}
		out = append(out, doc)
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiGetAlert answers GET …/alerts/{name}: the rule JSON with its name
// and times.
func (s *Server) apiGetAlert(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	row, err := s.store.AlertRuleByName(c.Request().Context(), ws, c.Param("name"))
	if err != nil {
		return alertNotFound(err, c.Param("name"))
	}
	doc, err := catalog.AlertRuleDocument(row)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, doc)
}

// apiPutAlert answers PUT …/alerts/{name}: the body is the rule JSON;
// 201 when created, 200 when replaced, with the stored rule. A channel
// that is not the workspace's is a 400 at "channel".
func (s *Server) apiPutAlert(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("put alert rule: read body: %w", err)
	}
	row, created, err := s.notify.PutAlertRule(c.Request().Context(), actorOf(c), ws, c.Param("name"), body)
	if err != nil {
		return err
	}
	doc, err := catalog.AlertRuleDocument(row)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.log.Info("alert rule saved", "workspace", ws, "alert", row.Name, "channel", row.ChannelName, "user", currentUser(c).Username)
	return c.Blob(status, echo.MIMEApplicationJSONCharsetUTF8, doc)
}

// apiDeleteAlert answers DELETE …/alerts/{name}: 200, or 404 when there
// is no such rule.
func (s *Server) apiDeleteAlert(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	if err := s.notify.DeleteAlertRule(c.Request().Context(), actorOf(c), ws, c.Param("name")); err != nil {
		return alertNotFound(err, c.Param("name"))
	}
	s.log.Info("alert rule deleted", "workspace", ws, "alert", c.Param("name"), "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, map[string]string{"deleted": c.Param("name")})
}

// alertNotFound names the rule in a 404.
func alertNotFound(err error, name string) error {
	if status, _ := classify(err); status == http.StatusNotFound {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The alert rule %q does not exist in this workspace.", name))
	}
	return err
}
