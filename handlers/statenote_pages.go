package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/web"
)

// The "Why is it paused?" forms of the job and collection pages (SPEC
// §13.2): they change the note of a job or collection that is paused
// already, through the catalog's state-note writes (audited, the role of
// a disable). A refused note comes back in place (422, the field named
// and the typed note kept) and changes nothing; so does a note for a job
// or collection that is not paused (400).

// jobNote changes the note of a disabled job.
func (s *Server) jobNote(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	if j.State != jobdef.Disabled {
		return notPaused("the job is not disabled: disable it to say why")
	}
	note := c.FormValue("note")
	err = s.jobs.DisableJobNote(c.Request().Context(), actorOf(c), row, &j.Job, note)
	refused := problem.As(err)
	if err != nil && refused == nil {
		return err
	}
	const saved = "The note is saved."
	if refused == nil && !isHTMX(c) {
		if err := addFlash(c, saved); err != nil {
			return err
		}
		return redirect(c, web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name))
	}
	if refused == nil {
		if j, err = s.store.JobDetail(c.Request().Context(), row.ID, j.Name); err != nil {
			return err
		}
		st, err := s.jobStatusView(c, row, j, saved, "")
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, web.JobActionFragment(st))
	}
	why := refused.Problems[0].Sentence()
	if isHTMX(c) {
		st, err := s.jobStatusView(c, row, j, "", "")
		if err != nil {
			return err
		}
		st.NoteEdit = st.NoteEdit.Refused(note, why)
		return render(c, statusUnprocessable, web.JobActionFragment(st))
	}
	p, _ := parseHistoryParams(c)
	v, err := s.jobView(c, row, j, p, false)
	if err != nil {
		return err
	}
	v.Status.NoteEdit = v.Status.NoteEdit.Refused(note, why)
	return render(c, statusUnprocessable, web.JobPage(page(c, j.Name), v))
}

// collectionNote changes the note of a collection that is not Enabled.
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

// notPaused refuses a note for a job or collection that is not paused
// (there is no form for it: a 400 naming stateNote), changing nothing.
func notPaused(msg string) error {
	return &problem.List{Problems: []problem.Problem{{Path: "stateNote", Message: msg}}}
}
