package handlers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The iCalendar feed of a job (SPEC §13.6): its next web.FeedMaxEvents
// occurrences, or those of the next web.FeedHorizon, whichever ends first.
const (
	// feedTokenVersion is part of every feed token: raising it makes every
	// feed URL handed out so far answer 404 (so does changing the session
	// secret, which keys the tokens).
	feedTokenVersion = 1
)

// feedToken is the read-only token of job id's feed: the version, a dot and
// the HMAC-SHA256 of the job's id under a key derived from the session
// secret (so no table holds it and every instance agrees).
func (s *Server) feedToken(jobID int64) string {
	key := sha256.Sum256(append([]byte("sked job calendar feed\x00"), s.sessions.csrfKey...))
	mac := hmac.New(sha256.New, key[:])
	fmt.Fprintf(mac, "v%d:job:%d", feedTokenVersion, jobID)
	return strconv.Itoa(feedTokenVersion) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// feedPath is the path of a job's feed with its token.
func (s *Server) feedPath(row *models.CollectionRow, j *models.JobDetail) string {
	return web.JobFeedPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name, s.feedToken(j.ID))
}

// errNoFeed answers every feed request that is not exactly right, so that
// a feed URL tells nothing about which jobs exist.
var errNoFeed = echo.NewHTTPError(http.StatusNotFound, "There is no such calendar feed.")

// jobFeed serves GET /c/{ws}/{rg}/{jc}/jobs/{job}/calendar.ics?token=…: no
// session, only the job's token; anything wrong is 404.
func (s *Server) jobFeed(c echo.Context) error {
	ctx := c.Request().Context()
	row, err := s.store.CollectionByRef(ctx, models.CollectionRef{WorkspaceID: c.Param("ws"), ResourceGroup: c.Param("rg"), Name: c.Param("jc")})
	if errors.Is(err, models.ErrNotFound) {
		return errNoFeed
	}
	if err != nil {
		return err
	}
	j, err := s.store.JobDetail(ctx, row.ID, c.Param("job"))
	if errors.Is(err, models.ErrNotFound) {
		return errNoFeed
	}
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(c.QueryParam("token")), []byte(s.feedToken(j.ID))) {
		return errNoFeed
	}
	c.Response().Header().Set("Cache-Control", "private, max-age=300")
	c.Response().Header().Set("Content-Disposition", `inline; filename="`+feedFileName(j.Name)+`.ics"`)
	v, err := s.jobFeedView(c, row, j)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", web.JobFeedICS(v))
}

// jobFeedView lists the job's coming occurrences as the job page does
// (nextOccurrences with the workspace's calendars: as the engine will run
// them), up to web.FeedMaxEvents and web.FeedHorizon.
func (s *Server) jobFeedView(c echo.Context, row *models.CollectionRow, j *models.JobDetail) (web.JobFeed, error) {
	now := s.clock()
	pj, err := s.parseStoredIn(c.Request().Context(), row.WorkspaceID, j.Definition)
	if err != nil {
		// Without its calendars the feed would list excluded runs.
		return web.JobFeed{}, fmt.Errorf("job feed: %w", err)
	}
	page := s.absoluteURL(c, web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name))
	host := "sked"
	if u, err := url.Parse(s.absoluteURL(c, "/")); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	next := nextOccurrences(j, pj.Job, now, web.FeedMaxEvents, pj.Cals)
	return web.NewJobFeed(row, j, pj.Job, next, now, page, host), nil
}

// feedFileName keeps letters, digits, '-' and '_' of a job name for the
// download's file name.
func feedFileName(name string) string {
	out := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return r
		}
		return '-'
	}, name)
	if out == "" {
		return "job"
	}
	return out
}
