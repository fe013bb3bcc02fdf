package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/web"
)

// The collection page (SPEC §9): its state and quota with the enable and
// disable forms and the "Why is it paused?" note (SPEC §13.2), its jobs
// (keyset pages by name), its signing secret and alert rules. Each handler
// parses, makes one call (a view builder below or one catalog change) and
// renders: the whole page for normal requests, only the swapped fragment
// for htmx. Changes are POST forms (CSRF checked by the middleware)
// answered with the new fragment (htmx) or a redirect.

// collectionPage shows a collection; htmx gets the job list (paging).
func (s *Server) collectionPage(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		list, err := s.jobListView(c.Request().Context(), row, c.QueryParam("after"), s.clock())
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, web.JobListFragment(list))
	}
	v, err := s.collectionView(c, row, c.QueryParam("after"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.CollectionPage(page(c, row.Name), v))
}

// collectionEnable and collectionDisable change a collection's state;
// disabling takes the form's optional note (SPEC §13.2).
func (s *Server) collectionEnable(c echo.Context) error {
	return s.setCollectionPageState(c, models.CollectionEnabled)
}

func (s *Server) collectionDisable(c echo.Context) error {
	return s.setCollectionPageState(c, models.CollectionDisabled)
}

func (s *Server) setCollectionPageState(c echo.Context, state models.CollectionState) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	ref := models.CollectionRef{WorkspaceID: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name}
	if row, err = s.collections.SetCollectionStateNote(c.Request().Context(), actorOf(c), ref, state, c.FormValue("note")); err != nil {
		return err
	}
	msg := "The collection is enabled: its jobs run on their schedules again."
	if state != models.CollectionEnabled {
		msg = "The collection is disabled: none of its jobs runs until it is enabled again."
	}
	if !isHTMX(c) {
		if err := addFlash(c, msg); err != nil {
			return err
		}
		return redirect(c, web.CollectionPath(row.WorkspaceID, row.ResourceGroup, row.Name))
	}
	st, err := s.collectionStatusView(c, row, msg)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.CollectionStatusFragment(st))
}

// collectionNote changes the note of a collection that is not Enabled
// (the "Why is it paused?" form) through the catalog's state-note write
// (audited, the role of a disable). A refused note comes back in place
// (422, the field named and the typed note kept) and changes nothing; a
// note for an enabled collection is a 400 (notPaused).
func (s *Server) collectionNote(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	if row.State == models.CollectionEnabled {
		return notPaused("the collection is enabled: disable it to say why")
	}
	note := c.FormValue("note")
	ref := models.CollectionRef{WorkspaceID: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name}
	changed, err := s.collections.SetCollectionStateNote(c.Request().Context(), actorOf(c), ref, row.State, note)
	refused := problem.As(err)
	if err != nil && refused == nil {
		return err
	}
	const saved = "The note is saved."
	if refused == nil && !isHTMX(c) {
		if err := addFlash(c, saved); err != nil {
			return err
		}
		return redirect(c, web.CollectionPath(row.WorkspaceID, row.ResourceGroup, row.Name))
	}
	if refused == nil {
		st, err := s.collectionStatusView(c, changed, saved)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, web.CollectionStatusFragment(st))
	}
	why := refused.Problems[0].Sentence()
	if isHTMX(c) {
		st, err := s.collectionStatusView(c, row, "")
		if err != nil {
			return err
		}
		st.NoteEdit = st.NoteEdit.Refused(note, why)
		return render(c, statusUnprocessable, web.CollectionStatusFragment(st))
	}
	v, err := s.collectionView(c, row, "")
	if err != nil {
		return err
	}
	v.Status.NoteEdit = v.Status.NoteEdit.Refused(note, why)
	return render(c, statusUnprocessable, web.CollectionPage(page(c, row.Name), v))
}

// collectionView is the whole collection page.
func (s *Server) collectionView(c echo.Context, row *models.CollectionRow, after string) (web.CollectionPageView, error) {
	flash, err := takeFlash(c)
	if err != nil {
		return web.CollectionPageView{}, err
	}
	v := web.NewCollectionPageView(row, flash)
	v.Can = web.CanFor(string(s.roleIn(c, row.WorkspaceID)))
	if v.LastChanged, err = s.lastChanged(c.Request().Context(), row.WorkspaceID,
		models.AuditCollectionResource(row.ResourceGroup, row.Name)); err != nil {
		return v, err
	}
	if v.Status, err = s.collectionStatusView(c, row, ""); err != nil {
		return v, err
	}
	if v.Jobs, err = s.jobListView(c.Request().Context(), row, after, s.clock()); err != nil {
		return v, err
	}
	if v.Signing, err = s.signingView(c, row, nil); err != nil {
		return v, err
	}
	v.Alerts, err = s.alertsView(c, row.WorkspaceID, alertScope{ResourceGroup: row.ResourceGroup, Collection: row.Name}, nil)
	return v, err
}

// collectionStatusView is the state and quota fragment of a collection.
func (s *Server) collectionStatusView(c echo.Context, row *models.CollectionRow, msg string) (web.CollectionStatus, error) {
	n, err := s.store.CountJobsUpTo(c.Request().Context(), row.ID, row.Quota().MaxJobCount+1)
	if err != nil {
		return web.CollectionStatus{}, err
	}
	st := web.NewCollectionStatus(row, n, csrfToken(c), msg)
	st.StateNote = web.NewCollectionStateNote(row, s.clock())
	st.Allow(web.CanFor(string(s.roleIn(c, row.WorkspaceID))))
	return st, nil
}

// jobListView is a page of a collection's jobs: those named after after,
// in name order (keyset).
func (s *Server) jobListView(ctx context.Context, row *models.CollectionRow, after string, now time.Time) (web.JobList, error) {
	jobs, err := s.store.CollectionJobs(ctx, row.ID, after, web.JobListPageSize+1)
	if err != nil {
		return web.JobList{}, err
	}
	cals, err := s.catalog.WorkspaceCalendars(ctx, row.WorkspaceID)
	if err != nil {
		return web.JobList{}, err
	}
	items := make([]web.JobListItem, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		pj := web.ParseStored(j.Definition).With(cals)
		items[i] = web.JobListItem{Job: j, Stored: pj}
		if i < web.JobListPageSize {
			items[i].Next = nextOccurrences(&models.JobDetail{Job: j.Job}, pj.Job, now, 1, cals)
		}
	}
	return web.NewJobList(row, after, items, now), nil
}
