package handlers

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIPath is where the OpenAPI document is served (SPEC §15.2).
const openAPIPath = "/api/openapi.json"

// openAPIDocument is the OpenAPI 3.1 document of every route under
// /api/v1/ and of the Azure Scheduler routes: their parameters, request
// and response schemas (JSON Schema 2020-12), the bearer token and the
// one error shape. It is written by hand; TestOpenAPICoversTheRoutes
// fails when it and the route table disagree, and the handler tests
// validate every API request and answer they make against it.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIETag is the document's entity tag: a digest of its bytes, so
// that it changes with every release that changes the document.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDocument)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}()

// openAPI answers GET /api/openapi.json with the OpenAPI document. It needs
// no sign-in; caches may keep it for five minutes and then revalidate it
// with If-None-Match (304 while it is unchanged).
func (s *Server) openAPI(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", openAPIETag)
	if c.Request().Header.Get("If-None-Match") == openAPIETag {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}
