package handlers

import (
	"context"
	"fmt"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
)

// armSigning is properties.signing of an ARM collection (SPEC §13.3,
// signed job requests): whether the collection signs its jobs' requests.
// On input only enabled counts (the catalog reads it); the times are
// read-only.
type armSigning struct {
	Enabled bool `json:"enabled"`
	// Secret is in the answer of the PUT or PATCH that generated it, once,
	// and never again.
	Secret    string     `json:"secret,omitempty"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
	// PreviousValidUntil is when the secret a rotation replaced stops
	// signing, while it still does.
	PreviousValidUntil *time.Time `json:"previousValidUntil,omitempty"`
}

// withSigning sets out's properties.signing from st (nil: the collection
// does not sign) at now.
func withSigning(out *armCollection, st *models.SigningStatus, now time.Time) {
	if st == nil {
		out.Properties.Signing = armSigning{}
		return
	}
	out.Properties.Signing = armSigning{Enabled: true, CreatedAt: utcPtr(st.CreatedAt)}
	if st.PreviousUntil != nil && now.Before(*st.PreviousUntil) {
		out.Properties.Signing.PreviousValidUntil = utcPtr(*st.PreviousUntil)
	}
}

// armCollections writes rows with their signing status, read in one
// query.
func (s *Server) armCollections(ctx context.Context, rows []models.CollectionRow) ([]armCollection, error) {
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	sts, err := s.store.SigningStatuses(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("collections: %w", err)
	}
	now := s.clock()
	out := make([]armCollection, len(rows))
	for i := range rows {
		out[i] = toARMCollection(&rows[i])
		if st, ok := sts[rows[i].ID]; ok {
			withSigning(&out[i], &st, now)
		}
	}
	return out, nil
}

// answerCollection answers with row in the ARM shape and status, with the
// signing secret a write generated (secret; "": none) shown this once.
func (s *Server) answerCollection(c echo.Context, status int, row *models.CollectionRow, secret string) error {
	out, err := s.armCollections(c.Request().Context(), []models.CollectionRow{*row})
	if err != nil {
		return err
	}
	if secret != "" {
		out[0].Properties.Signing.Secret = secret
	}
	return c.JSON(status, out[0])
}

// logSigningWrite logs a change of the signing secret that a PUT or PATCH
// of a collection made, like the signing-secret routes do (never the
// secret).
func (s *Server) logSigningWrite(c echo.Context, w *catalog.CollectionWrite) {
	ref := collectionRef(c)
	switch {
	case w.Secret != "":
		s.log.Info("signing secret created", "workspace", ref.WorkspaceID, "resource_group", w.Row.ResourceGroup,
			"collection", w.Row.Name, "rotated", false, "user", actorOf(c).UserName)
	case w.SigningRemoved:
		s.log.Info("signing secret removed", "workspace", ref.WorkspaceID, "resource_group", w.Row.ResourceGroup,
			"collection", w.Row.Name, "user", actorOf(c).UserName)
	}
}
