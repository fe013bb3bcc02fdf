package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/catalog"
)

// signingAPI is the route of a collection's signing secret (SPEC §13.3,
// signed job requests).
const signingAPI = "/api/v1/workspaces/:ws/collections/:rg/:jc/signing-secret"

// signingStatus is the answer of GET …/signing-secret: whether the
// collection signs, never the secret.
type signingStatus struct {
	Enabled            bool       `json:"enabled"`
	CreatedAt          *time.Time `json:"createdAt,omitempty"`
	UpdatedAt          *time.Time `json:"updatedAt,omitempty"`
	PreviousValidUntil *time.Time `json:"previousValidUntil,omitempty"`
}

// newSigningAnswer is the answer of POST …/signing-secret.
type newSigningAnswer struct {
	// Secret is shown here once and never again.
	Secret             string     `json:"secret"`
	Rotated            bool       `json:"rotated"`
	PreviousValidUntil *time.Time `json:"previousValidUntil,omitempty"`
}

// apiCollectionRef is the collection of a signing route, in a workspace
// the token's user is a member of.
func (s *Server) apiCollectionRef(c echo.Context) (models.CollectionRef, error) {
	ws, err := s.memberWorkspace(c, c.Param("ws"))
	if err != nil {
		return models.CollectionRef{}, err
	}
	return models.CollectionRef{WorkspaceID: ws, ResourceGroup: c.Param("rg"), Name: c.Param("jc")}, nil
}

// apiGetSigning answers GET …/signing-secret: {"enabled": false} for a
// collection that does not sign, else its times and how long a rotated
// secret still signs.
func (s *Server) apiGetSigning(c echo.Context) error {
	ref, err := s.apiCollectionRef(c)
	if err != nil {
		return err
	}
	row, err := s.store.CollectionByRef(c.Request().Context(), ref)
	if err != nil {
		return err
	}
	g, err := s.store.SigningOf(c.Request().Context(), row.ID)
	if errors.Is(err, models.ErrNotFound) {
		return c.JSON(http.StatusOK, signingStatus{})
	}
	if err != nil {
		return err
	}
	out := signingStatus{Enabled: true, CreatedAt: utcPtr(g.CreatedAt), UpdatedAt: utcPtr(g.UpdatedAt)}
	if g.Previous != "" && g.PreviousUntil != nil && s.clock().Before(*g.PreviousUntil) {
		out.PreviousValidUntil = utcPtr(*g.PreviousUntil)
	}
	return c.JSON(http.StatusOK, out)
}

// apiNewSigning answers POST …/signing-secret: a new secret, shown once
// (201). When the collection signs already this rotates: the optional
// body {"overlap": "PT24H"} says how long the old secret keeps signing
// (default a day, at most 30 days; "PT0S" stops it at once).
func (s *Server) apiNewSigning(c echo.Context) error {
	ref, err := s.apiCollectionRef(c)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("new signing secret: read body: %w", err)
	}
	overlap := catalog.DefaultSigningOverlap
	if len(body) > 0 {
		var in struct {
			Overlap *string `json:"overlap"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return badRequest("body", `must be a JSON object such as {"overlap": "PT24H"}`)
		}
		if in.Overlap != nil {
			d, err := jobdef.ParseISODuration(*in.Overlap)
			if err != nil {
				return badRequest("overlap", fmt.Sprintf("%q is not an ISO 8601 duration such as PT24H", *in.Overlap))
			}
			overlap = d
		}
	}
	out, err := s.collections.NewSigningSecret(c.Request().Context(), actorOf(c), ref, overlap)
	if err != nil {
		return err
	}
	s.log.Info("signing secret created", "workspace", ref.WorkspaceID, "resource_group", ref.ResourceGroup,
		"collection", ref.Name, "rotated", out.Rotated, "user", currentUser(c).Username)
	return c.JSON(http.StatusCreated, newSigningAnswer{Secret: out.Secret, Rotated: out.Rotated, PreviousValidUntil: out.PreviousUntil})
}

// apiDeleteSigning answers DELETE …/signing-secret: 200, or 404 when the
// collection does not sign.
func (s *Server) apiDeleteSigning(c echo.Context) error {
	ref, err := s.apiCollectionRef(c)
	if err != nil {
		return err
	}
	if err := s.collections.RemoveSigningSecret(c.Request().Context(), actorOf(c), ref); err != nil {
		if status, _ := classify(err); status == http.StatusNotFound {
			return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The job collection %s has no signing secret.", ref.Name))
		}
		return err
	}
	s.log.Info("signing secret removed", "workspace", ref.WorkspaceID, "resource_group", ref.ResourceGroup,
		"collection", ref.Name, "user", currentUser(c).Username)
	return c.JSON(http.StatusOK, signingStatus{})
}

// utcPtr is t in UTC, by address.
func utcPtr(t time.Time) *time.Time {
	u := t.UTC()
	return &u
}
