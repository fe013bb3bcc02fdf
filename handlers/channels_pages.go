package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The Channels page of a workspace (SPEC §13.3): the channels, "send a
// test event", the workspace's alert rules and the delivery log. Changes
// are POST forms answered with the swapped fragment (htmx) or the page.

// channelLabels name the channel forms' fields at the start of a
// sentence.
var channelLabels = map[string]string{
	"name": "The name", "type": "The type", "description": "The description",
	"properties.url": "The URL", "properties.host": "The SMTP host", "properties.port": "The port",
	"properties.security": "The security", "properties.user": "The user", "properties.password": "The password",
	"properties.from": "The sender", "properties.to": "The recipients",
}

// deliveriesChanged is the htmx event that reloads the delivery log.
const deliveriesChanged = "sked-deliveries-changed"

// channelsPage shows the Channels page; htmx gets the delivery log
// (filters and keyset pages).
func (s *Server) channelsPage(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	p, err := parseDeliveryParams(c)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		l, err := s.deliveryLogView(c, ws, p)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, web.DeliveryLogFragment(l))
	}
	return s.renderChannels(c, ws, http.StatusOK, func(*web.ChannelsPanel) {})
}

// parseDeliveryParams reads channel, status, event, since and before; a
// bad value is a 400 naming it.
func parseDeliveryParams(c echo.Context) (web.DeliveryParams, error) {
	p := web.DeliveryParams{Channel: c.QueryParam("channel"), Status: c.QueryParam("status"),
		Event: c.QueryParam("event"), Since: c.QueryParam("since")}
	switch {
	case !web.ValidDeliveryStatus(p.Status):
		return p, badRequest("status", fmt.Sprintf("%q is not one of delivered, failed, pending, sending", p.Status))
	case !web.ValidDeliveryEvent(p.Event):
		return p, badRequest("event", fmt.Sprintf("%q is not an event type", p.Event))
	case !web.ValidDeliverySince(p.Since):
		return p, badRequest("since", fmt.Sprintf("%q is not one of 1h, 24h, 7d, 30d", p.Since))
	}
	if v := c.QueryParam("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return p, badRequest("before", fmt.Sprintf("%q is not a delivery id", v))
		}
		p.Before = n
	}
	return p, nil
}

// deliveryLogView is a page of the workspace's delivery log, in the
// user's time zone.
func (s *Server) deliveryLogView(c echo.Context, ws string, p web.DeliveryParams) (web.DeliveryLog, error) {
	ctx := c.Request().Context()
	now := s.clock()
	rows, err := s.store.Deliveries(ctx, p.Filter(ws, now))
	if err != nil {
		return web.DeliveryLog{}, err
	}
	channels, err := s.store.ChannelsOf(ctx, ws)
	if err != nil {
		return web.DeliveryLog{}, err
	}
	names := make([]string, len(channels))
	for i := range channels {
		names[i] = channels[i].Name
	}
	return web.NewDeliveryLog(ws, p, names, rows, s.userZone(c), now), nil
}

// channelsPanelView is the #channels panel; edit changes it (the
// refused form, a message, a test answer) before it is rendered.
func (s *Server) channelsPanelView(c echo.Context, ws string, submitted *web.ChannelForm) (web.ChannelsPanel, error) {
	ctx := c.Request().Context()
	channels, err := s.store.ChannelsOf(ctx, ws)
	if err != nil {
		return web.ChannelsPanel{}, err
	}
	rules, err := s.store.AlertRulesOf(ctx, ws)
	if err != nil {
		return web.ChannelsPanel{}, err
	}
	return web.NewChannelsPanel(web.ChannelsIn{Workspace: ws, CSRFToken: csrfToken(c),
		CanManage: web.CanFor(string(s.roleIn(c, ws))).Manage, Channels: channels, Rules: rules, Submitted: submitted}), nil
}

// renderChannels answers with the #channels panel changed by edit: the
// fragment for htmx, else the whole page (with the unfiltered log).
func (s *Server) renderChannels(c echo.Context, ws string, status int, edit func(*web.ChannelsPanel), submitted ...web.ChannelForm) error {
	var sub *web.ChannelForm
	if len(submitted) > 0 {
		sub = &submitted[0]
	}
	panel, err := s.channelsPanelView(c, ws, sub)
	if err != nil {
		return err
	}
	edit(&panel)
	if isHTMX(c) {
		alerts, err := s.alertsView(c, ws, alertScope{}, nil)
		if err != nil {
			return err
		}
		alerts.OOB = true
		return render(c, status, web.ChannelsChangedFragment(panel, alerts))
	}
	v := web.ChannelsView{Workspace: ws, Can: web.CanFor(string(s.roleIn(c, ws))), Panel: panel}
	if v.Alerts, err = s.alertsView(c, ws, alertScope{}, nil); err != nil {
		return err
	}
	p, err := parseDeliveryParams(c)
	if err != nil || c.Request().Method != http.MethodGet {
		p = web.DeliveryParams{}
	}
	if v.Log, err = s.deliveryLogView(c, ws, p); err != nil {
		return err
	}
	return render(c, status, web.ChannelsPage(page(c, "Channels"), v))
}

// channelCreate adds a channel from one of the forms; a webhook's signing
// secret is shown in the answer, once. A refused form comes back with its
// errors (422); a name already used is refused rather than replaced.
func (s *Server) channelCreate(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	f := web.ChannelForm{Type: c.FormValue("type"), Name: c.FormValue("name"), Description: c.FormValue("description"),
		URL: c.FormValue("url"), Host: c.FormValue("host"), Port: c.FormValue("port"), Security: c.FormValue("security"),
		User: c.FormValue("user"), From: c.FormValue("from"), To: c.FormValue("to")}
	if !slices.ContainsFunc(web.ChannelTypes, func(t web.ChannelForm) bool { return t.Type == f.Type }) {
		return badRequest("type", fmt.Sprintf("%q is not a channel type (webhook, slack, teams, email)", f.Type))
	}
	if _, err := s.store.ChannelByName(c.Request().Context(), ws, f.Name); err == nil {
		f.Errors = web.FieldErrors{"name": fmt.Sprintf("A channel %s exists already: choose another name.", f.Name)}
		return s.renderChannels(c, ws, statusUnprocessable, func(*web.ChannelsPanel) {}, f)
	} else if !errors.Is(err, models.ErrNotFound) {
		return err
	}
	body, err := web.ChannelBody(f, c.FormValue("password"))
	if err != nil {
		return err
	}
	saved, err := s.notify.PutChannel(c.Request().Context(), actorOf(c), ws, f.Name, body)
	if errs := formErrors(err, channelLabels); errs != nil {
		f.Errors = web.ChannelFormErrors(errs)
		return s.renderChannels(c, ws, statusUnprocessable, func(*web.ChannelsPanel) {}, f)
	}
	if err != nil {
		return err
	}
	s.log.Info("channel saved", "workspace", ws, "channel", saved.Row.Name, "type", saved.Row.Type, "user", currentUser(c).Username)
	return s.renderChannels(c, ws, http.StatusOK, func(p *web.ChannelsPanel) {
		p.Message = fmt.Sprintf("Channel %s added.", saved.Row.Name)
		if saved.Secret != "" {
			p.NewSecret = &web.NewSecret{ID: "new-secret-value", Owner: saved.Row.Name, Value: saved.Secret}
		}
	})
}

// channelDelete deletes a channel; one that alert rules send to is
// refused, with their names (422, so that htmx shows it in place).
func (s *Server) channelDelete(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	name := c.Param("name")
	err = s.notify.DeleteChannel(c.Request().Context(), actorOf(c), ws, name)
	var ce *models.ConflictError
	if errors.As(err, &ce) {
		return s.renderChannels(c, ws, statusUnprocessable, func(p *web.ChannelsPanel) { p.Error = ce.Message })
	}
	if err != nil {
		return channelNotFound(err, name)
	}
	s.log.Info("channel deleted", "workspace", ws, "channel", name, "user", currentUser(c).Username)
	return s.renderChannels(c, ws, http.StatusOK, func(p *web.ChannelsPanel) { p.Message = fmt.Sprintf("Channel %s deleted.", name) })
}

// channelTest sends a test event to a channel at once and shows the
// answer in its row (htmx gets the row, and the delivery log reloads).
func (s *Server) channelTest(c echo.Context) error {
	ws, err := s.pageWorkspace(c)
	if err != nil {
		return err
	}
	name := c.Param("name")
	res, err := s.notify.TestChannel(c.Request().Context(), actorOf(c), ws, name, s.requestBase(c), s.notifier)
	if err != nil {
		return channelNotFound(err, name)
	}
	s.log.Info("channel tested", "workspace", ws, "channel", name, "delivered", res.Delivered, "user", currentUser(c).Username)
	answer := web.NewTestAnswer(res.Delivered, res.Answer, res.Error, res.Duration)
	if !isHTMX(c) {
		return s.renderChannels(c, ws, http.StatusOK, func(p *web.ChannelsPanel) { setTestAnswer(p, name, answer) })
	}
	panel, err := s.channelsPanelView(c, ws, nil)
	if err != nil {
		return err
	}
	row := setTestAnswer(&panel, name, answer)
	if row == nil {
		return channelNotFound(models.ErrNotFound, name)
	}
	c.Response().Header().Set("HX-Trigger-After-Settle", deliveriesChanged)
	return render(c, http.StatusOK, web.ChannelRowFragment(*row))
}

// setTestAnswer puts a test's answer on the channel name of p and
// returns its row (nil when it is not there).
func setTestAnswer(p *web.ChannelsPanel, name string, a *web.TestAnswer) *web.ChannelRow {
	for i := range p.Channels {
		if strings.EqualFold(p.Channels[i].Name, name) {
			p.Channels[i].Test = a
			return &p.Channels[i]
		}
	}
	return nil
}
