package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// signingView is the #collection-signing panel of a collection; edit (may
// be nil) changes its input (a new secret, a message) first.
func (s *Server) signingView(c echo.Context, row *models.CollectionRow, edit func(*web.SigningIn)) (web.SigningPanel, error) {
	g, err := s.store.SigningOf(c.Request().Context(), row.ID)
	if errors.Is(err, models.ErrNotFound) {
		g, err = nil, nil
	}
	if err != nil {
		return web.SigningPanel{}, err
	}
	in := web.SigningIn{Workspace: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Collection: row.Name,
		CSRFToken: csrfToken(c), CanEdit: web.CanFor(string(s.roleIn(c, row.WorkspaceID))).Edit, Signing: g}
	if edit != nil {
		edit(&in)
	}
	return web.NewSigningPanel(in, s.userZone(c), s.clock()), nil
}

// renderSigning answers a signing form: the panel for htmx, else the
// collection page with it (the new secret must be seen, so no redirect).
func (s *Server) renderSigning(c echo.Context, row *models.CollectionRow, edit func(*web.SigningIn)) error {
	panel, err := s.signingView(c, row, edit)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return render(c, http.StatusOK, web.SigningFragment(panel))
	}
	v, err := s.collectionView(c, row, "")
	if err != nil {
		return err
	}
	v.Signing = panel
	return render(c, http.StatusOK, web.CollectionPage(page(c, row.Name), v))
}

// signingNew makes a signing secret for the collection, or rotates it
// (field overlap: how long the old one keeps signing, a
// web.SigningOverlaps value); the secret is shown once in the answer.
func (s *Server) signingNew(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	overlap, ok := web.SigningOverlap(c.FormValue("overlap"))
	if !ok {
		return badRequest("overlap", fmt.Sprintf("%q is not one of 24h, 1h, 7d, 0", c.FormValue("overlap")))
	}
	ref := models.CollectionRef{WorkspaceID: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name}
	out, err := s.collections.NewSigningSecret(c.Request().Context(), actorOf(c), ref, overlap)
	if err != nil {
		return err
	}
	s.log.Info("signing secret created", "workspace", ref.WorkspaceID, "resource_group", ref.ResourceGroup,
		"collection", ref.Name, "rotated", out.Rotated, "user", currentUser(c).Username)
	return s.renderSigning(c, row, func(in *web.SigningIn) {
		in.NewSecret, in.Message = out.Secret, "Signing secret made: the next requests are signed with it."
		if out.Rotated {
			in.Message = "Signing secret rotated: the next requests are signed with the new one."
		}
	})
}

// signingRemove stops signing the collection's requests.
func (s *Server) signingRemove(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	ref := models.CollectionRef{WorkspaceID: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name}
	if err := s.collections.RemoveSigningSecret(c.Request().Context(), actorOf(c), ref); err != nil && !errors.Is(err, models.ErrNotFound) {
		return err
	}
	s.log.Info("signing secret removed", "workspace", ref.WorkspaceID, "resource_group", ref.ResourceGroup,
		"collection", ref.Name, "user", currentUser(c).Username)
	return s.renderSigning(c, row, func(in *web.SigningIn) {
		in.Message = "The collection's requests are no longer signed."
	})
}
