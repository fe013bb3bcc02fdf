package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
)

// The request helpers that every feature shares: refusing a bad parameter
// (badRequest), reading a bounded body (readBody, skipBodyLimit), the
// paging of API lists ($top and $skip), the workspace a request names, in
// its path or ?ws=, checked against the user's memberships (refused with
// 403 on the API, 404 on pages, 400 for ?ws=), the job of a page path,
// the user's time zone, and where users reach Sked (requestBase).

// badRequest is a 400 naming one field.
func badRequest(path, msg string) error {
	return &problem.List{Problems: []problem.Problem{{Path: path, Message: msg}}}
}

// maxAPIBody bounds the request bodies of the ARM API (the bulk jobs API
// takes eight times as much): a job is at most jobdef.MaxJobBytes; a
// little more is read so that the job parser can say by how much it is
// over.
const maxAPIBody = 64 << 10

// readBody reads a request body of at most max bytes. A longer one is
// refused, without reading it whole, as a 400 naming the limit.
func readBody(c echo.Context, max int64) ([]byte, error) {
	r := c.Request()
	if r.ContentLength > max {
		return nil, badRequest("body", fmt.Sprintf("the request body is %d bytes, over the maximum of %d", r.ContentLength, max))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(body)) > max {
		return nil, badRequest("body", fmt.Sprintf("the request body is over the maximum of %d bytes", max))
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil, badRequest("body", "a JSON body is required")
	}
	return body, nil
}

// skipBodyLimit tells the global body limit which routes bound their
// bodies themselves: the import API and the import page (50 MB files),
// and the calendar import page (its confirmation carries a 1 MB file).
func skipBodyLimit(c echo.Context) bool {
	return c.Path() == importPath || c.Path() == "/import" || c.Path() == calendarImportPagePath
}

// paging is $top and $skip of a list request.
type paging struct {
	top, skip int
}

// parsePaging reads $top (1–100, default 100) and $skip (≥ 0, default 0).
func parsePaging(c echo.Context) (paging, error) {
	p := paging{top: 100}
	if v := c.QueryParam("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return p, badRequest("$top", fmt.Sprintf("%q is not a whole number from 1 to 100", v))
		}
		p.top = n
	}
	if v := c.QueryParam("$skip"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, badRequest("$skip", fmt.Sprintf("%q is not a whole number of at least 0", v))
		}
		p.skip = n
	}
	return p, nil
}

// memberWorkspace returns the id of workspace ws (matched
// case-insensitively) when the user is a member of it, and a 403
// otherwise (also when it does not exist).
func (s *Server) memberWorkspace(c echo.Context, ws string) (string, error) {
	user := currentUser(c)
	id, ok, err := s.store.MemberWorkspace(c.Request().Context(), ws, user.ID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf(
			"The user %q has no access to subscription %q (a Sked workspace): ask a member to add you.", user.Username, ws))
	}
	return id, nil
}

// pageWorkspace is the path's workspace when the user is a member of it;
// otherwise a 404 (a page does not tell which workspaces exist).
func (s *Server) pageWorkspace(c echo.Context) (string, error) {
	ws, ok, err := s.store.MemberWorkspace(c.Request().Context(), c.Param("ws"), currentUser(c).ID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no workspace %q that you may see.", c.Param("ws")))
	}
	return ws, nil
}

// queryWorkspace is the stored id of the workspace ws of a ?ws= query, ""
// when ws is empty (all the user's workspaces); one the user is not a
// member of is a 400 naming ws.
func (s *Server) queryWorkspace(c echo.Context, ws string) (string, error) {
	if ws == "" {
		return "", nil
	}
	id, ok, err := s.store.MemberWorkspace(c.Request().Context(), ws, currentUser(c).ID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", badRequest("ws", "no workspace "+ws+" among yours")
	}
	return id, nil
}

// pageJob loads the collection and the job of a page path, after the
// membership check of pageCollection (404 for a job that does not exist).
func (s *Server) pageJob(c echo.Context) (*models.CollectionRow, *models.JobDetail, error) {
	row, err := s.pageCollection(c)
	if err != nil {
		return nil, nil, err
	}
	j, err := s.store.JobDetail(c.Request().Context(), row.ID, c.Param("job"))
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf(
			"There is no job %q in the job collection %s.", c.Param("job"), row.Name))
	}
	if err != nil {
		return nil, nil, err
	}
	return row, j, nil
}

// userZone is the user's time zone preference; UTC when it is not set or
// no longer known.
func userZone(user *models.User) *time.Location {
	zone, err := jobdef.LoadZone(user.TimeZone)
	if err != nil {
		return time.UTC
	}
	return zone
}

// userZone is the signed-in user's time zone (UTC when it cannot be
// loaded): userZone of currentUser.
func (s *Server) userZone(c echo.Context) *time.Location {
	return userZone(currentUser(c))
}

// requestBase is where users reach Sked: BaseURL, or the request's
// scheme and host.
func (s *Server) requestBase(c echo.Context) string {
	if s.baseURL != "" {
		return s.baseURL
	}
	scheme := "http"
	if c.Request().TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}

// absoluteURL prefixes a path with --base-url, or with the request's own
// scheme and host when no base URL is set.
func (s *Server) absoluteURL(c echo.Context, path string) string {
	return strings.TrimRight(s.requestBase(c), "/") + path
}
