package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The Targets page of a workspace (SPEC §16.2): its target limits with
// what runs under each now, and, for editors, a form that adds or
// changes one and buttons that remove them. Changes are POST forms
// answered with the #targets panel (htmx) or the page.

// targetsPage shows the Targets page.
func (s *Server) targetsPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	return s.renderTargets(c, ws, http.StatusOK, nil, func(*web.TargetsPanel) {})
}

// targetSave adds or replaces the limit of the form's host; a refused
// form comes back with its errors (422).
func (s *Server) targetSave(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	f := web.TargetForm{Host: c.FormValue("host"), MaxConcurrent: c.FormValue("maxConcurrent"), MaxPerSecond: c.FormValue("maxPerSecond")}
	row, created, err := s.targets.PutTargetLimit(c.Request().Context(), actorOf(c), ws, f.Host, web.TargetBody(f))
	if errs := formErrors(err, nil); errs != nil {
		f.Errors = errs
		return s.renderTargets(c, ws, statusUnprocessable, &f, func(*web.TargetsPanel) {})
	}
	if err != nil {
		return err
	}
	s.log.Info("target limit saved", "workspace", ws, "host", row.Host, "user", currentUser(c).Username)
	return s.renderTargets(c, ws, http.StatusOK, nil, func(p *web.TargetsPanel) {
		if created {
			p.Message = fmt.Sprintf("Limit of %s added.", row.Host)
		} else {
			p.Message = fmt.Sprintf("Limit of %s changed.", row.Host)
		}
	})
}

// targetRemove removes the limit of the path's host: the attempts waiting
// for it start at once. A host without one is said in place (422).
func (s *Server) targetRemove(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	host := c.Param("host")
	err = s.targets.DeleteTargetLimit(c.Request().Context(), actorOf(c), ws, host)
	if errors.Is(err, models.ErrNotFound) {
		return s.renderTargets(c, ws, statusUnprocessable, nil, func(p *web.TargetsPanel) {
			p.Error = fmt.Sprintf("%s has no limit (any more).", host)
		})
	}
	if err != nil {
		return err
	}
	s.log.Info("target limit deleted", "workspace", ws, "host", host, "user", currentUser(c).Username)
	return s.renderTargets(c, ws, http.StatusOK, nil, func(p *web.TargetsPanel) {
		p.Message = fmt.Sprintf("Limit of %s removed: its waiting attempts start now.", host)
	})
}

// renderTargets answers with the #targets panel (the refused form
// submitted, changed by edit): the fragment for htmx, else the page.
func (s *Server) renderTargets(c echo.Context, ws string, status int, submitted *web.TargetForm, edit func(*web.TargetsPanel)) error {
	limits, err := s.store.TargetStatuses(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	panel := web.NewTargetsPanel(web.TargetsIn{Workspace: ws, CSRFToken: csrfToken(c),
		CanEdit: web.CanFor(string(s.roleIn(c, ws))).Edit, Limits: limits, Submitted: submitted})
	edit(&panel)
	if isHTMX(c) {
		return render(c, status, web.TargetsPanelFragment(panel))
	}
	return render(c, status, web.TargetsPage(page(c, "Targets"), web.TargetsView{Workspace: ws, Panel: panel}))
}
