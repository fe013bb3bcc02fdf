package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// The alert rules of the Channels, collection and job pages and the job
// page's bell (SPEC §13.3). The forms carry the page's scope in hidden
// fields; the answer is the #alerts panel of that scope (htmx) or the
// page again.

// alertScope is the scope of a page's alerts panel: all empty for the
// workspace.
type alertScope struct {
	ResourceGroup, Collection, Job string
}

// formScope is the scope the alert forms carry.
func formScope(c echo.Context) alertScope {
	return alertScope{ResourceGroup: c.FormValue("resourceGroup"), Collection: c.FormValue("collection"), Job: c.FormValue("job")}
}

// page is the page of the scope.
func (a alertScope) page(ws string) string {
	switch {
	case a.Job != "":
		return web.JobPath(ws, a.ResourceGroup, a.Collection, a.Job)
	case a.Collection != "":
		return web.CollectionPath(ws, a.ResourceGroup, a.Collection)
	}
	return web.ChannelsPath(ws)
}

// alertsView is the #alerts panel of scope in ws; edit (may be nil)
// changes its input (a refused form, a message) first.
func (s *Server) alertsView(c echo.Context, ws string, scope alertScope, edit func(*web.AlertsIn)) (web.AlertsPanel, error) {
	ctx := c.Request().Context()
	rules, err := s.store.AlertRulesOf(ctx, ws)
	if err != nil {
		return web.AlertsPanel{}, err
	}
	channels, err := s.store.ChannelsOf(ctx, ws)
	if err != nil {
		return web.AlertsPanel{}, err
	}
	in := web.AlertsIn{Workspace: ws, CSRFToken: csrfToken(c), ResourceGroup: scope.ResourceGroup, Collection: scope.Collection,
		Job: scope.Job, CanManage: web.CanFor(string(s.roleIn(c, ws))).Manage, Rules: rules, Channels: channels,
		Bell: scope.Job != ""}
	if edit != nil {
		edit(&in)
	}
	return web.NewAlertsPanel(in), nil
}

// renderAlerts answers an alert form: the panel for htmx; without htmx a
// redirect to the scope's page, or the panel alone with its errors
// (status).
func (s *Server) renderAlerts(c echo.Context, ws string, scope alertScope, status int, edit func(*web.AlertsIn)) error {
	if !isHTMX(c) && status == http.StatusOK {
		var in web.AlertsIn
		if edit != nil {
			edit(&in)
		}
		if in.Message != "" && scope.Collection != "" { // the collection and job pages show it
			if err := addFlash(c, in.Message); err != nil {
				return err
			}
		}
		return redirect(c, localRedirectTarget(scope.page(ws)))
	}
	v, err := s.alertsView(c, ws, scope, edit)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return render(c, status, web.AlertsFragment(v))
	}
	return render(c, status, web.AlertsPage(page(c, "Alerts"), v, scope.page(ws)))
}

// alertAdd adds an alert rule for the form's scope (a name is made from
// the scope and the channel); a refused form comes back with its errors
// (422) and nothing stored.
func (s *Server) alertAdd(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	scope := formScope(c)
	form, err := c.FormParams()
	if err != nil {
		return fmt.Errorf("add alert: %w", err)
	}
	events := form["events"]
	f := web.AlertForm{Channel: c.FormValue("channel"), Threshold: c.FormValue("threshold"), MinInterval: c.FormValue("minInterval")}
	body, err := web.AlertBody(scope.ResourceGroup, scope.Collection, scope.Job, events, f)
	if err != nil {
		return fmt.Errorf("add alert: %w", err)
	}
	row, err := s.notify.AddAlertRule(c.Request().Context(), actorOf(c), ws, body)
	if errs := formErrors(err, alertLabels); errs != nil {
		f.Errors = web.AlertFormErrors(errs)
		return s.renderAlerts(c, ws, scope, statusUnprocessable, func(in *web.AlertsIn) { in.Form, in.Events = &f, events })
	}
	if err != nil {
		return err
	}
	s.log.Info("alert rule saved", "workspace", ws, "alert", row.Name, "channel", row.ChannelName, "user", currentUser(c).Username)
	return s.renderAlerts(c, ws, scope, http.StatusOK, func(in *web.AlertsIn) {
		in.Message = fmt.Sprintf("Alert rule %s added.", row.Name)
	})
}

// alertLabels name the alert form's fields at the start of a sentence.
var alertLabels = map[string]string{"channel": "The channel", "events": "The events", "threshold": "The number of failures in a row",
	"minInterval": "The interval"}

// alertRemove removes an alert rule and answers with the panel of the
// form's scope.
func (s *Server) alertRemove(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	name := c.Param("name")
	if err := s.notify.DeleteAlertRule(c.Request().Context(), actorOf(c), ws, name); err != nil {
		return alertNotFound(err, name)
	}
	s.log.Info("alert rule deleted", "workspace", ws, "alert", name, "user", currentUser(c).Username)
	return s.renderAlerts(c, ws, formScope(c), http.StatusOK, func(in *web.AlertsIn) {
		in.Message = fmt.Sprintf("Alert rule %s removed.", name)
	})
}

// jobBell is the job page's "tell me when this job fails": a rule for
// the job's faults and recoveries to the workspace's default channel.
func (s *Server) jobBell(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	scope := alertScope{ResourceGroup: row.ResourceGroup, Collection: row.Name, Job: j.Name}
	rule, err := s.notify.WatchJob(c.Request().Context(), actorOf(c), row, j.Name)
	if errs := formErrors(err, nil); errs != nil {
		return s.renderAlerts(c, row.WorkspaceID, scope, statusUnprocessable, func(in *web.AlertsIn) { in.Error = errs["channel"] })
	}
	if err != nil {
		return err
	}
	s.log.Info("alert rule saved", "workspace", row.WorkspaceID, "alert", rule.Name, "channel", rule.ChannelName,
		"user", currentUser(c).Username)
	return s.renderAlerts(c, row.WorkspaceID, scope, http.StatusOK, func(in *web.AlertsIn) {
		in.Message = fmt.Sprintf("You will hear when this job fails or recovers: rule %s → #%s.", rule.Name, rule.ChannelName)
	})
}
