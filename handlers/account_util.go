package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// errNotAdmin answers non-administrators on the users pages.
var errNotAdmin = echo.NewHTTPError(http.StatusForbidden, "Only administrators can manage users.")

// requireAdmin lets administrators through; it runs after requireUser.
func requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u == nil || !u.IsAdmin {
			return errNotAdmin
		}
		return next(c)
	}
}

// accountPathID is the path parameter name as a positive int64; anything else is
// a 404, as for an unknown id.
func accountPathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusNotFound, "Not found.")
	}
	return id, nil
}

// accountTimeView formats t (in UTC, with how far it is from now) for the
// pages.
func accountTimeView(t, now time.Time) web.AccountTime {
	return web.AccountTimeAt(t, now) // the one format of every page
}

// accountOptionalTime is accountTimeView, or the zero AccountTime ("never") for nil.
func accountOptionalTime(t *time.Time, now time.Time) web.AccountTime {
	if t == nil {
		return web.AccountTime{}
	}
	return accountTimeView(*t, now)
}
