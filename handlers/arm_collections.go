package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
)

// listCollections answers GET …/jobCollections, by subscription or by
// resource group, paged with $top and $skip.
func (s *Server) listCollections(c echo.Context) error {
	p, err := parsePaging(c)
	if err != nil {
		return err
	}
	rows, err := s.store.ListCollections(c.Request().Context(), models.ListCollectionsParams{WorkspaceID: c.Param("sub"),
		ResourceGroup: c.Param("rg"), Skip: p.skip, Limit: p.top + 1})
	if err != nil {
		return err
	}
	next := s.nextLink(c, p, len(rows))
	value, err := s.armCollections(c.Request().Context(), rows[:min(len(rows), p.top)])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, armList[armCollection]{Value: value, NextLink: next})
}

// getCollection answers GET …/jobCollections/{jc}.
func (s *Server) getCollection(c echo.Context) error {
	row, err := s.collection(c)
	if err != nil {
		return err
	}
	return s.answerCollection(c, http.StatusOK, row, "")
}

// putCollection answers PUT …/jobCollections/{jc}: 201 created, 200
// replaced.
func (s *Server) putCollection(c echo.Context) error {
	body, err := readBody(c, maxAPIBody)
	if err != nil {
		return err
	}
	w, err := s.collections.PutCollectionWrite(c.Request().Context(), actorOf(c), collectionRef(c), body)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if w.Created {
		status = http.StatusCreated
	}
	s.logSigningWrite(c, w)
	return s.answerCollection(c, status, w.Row, w.Secret)
}

// patchCollection answers PATCH …/jobCollections/{jc}.
func (s *Server) patchCollection(c echo.Context) error {
	body, err := readBody(c, maxAPIBody)
	if err != nil {
		return err
	}
	w, err := s.collections.PatchCollectionWrite(c.Request().Context(), actorOf(c), collectionRef(c), body)
	if err != nil {
		return err
	}
	s.logSigningWrite(c, w)
	return s.answerCollection(c, http.StatusOK, w.Row, w.Secret)
}

// deleteCollection answers DELETE …/jobCollections/{jc}: 200, at once.
func (s *Server) deleteCollection(c echo.Context) error {
	if err := s.collections.DeleteCollection(c.Request().Context(), actorOf(c), collectionRef(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// enableCollection answers POST …/jobCollections/{jc}/enable.
func (s *Server) enableCollection(c echo.Context) error {
	return s.setCollectionState(c, models.CollectionEnabled)
}

// disableCollection answers POST …/jobCollections/{jc}/disable.
func (s *Server) disableCollection(c echo.Context) error {
	return s.setCollectionState(c, models.CollectionDisabled)
}

func (s *Server) setCollectionState(c echo.Context, state models.CollectionState) error {
	if _, err := s.collections.SetCollectionState(c.Request().Context(), actorOf(c), collectionRef(c), state); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// collection loads the collection of the path; a missing one is a 404
// naming it.
func (s *Server) collection(c echo.Context) (*models.CollectionRow, error) {
	ref := collectionRef(c)
	row, err := s.store.CollectionByRef(c.Request().Context(), ref)
	if errors.Is(err, models.ErrNotFound) {
		return nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf(
			"The job collection %q was not found in resource group %q.", ref.Name, ref.ResourceGroup))
	}
	return row, err
}

// job loads the job of the path in coll; a missing one is a 404 naming it.
func (s *Server) job(c echo.Context, coll *models.CollectionRow) (*models.Job, error) {
	j, err := s.store.JobByName(c.Request().Context(), coll.ID, c.Param("job"))
	if errors.Is(err, models.ErrNotFound) {
		return nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf(
			"The job %q was not found in job collection %q.", c.Param("job"), coll.Name))
	}
	return j, err
}
