package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
)

// What every request of the ARM API (SPEC §7) goes through: its paths'
// fixed segments in canonical case, an x-ms-request-id, a known
// api-version and a subscription (workspace) the user is a member of; and
// what its lists read and answer: $filter and nextLink.

// apiVersions are the api-version values the REST API accepts.
var apiVersions = []string{"2016-03-01", "2016-01-01", "2014-08-01-preview"}

// armKeywords maps the fixed segments of the ARM paths, lowercase, to
// their canonical spelling.
var armKeywords = map[string]string{
	"subscriptions": "subscriptions", "resourcegroups": "resourceGroups", "providers": "providers",
	"microsoft.scheduler": "Microsoft.Scheduler", "jobcollections": "jobCollections", "jobs": "jobs",
	"history": "history", "run": "run", "enable": "enable", "disable": "disable",
}

// canonicalARMPath rewrites the fixed segments of an ARM path to their
// canonical case before routing (ARM paths are case-insensitive); names
// keep their spelling. Other paths are left alone.
func canonicalARMPath(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		segs := strings.Split(r.URL.Path, "/")
		if len(segs) < 2 || !strings.EqualFold(segs[1], "subscriptions") {
			return next(c)
		}
		keyword := func(i int) {
			if i < len(segs) {
				if k, ok := armKeywords[strings.ToLower(segs[i])]; ok {
					segs[i] = k
				}
			}
		}
		keyword(1)
		if len(segs) > 3 && strings.EqualFold(segs[3], "providers") {
			for _, i := range []int{3, 4, 5} {
				keyword(i)
			}
		} else {
			for _, i := range []int{3, 5, 6, 7, 9, 11} {
				keyword(i)
			}
		}
		r.URL.Path = strings.Join(segs, "/")
		r.URL.RawPath = ""
		return next(c)
	}
}

// headerRequestID is the response header with the request's id.
const headerRequestID = "x-ms-request-id"

// requestID gives every response an x-ms-request-id, as the original
// service did.
func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var b [16]byte
		_, _ = rand.Read(b[:])
		h := hex.EncodeToString(b[:])
		c.Response().Header().Set(headerRequestID, h[0:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:])
		return next(c)
	}
}

// armRequest checks what every ARM request needs after the token: a known
// api-version, and a workspace (subscription) the user is a member of
// (403 otherwise, also for a workspace that does not exist).
func (s *Server) armRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		v := c.QueryParam("api-version")
		if v == "" {
			return badRequest("api-version", "the query parameter api-version is required (use 2016-03-01)")
		}
		known := false
		for _, a := range apiVersions {
			known = known || a == v
		}
		if !known {
			return badRequest("api-version", fmt.Sprintf("%q is not supported: use one of %s", v, strings.Join(apiVersions, ", ")))
		}
		user := currentUser(c)
		sub := c.Param("sub")
		id, ok, err := s.store.MemberWorkspace(c.Request().Context(), sub, user.ID)
		if err != nil {
			return err
		}
		if !ok {
			return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf(
				"The user %q has no access to subscription %q (a Sked workspace): ask a member to add you.", user.Username, sub))
		}
		c.SetParamValues(replaceParam(c, "sub", id)...)
		return next(c)
	}
}

// collectionRef is the collection named by the path.
func collectionRef(c echo.Context) models.CollectionRef {
	return models.CollectionRef{WorkspaceID: c.Param("sub"), ResourceGroup: c.Param("rg"), Name: c.Param("jc")}
}

// parseFilter reads a $filter of the form "<field> eq <value>" (value
// optionally quoted, case-insensitive) and returns the value in the
// spelling of allowed, or "" when there is no filter.
func parseFilter[T ~string](c echo.Context, field string, allowed []T) (T, error) {
	v := strings.TrimSpace(c.QueryParam("$filter"))
	if v == "" {
		return "", nil
	}
	parts := strings.Fields(v)
	if len(parts) != 3 || !strings.EqualFold(parts[0], field) || !strings.EqualFold(parts[1], "eq") {
		return "", badRequest("$filter", fmt.Sprintf("%q is not supported: use \"%s eq <value>\"", v, field))
	}
	val := strings.Trim(parts[2], `'"`)
	for _, a := range allowed {
		if strings.EqualFold(string(a), val) {
			return a, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return "", badRequest("$filter", fmt.Sprintf("%q is not a %s: use one of %s", val, field, strings.Join(names, ", ")))
}

// nextLink returns the URL of the page after p, or "" when page was the
// last (it held fewer than p.top items).
func (s *Server) nextLink(c echo.Context, p paging, got int) string {
	if got <= p.top {
		return ""
	}
	q := c.Request().URL.Query()
	q.Set("$skip", strconv.Itoa(p.skip+p.top))
	q.Set("$top", strconv.Itoa(p.top))
	u := url.URL{Path: c.Request().URL.Path, RawQuery: q.Encode()}
	return s.absoluteURL(c, u.String())
}

// replaceParam returns the path parameter values with name set to value.
func replaceParam(c echo.Context, name, value string) []string {
	names, values := c.ParamNames(), append([]string(nil), c.ParamValues()...)
	for i, n := range names {
		if n == name && i < len(values) {
			values[i] = value
		}
	}
	return values
}
