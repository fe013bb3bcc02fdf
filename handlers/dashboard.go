package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/web"
)

// dashboard shows the collections the user may see.
func (s *Server) dashboard(c echo.Context) error {
	rows, err := s.store.CollectionSummaries(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	d := web.Dashboard{}
	for _, r := range rows {
		d.Collections = append(d.Collections, web.CollectionRow{
			Workspace: r.WorkspaceID, ResourceGroup: r.ResourceGroup, Name: r.Name,
			State: r.State, SKU: r.SKU,
			Enabled: r.Enabled, Disabled: r.Disabled, Completed: r.Completed, Faulted: r.Faulted,
		})
	}
	return render(c, http.StatusOK, web.DashboardPage(page(c, "Dashboard"), d))
}
