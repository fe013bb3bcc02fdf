package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
)

// pageCollection loads the collection of a page path after checking that
// the user is a member of its workspace (404 otherwise, as for a
// collection that does not exist).
func (s *Server) pageCollection(c echo.Context) (*models.CollectionRow, error) {
	ctx := c.Request().Context()
	ws, ok, err := s.store.MemberWorkspace(ctx, c.Param("ws"), currentUser(c).ID)
	if err != nil {
		return nil, err
	}
	notFound := echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no job collection %q in %s / %s that you may see.",
		c.Param("jc"), c.Param("ws"), c.Param("rg")))
	if !ok {
		return nil, notFound
	}
	row, err := s.store.CollectionByRef(ctx, models.CollectionRef{WorkspaceID: ws, ResourceGroup: c.Param("rg"), Name: c.Param("jc")})
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound
	}
	return row, err
}
