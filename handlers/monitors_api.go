package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/monitordef"
	"sked/scheduler/catalog"
	"sked/scheduler/plan"
)

// monitorWriter changes heartbeat monitors: the monitors' API and pages.
type monitorWriter interface {
	PutMonitor(ctx context.Context, actor catalog.Actor, workspaceID, name string, body []byte) (*models.Monitor, bool, error)
	DeleteMonitor(ctx context.Context, actor catalog.Actor, workspaceID, name string) error
	RotateMonitorToken(ctx context.Context, actor catalog.Actor, workspaceID, name string) (*models.Monitor, error)
}

// monitorNextShown is how many expected times an answer lists.
const monitorNextShown = 5

// monitorState is what a monitor's answer and pages show beyond its
// definition: its state, last pings, next expected times and ping URL.
type monitorState struct {
	def    *monitordef.Monitor
	status monitordef.Status
	// next are the coming expected occurrences (the first may have passed
	// and be within its grace: the monitor is then late).
	next []time.Time
	// pingURL is the success ping's URL; "" unless the viewer may see it.
	pingURL string
}

// monitorStateOf computes row's state at now; withToken says whether the
// viewer may see the ping URL (editors).
func (s *Server) monitorStateOf(c echo.Context, row *models.Monitor, withToken bool) (*monitorState, error) {
	def, err := monitordef.Parse(row.Definition)
	if err != nil {
		return nil, fmt.Errorf("monitor %s: stored definition: %w", row.Name, err)
	}
	st := &monitorState{def: def}
	cals, err := s.catalog.WorkspaceCalendars(c.Request().Context(), row.WorkspaceID)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	if rule, err := plan.MonitorRule(def, row.Anchor, cals); err == nil {
		st.next = plan.MonitorExpected(rule, row.CheckedThrough, monitorNextShown)
	}
	var next, lastSuccess time.Time
	if len(st.next) > 0 {
		next = st.next[0]
	}
	if row.LastSuccessAt != nil {
		lastSuccess = *row.LastSuccessAt
	}
	st.status = plan.MonitorStatus(row.Status, def.Paused, next, def.Grace, lastSuccess, now)
	if withToken && row.Token != "" {
		st.pingURL = s.absoluteURL(c, "/ping/"+row.Token)
	}
	return st, nil
}

// monitorDocument is the API's answer for a monitor: its definition with
// name, version, times, status, lastPing, nextExpected and, for editors,
// pingUrl.
func (s *Server) monitorDocument(c echo.Context, row *models.Monitor, withToken bool) (map[string]any, error) {
	doc, err := catalog.MonitorDocument(row)
	if err != nil {
		return nil, err
	}
	st, err := s.monitorStateOf(c, row, withToken)
	if err != nil {
		return nil, err
	}
	doc["status"] = string(st.status)
	if row.LastPingAt != nil && row.LastPingKind != nil {
		doc["lastPing"] = map[string]any{"at": row.LastPingAt.UTC(), "kind": *row.LastPingKind}
	}
	next := make([]time.Time, len(st.next))
	for i, t := range st.next {
		next[i] = t.UTC()
	}
	doc["nextExpected"] = next
	if st.pingURL != "" {
		doc["pingUrl"] = st.pingURL
	}
	return doc, nil
}

// mayEditMonitors reports whether the request may see ping tokens in ws
// (editors and owners).
func (s *Server) mayEditMonitors(c echo.Context, ws string) bool {
	return s.roleIn(c, ws).Includes(models.RoleEditor)
}

// apiListMonitors answers GET …/monitors: {"value": [monitor, …]} in name
// order, each as GET answers it.
func (s *Server) apiListMonitors(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	rows, err := s.store.MonitorsOf(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	editor := s.mayEditMonitors(c, ws)
	out := make([]map[string]any, 0, len(rows))
	for i := range rows {
		doc, err := s.monitorDocument(c, &rows[i], editor)
		if err != nil {
			return err
		}
		out = append(out, doc)
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiGetMonitor answers GET …/monitors/{name}.
func (s *Server) apiGetMonitor(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	row, err := s.store.MonitorByName(c.Request().Context(), ws, c.Param("name"))
	if err != nil {
		return monitorNotFound(err, c.Param("name"))
	}
	doc, err := s.monitorDocument(c, row, s.mayEditMonitors(c, ws))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

// apiPutMonitor answers PUT …/monitors/{name}: the body is the monitor
// JSON; 201 when created, 200 when replaced, with the stored monitor and
// its ping URL.
func (s *Server) apiPutMonitor(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("put monitor: read body: %w", err)
	}
	row, created, err := s.monitors.PutMonitor(c.Request().Context(), actorOf(c), ws, c.Param("name"), body)
	if err != nil {
		return err
	}
	doc, err := s.monitorDocument(c, row, true)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.log.Info("monitor saved", "workspace", ws, "monitor", row.Name, "version", row.Version, "user", currentUser(c).Username)
	return c.JSON(status, doc)
}

// apiDeleteMonitor answers DELETE …/monitors/{name}: 200, or 404.
func (s *Server) apiDeleteMonitor(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	if err := s.monitors.DeleteMonitor(c.Request().Context(), actorOf(c), ws, c.Param("name")); err != nil {
		return monitorNotFound(err, c.Param("name"))
	}
	s.log.Info("monitor deleted", "workspace", ws, "monitor", c.Param("name"), "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, map[string]string{"deleted": c.Param("name")})
}

// apiRotateMonitor answers POST …/monitors/{name}/rotate: the monitor
// with its new ping URL (the old one answers 404 from now on).
func (s *Server) apiRotateMonitor(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	row, err := s.monitors.RotateMonitorToken(c.Request().Context(), actorOf(c), ws, c.Param("name"))
	if err != nil {
		return monitorNotFound(err, c.Param("name"))
	}
	doc, err := s.monitorDocument(c, row, true)
	if err != nil {
		return err
	}
	s.log.Info("monitor token rotated", "workspace", ws, "monitor", row.Name, "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, doc)
}

// monitorNotFound words a 404 for the monitor name.
func monitorNotFound(err error, name string) error {
	if status, _ := classify(err); status == http.StatusNotFound {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The monitor %q does not exist in this workspace.", name))
	}
	return err
}
