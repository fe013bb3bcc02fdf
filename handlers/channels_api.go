package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
)

// apiListChannels answers GET …/channels: {"value": [channel, …]} in
// name order, each as GET answers it.
func (s *Server) apiListChannels(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	rows, err := s.store.ChannelsOf(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	out := make([]json.RawMessage, 0, len(rows))
	for i := range rows {
		doc, err := catalog.ChannelDocument(&rows[i])
		if err != nil {
			return err
		}
		out = append(out, doc)
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// apiGetChannel answers GET …/channels/{name}: the channel without its
// secrets.
func (s *Server) apiGetChannel(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	row, err := s.store.ChannelByName(c.Request().Context(), ws, c.Param("name"))
	if err != nil {
		return channelNotFound(err, c.Param("name"))
	}
	doc, err := catalog.ChannelDocument(row)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, doc)
}

// apiPutChannel answers PUT …/channels/{name}: the body is the channel
// JSON; 201 when created, 200 when replaced, with the stored channel.
// When the write generated a webhook signing secret, the answer carries
// it as "secret": the only time it is shown.
func (s *Server) apiPutChannel(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("put channel: read body: %w", err)
	}
	saved, err := s.notify.PutChannel(c.Request().Context(), actorOf(c), ws, c.Param("name"), body)
	if err != nil {
		return err
	}
	doc, err := catalog.ChannelDocument(saved.Row)
	if err != nil {
		return err
	}
	if saved.Secret != "" {
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			return fmt.Errorf("put channel: %w", err)
		}
		m["secret"] = saved.Secret
		if doc, err = json.Marshal(m); err != nil {
			return fmt.Errorf("put channel: %w", err)
		}
	}
	status := http.StatusOK
	if saved.Created {
		status = http.StatusCreated
	}
	s.log.Info("channel saved", "workspace", ws, "channel", saved.Row.Name, "type", saved.Row.Type, "user", currentUser(c).Username)
	return c.Blob(status, echo.MIMEApplicationJSONCharsetUTF8, doc)
}

// apiDeleteChannel answers DELETE …/channels/{name}: 200, 409 naming the
// alert rules that still send to it, 404 when there is no such channel.
func (s *Server) apiDeleteChannel(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	if err := s.notify.DeleteChannel(c.Request().Context(), actorOf(c), ws, c.Param("name")); err != nil {
		return channelNotFound(err, c.Param("name"))
	}
	s.log.Info("channel deleted", "workspace", ws, "channel", c.Param("name"), "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, map[string]string{"deleted": c.Param("name")})
}

// testResult is the answer of POST …/channels/{name}/test.
type testResult struct {
	Delivered  bool   `json:"delivered"`
	StatusCode int    `json:"statusCode,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

// apiTestChannel answers POST …/channels/{name}/test: it sends a test
// event to the channel at once and answers 200 with the outcome
// (delivered or not, the peer's answer, the error), which the delivery
// log also records.
func (s *Server) apiTestChannel(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	res, err := s.notify.TestChannel(c.Request().Context(), actorOf(c), ws, c.Param("name"), s.requestBase(c), s.notifier)
	if err != nil {
		return channelNotFound(err, c.Param("name"))
	}
	s.log.Info("channel tested", "workspace", ws, "channel", c.Param("name"), "delivered", res.Delivered, "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, testResult{Delivered: res.Delivered, StatusCode: res.StatusCode, Answer: res.Answer,
		Error: res.Error, DurationMs: res.Duration.Milliseconds()})
}

// delivery is one row of the delivery log as the API answers it.
type delivery struct {
	ID            int64           `json:"id"`
	Channel       string          `json:"channel"`
	Rule          string          `json:"rule,omitempty"`
	EventID       string          `json:"eventId"`
	EventType     string          `json:"eventType"`
	Status        string          `json:"status"`
	Attempts      int             `json:"attempts"`
	NextAttemptAt *time.Time      `json:"nextAttemptAt,omitempty"`
	StatusCode    int             `json:"statusCode,omitempty"`
	Answer        string          `json:"answer,omitempty"`
	Error         string          `json:"error,omitempty"`
	CreatedAt     time.Time       `json:"createdAt"`
	FinishedAt    *time.Time      `json:"finishedAt,omitempty"`
	Event         json.RawMessage `json:"event"`
}

// deliveryStatuses are the values of ?status=.
var deliveryStatuses = []string{models.NotificationPending, models.NotificationSending, models.NotificationDelivered, models.NotificationFailed}

// apiDeliveries answers GET …/deliveries: the delivery log of the
// workspace, newest first, as {"value": [delivery, …]}; ?channel= keeps
// one channel's, ?status= one status, ?$top= (1–1000, default 100)
// bounds the page and ?before= (an id) starts after an earlier page.
func (s *Server) apiDeliveries(c echo.Context) error {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return err
	}
	f := models.DeliveryFilter{WorkspaceID: ws, Channel: c.QueryParam("channel"), Limit: 100}
	ps := &problem.List{}
	if st := c.QueryParam("status"); st != "" {
		f.Status = strings.ToLower(st)
		if !slices.Contains(deliveryStatuses, f.Status) {
			ps.Add("status", fmt.Sprintf("%q is not one of %s", st, strings.Join(deliveryStatuses, ", ")))
		}
	}
	if v := c.QueryParam("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			ps.Add("$top", fmt.Sprintf("%q is not a number from 1 to 1000", v))
		}
		f.Limit = n
	}
	if v := c.QueryParam("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			ps.Add("before", fmt.Sprintf("%q is not a delivery id", v))
		}
		f.BeforeID = n
	}
	if err := ps.OrNil(); err != nil {
		return err
	}
	rows, err := s.store.Deliveries(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := make([]delivery, 0, len(rows))
	for _, r := range rows {
		d := delivery{ID: r.ID, Channel: r.ChannelName, Rule: r.RuleName, EventID: r.EventID, EventType: r.EventType,
			Status: r.Status, Attempts: r.Attempts, StatusCode: r.LastStatusCode, Answer: r.LastAnswer, Error: r.LastError,
			CreatedAt: r.CreatedAt.UTC(), FinishedAt: r.FinishedAt, Event: r.Event}
		if r.Status == models.NotificationPending {
			next := r.NextAttemptAt.UTC()
			d.NextAttemptAt = &next
		}
		out = append(out, d)
	}
	return c.JSON(http.StatusOK, map[string]any{"value": out})
}

// channelNotFound names the channel in a 404.
func channelNotFound(err error, name string) error {
	if status, _ := classify(err); status == http.StatusNotFound {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The channel %q does not exist in this workspace.", name))
	}
	return err
}
