package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// The collection page and the job page with its history (SPEC §9). Each
// handler parses, makes one call (a view builder in pages_build.go or one
// catalog change) and renders: the whole page for normal requests, only the
// swapped fragment for htmx. Changes are POST forms (CSRF checked by the
// middleware) answered with the new fragment (htmx) or a redirect.

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

// jobHistoryPage shows a job's history (timeline and table); htmx gets the
// table (filters and keyset pages).
func (s *Server) jobHistoryPage(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	p, err := parseHistoryParams(c)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		t, err := s.historyTableView(c.Request().Context(), row, j, p, s.clock())
		if err != nil {
			return err
		}
		s.allowRerun(c, row, &t)
		return render(c, http.StatusOK, web.HistoryTableFragment(t))
	}
	v, err := s.jobView(c, row, j, p, true)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.JobPage(page(c, "History of "+j.Name), v))
}

// jobTimeline is the timeline fragment for one range; without htmx it is
// the history page at that range.
func (s *Server) jobTimeline(c echo.Context) error {
	if !isHTMX(c) {
		return redirect(c, localRedirectTarget(web.JobHistoryPath(c.Param("ws"), c.Param("rg"), c.Param("jc"), c.Param("job"))+"?range="+url.QueryEscape(c.QueryParam("range"))))
	}
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	p, err := parseHistoryParams(c)
	if err != nil {
		return err
	}
	t, err := s.timelineView(c.Request().Context(), row, j, p.Range, s.clock(), c.QueryParam("page") == "history")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.TimelineFragment(t))
}

// jobRunNow starts an occurrence at once; htmx then refreshes the history
// (event sked-history-changed).
func (s *Server) jobRunNow(c echo.Context) error {
	return s.jobAction(c, func(row *models.CollectionRow, j *models.JobDetail) (string, error) {
		_, err := s.jobs.RunNow(c.Request().Context(), actorOf(c), row, &j.Job)
		if err != nil {
			return "", err
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
