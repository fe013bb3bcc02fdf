package handlers

import (
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/static"
)

// staticFile serves an embedded static file. A request whose v query is the
// file's current content hash may be cached for a year (immutable); any
// other must be revalidated.
func (s *Server) staticFile(c echo.Context) error {
	name := strings.TrimPrefix(path.Clean("/"+c.Param("*")), "/")
	body, err := fs.ReadFile(static.FS, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "is a directory") {
			return echo.ErrNotFound
		}
		return err
	}
	h := c.Response().Header()
	version := static.Version(name)
	if v := c.QueryParam("v"); v != "" && v == version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", `"`+version+`"`)
	if match := c.Request().Header.Get("If-None-Match"); match == `"`+version+`"` {
		return c.NoContent(http.StatusNotModified)
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return c.Blob(http.StatusOK, ctype, body)
}
