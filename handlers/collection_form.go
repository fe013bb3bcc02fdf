package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/web"
)

// newCollectionPage shows the new collection form, for the workspace of
// ?ws= (the header's switcher) when set; one the user is not a member of
// is a 400 naming ws.
func (s *Server) newCollectionPage(c echo.Context) error {
	ws, err := s.queryWorkspace(c, strings.TrimSpace(c.QueryParam("ws")))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.NewCollectionPage(page(c, "New job collection"),
		web.NewCollectionForm{Workspace: ws, ResourceGroup: "default", SKU: models.SKUStandard}))
}

// newCollectionSubmit creates a collection in the form's workspace (ws),
// else in the user's first workspace, and opens it; a name already taken, or an invalid one, re-renders the
// form with 422.
func (s *Server) newCollectionSubmit(c echo.Context) error {
	ctx := c.Request().Context()
	f := web.NewCollectionForm{
		Name:          strings.TrimSpace(c.FormValue("collection_name")),
		ResourceGroup: strings.TrimSpace(c.FormValue("resource_group")),
		SKU:           c.FormValue("sku"),
	}
	ws, err := s.queryWorkspace(c, strings.TrimSpace(c.FormValue("ws")))
	if err != nil {
		return err
	}
	f.Workspace = ws
	if ws == "" {
		wss, err := s.store.WorkspacesOf(ctx, currentUser(c).ID)
		if err != nil {
			return err
		}
		if len(wss) == 0 {
			return echo.NewHTTPError(http.StatusForbidden, "You are not a member of any workspace.")
		}
		ws = wss[0].ID
	}
	ref := models.CollectionRef{WorkspaceID: ws, ResourceGroup: f.ResourceGroup, Name: f.Name}
	if _, err := s.store.CollectionByRef(ctx, ref); err == nil {
		f.Errors = web.FieldErrors{"collection_name": fmt.Sprintf("A collection named %q already exists in resource group %q.", f.Name, f.ResourceGroup)}
		return s.renderCollectionForm(c, f)
	} else if !errors.Is(err, models.ErrNotFound) {
		return err
	}
	body := fmt.Sprintf(`{"properties":{"sku":{"name":%q}}}`, f.SKU)
	row, _, err := s.collections.PutCollection(ctx, actorOf(c), ref, []byte(body))
	if ve := problem.As(err); ve != nil {
		f.Errors = web.FieldErrors{}
		for _, p := range ve.Problems {
			switch p.Path {
			case "jobCollectionName":
				f.Errors["collection_name"] = p.Message
			case "resourceGroupName":
				f.Errors["resource_group"] = p.Message
			default:
				f.Problems = append(f.Problems, p.String())
			}
		}
		return s.renderCollectionForm(c, f)
	} else if err != nil {
		return err
	}
	return redirect(c, web.CollectionPath(row.WorkspaceID, row.ResourceGroup, row.Name))
}

func (s *Server) renderCollectionForm(c echo.Context, f web.NewCollectionForm) error {
	if isHTMX(c) {
		return render(c, statusUnprocessable, web.NewCollectionFragment(csrfToken(c), f))
	}
	return render(c, statusUnprocessable, web.NewCollectionPage(page(c, "New job collection"), f))
}
