package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/web"
)

// The job page (SPEC §9): its status with run now, enable and disable and
// the "Why is it paused?" note (SPEC §13.2), its timeline, history table
// and trends, the delete confirmation and the export. The history page
// and its fragments are in history_page.go. Each handler parses, makes one
// call (a view builder below or one catalog change) and renders: the
// whole page for normal requests, only the swapped fragment for htmx.
// Changes are POST forms (CSRF checked by the middleware) answered with
// the new fragment (htmx) or a redirect.

// jobPage shows a job; htmx gets its status fragment.
func (s *Server) jobPage(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	p, err := parseHistoryParams(c)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		st, err := s.jobStatusView(c, row, j, "", "")
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, web.JobStatusFragment(st))
	}
	v, err := s.jobView(c, row, j, p, false)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.JobPage(page(c, j.Name), v))
}

// jobView is the whole job page (or the history page).
func (s *Server) jobView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, p web.HistoryParams, historyOnly bool) (web.JobPageView, error) {
	ctx := c.Request().Context()
	now := s.clock()
	pj, err := s.parseStoredIn(ctx, row.WorkspaceID, j.Definition)
	if err != nil {
		return web.JobPageView{}, err
	}
	v := web.NewJobPageView(row, j, pj, s.absoluteURL(c, s.feedPath(row, j)), p, historyOnly)
	v.Can = web.CanFor(string(s.roleIn(c, row.WorkspaceID)))
	if !historyOnly {
		flash, err := takeFlash(c)
		if err != nil {
			return v, err
		}
		if v.Status, err = s.jobStatusView(c, row, j, flash, ""); err != nil {
			return v, err
		}
		if v.LastChanged, err = s.lastChanged(ctx, row.WorkspaceID, models.AuditJobResource(row.ResourceGroup, row.Name, j.Name)); err != nil {
			return v, err
		}
		if v.Can.Edit && pj.Job != nil && pj.Job.Action != nil && pj.Job.Action.Request != nil {
			v.RunChanges = &web.RunChangesForm{URL: web.JobRunPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name),
				CSRFToken: csrfToken(c)}
		}
		if v.Backfill, err = s.backfillPanel(c, row, j, v.Can); err != nil {
			return v, err
		}
		if v.Deadline, err = s.deadlineView(ctx, row, j, pj, now); err != nil {
			return v, err
		}
		if v.Chain, err = s.triggerChain(ctx, j.ID); err != nil { // job_page_triggers.go
			return v, err
		}
		scope := alertScope{ResourceGroup: row.ResourceGroup, Collection: row.Name, Job: j.Name}
		if v.Alerts, err = s.alertsView(c, row.WorkspaceID, scope, nil); err != nil {
			return v, err
		}
	}
	if v.Timeline, err = s.timelineView(ctx, row, j, p.Range, now, historyOnly); err != nil {
		return v, err
	}
	if v.Table, err = s.historyTableView(ctx, row, j, p, now); err != nil {
		return v, err
	}
	s.allowRerun(c, row, &v.Table)
	if !historyOnly {
		v.Trends, err = s.trendsView(ctx, row, j, now)
	}
	return v, err
}

// jobStatusView is the status fragment of a job.
func (s *Server) jobStatusView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, msg, refused string) (web.JobStatus, error) {
	now := s.clock()
	pj, err := s.parseStoredIn(c.Request().Context(), row.WorkspaceID, j.Definition)
	if err != nil {
		return web.JobStatus{}, err
	}
	last, err := s.store.FilteredHistory(c.Request().Context(), models.HistoryQuery{JobID: j.ID, Limit: 1})
	if err != nil {
		return web.JobStatus{}, err
	}
	var latest *models.HistoryEntry
	if len(last) > 0 {
		latest = &last[0]
	}
	next := nextOccurrences(j, pj.Job, now, web.NextOccurrenceN, pj.Cals)
	st := web.NewJobStatus(row, j, pj, latest, next, now)
	st.CSRFToken, st.Message, st.Error = csrfToken(c), msg, refused
	st.Allow(web.CanFor(string(s.roleIn(c, row.WorkspaceID))))
	return st, nil
}

// jobRunNow starts an occurrence at once; htmx then refreshes the history
// (event sked-history-changed).
//
// The "Run with changes…" form (SPEC §16.4) posts here too, with
// changes=1, its headers ("Name: value" lines) and body: the run's
// changes, checked as a job's request (a bad header is refused in place,
// naming it).
func (s *Server) jobRunNow(c echo.Context) error {
	return s.jobAction(c, func(row *models.CollectionRow, j *models.JobDetail) (string, error) {
		var changes *jobdef.RunChanges
		if c.FormValue("changes") == "1" {
			var err error
			if changes, err = jobdef.ParseRunChanges(web.RunChangesJSON(c.FormValue("headers"), c.FormValue("body"))); err != nil {
				return "", err
			}
		}
		_, err := s.jobs.RunNowWith(c.Request().Context(), actorOf(c), row, &j.Job, changes)
		if err != nil {
			return "", err
		}
		if changes != nil {
			c.Response().Header().Set("HX-Trigger-After-Settle", "sked-history-changed")
			return "The job runs once now with your changes; its next runs stay as they are.", nil
		}
		c.Response().Header().Set("HX-Trigger-After-Settle", "sked-history-changed")
		return web.RunNowMessage(j.ExecutionCount), nil
	})
}

// jobEnable and jobDisable change a job's state.
func (s *Server) jobEnable(c echo.Context) error {
	return s.jobAction(c, func(row *models.CollectionRow, j *models.JobDetail) (string, error) {
		err := s.jobs.EnableJob(c.Request().Context(), actorOf(c), row, &j.Job)
		return "The job is enabled: it is scheduled from now.", err
	})
}

// jobDisable disables the job with the form's note (SPEC §13.2; a bad
// note is refused in place, naming the field).
func (s *Server) jobDisable(c echo.Context) error {
	return s.jobAction(c, func(row *models.CollectionRow, j *models.JobDetail) (string, error) {
		err := s.jobs.DisableJobNote(c.Request().Context(), actorOf(c), row, &j.Job, c.FormValue("note"))
		return "The job is disabled: no occurrence runs until it is enabled again.", err
	})
}

// jobAction runs act on the job of the path and answers with the job's
// new status: the fragment for htmx (status 200, or 422 with the reason
// when act was refused), a redirect otherwise (the message travels in the
// session), or the job page with the reason (409).
func (s *Server) jobAction(c echo.Context, act func(*models.CollectionRow, *models.JobDetail) (string, error)) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	msg, err := act(row, j)
	refused := refusal(err)
	if err != nil && refused == "" {
		return err
	}
	if refused == "" && !isHTMX(c) {
		if err := addFlash(c, msg); err != nil {
			return err
		}
		return redirect(c, web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name))
	}
	if refused != "" {
		msg = ""
	}
	// Read the job again: the action changed it.
	if j, err = s.store.JobDetail(c.Request().Context(), row.ID, j.Name); err != nil {
		return err
	}
	if isHTMX(c) {
		st, err := s.jobStatusView(c, row, j, msg, refused)
		if err != nil {
			return err
		}
		status := http.StatusOK
		if refused != "" {
			status = statusUnprocessable
		}
		return render(c, status, web.JobActionFragment(st))
	}
	p, _ := parseHistoryParams(c)
	v, err := s.jobView(c, row, j, p, false)
	if err != nil {
		return err
	}
	v.Status.Error = refused
	return render(c, http.StatusConflict, web.JobPage(page(c, j.Name), v))
}

// jobNote changes the note of a disabled job (the "Why is it paused?"
// form) through the catalog's state-note write (audited, the role of a
// disable). A refused note comes back in place (422, the field named and
// the typed note kept) and changes nothing; a note for a job that is not
// disabled is a 400 (notPaused).
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

// notPaused refuses a note for a job or collection that is not paused
// (there is no form for it: a 400 naming stateNote), changing nothing.
func notPaused(msg string) error {
	return &problem.List{Problems: []problem.Problem{{Path: "stateNote", Message: msg}}}
}

// jobDeleteConfirm asks whether to delete the job (without htmx).
func (s *Server) jobDeleteConfirm(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.JobDeletePage(page(c, "Delete "+j.Name), s.jobDeleteView(c, row, j, "")))
}

// jobDelete deletes the job with its history once confirmed, then goes to
// the collection page.
func (s *Server) jobDelete(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		v := s.jobDeleteView(c, row, j, "Confirm with the button below to delete the job.")
		return render(c, statusUnprocessable, web.JobDeletePage(page(c, "Delete "+j.Name), v))
	}
	if err := s.jobs.DeleteJob(c.Request().Context(), actorOf(c), row, j.Name); err != nil {
		return err
	}
	if err := addFlash(c, fmt.Sprintf("The job %s and its history were deleted.", j.Name)); err != nil {
		return err
	}
	return redirect(c, web.CollectionPath(row.WorkspaceID, row.ResourceGroup, row.Name))
}

// jobDeleteView is the delete confirmation page.
func (s *Server) jobDeleteView(c echo.Context, row *models.CollectionRow, j *models.JobDetail, problem string) web.JobDeleteView {
	return web.NewJobDeleteView(row, j, csrfToken(c), problem)
}

// jobExport downloads the job as ARM JSON (SPEC §8: without its secrets,
// and saying so), the same document as the export API.
func (s *Server) jobExport(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	ref := models.CollectionRef{WorkspaceID: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name}
	out, err := s.catalog.ExportJob(c.Request().Context(), ref, j.Name)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+exportFileName(row.Name, j.Name)+`"`)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, out)
}

// exportFileName is "collection-job.json" with only safe characters.
func exportFileName(coll, job string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return '_'
		}, s)
	}
	return clean(coll) + "-" + clean(job) + ".json"
}
