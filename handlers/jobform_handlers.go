package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
	"sked/web"
)

// pageCollection loads the collection of a page path after checking that
// the user is a member of its workspace (404 otherwise, as for a
// collection that does not exist).
func (s *Server) pageCollection(c echo.Context) (*models.CollectionRow, error) {
	ctx := c.Request().Context()
	ws, ok, err := s.store.MemberWorkspace(ctx, c.Param("ws"), currentUser(c).ID)
	if err != nil {
		return nil, err
	}
	notFound := echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no job collection %q in %s / %s that you may see.",
		c.Param("jc"), c.Param("ws"), c.Param("rg")))
	if !ok {
		return nil, notFound
	}
	row, err := s.store.CollectionByRef(ctx, models.CollectionRef{WorkspaceID: ws, ResourceGroup: c.Param("rg"), Name: c.Param("jc")})
	if errors.Is(err, models.ErrNotFound) {
		return nil, notFound
	}
	return row, err
}

// baseJobForm is the form's frame for coll.
func (s *Server) baseJobForm(c echo.Context, row *models.CollectionRow) web.JobForm {
	return web.JobForm{
		Collection: web.CollectionRef{Workspace: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name},
		Action:     web.NewJobPath(row.WorkspaceID, row.ResourceGroup, row.Name),
		PreviewURL: web.JobPreviewPath(row.WorkspaceID, row.ResourceGroup, row.Name),
		CSRFToken:  csrfToken(c),
		Zones:      zoneNames(),
	}
}

// newJobPage shows an empty job form.
func (s *Server) newJobPage(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	f := s.baseJobForm(c, row)
	f.Mode, f.ActionType, f.Method, f.Frequency, f.Interval, f.End, f.State = "form", "https", "GET", "day", "1", "never", string(jobdef.Enabled)
	f.PreviewCount = "10"
	f.Preview = s.previewOf(c, row, jobFormJSON(f), 10)
	// Nothing was typed yet: what is missing is said after the first
	// change (live preview) or on Save, not before.
	f.Preview.Problems, f.Preview.FieldErrors = nil, nil
	return render(c, http.StatusOK, web.JobFormPage(page(c, "New job"), s.withCalendars(c, f)))
}

// editJobPage shows a job in the form (or, when the form cannot show it,
// in the JSON tab).
func (s *Server) editJobPage(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	j, err := s.store.JobByName(c.Request().Context(), row.ID, c.Param("job"))
	if err != nil {
		return err
	}
	job, err := jobdef.ParseWith(j.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return err
	}
	job.State, job.StateNote = jobdef.State(j.State), j.StateNote
	f, unsupported := web.JobFormFrom(job)
	base := s.baseJobForm(c, row)
	f.Collection, f.PreviewURL, f.CSRFToken, f.Zones = base.Collection, base.PreviewURL, base.CSRFToken, base.Zones
	f.Action = web.JobEditPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	f.Edit, f.Name, f.PreviewCount = true, j.Name, "10"
	f.JSON = string(prettyJSON(job.MarshalProperties(jobdef.MarshalOptions{})))
	if unsupported != "" {
		f.Mode, f.Notice = "json", "This job uses "+unsupported+", which only the JSON tab can edit."
	}
	body := []byte(f.JSON)
	f.Preview = s.previewFor(c, row, body, 10, f.Mode)
	return render(c, http.StatusOK, web.JobFormPage(page(c, "Edit "+j.Name), s.withCalendars(c, f)))
}

// jobFormSubmit saves the job, or switches the form between the builder
// and the JSON tab ("switch" = "json" or "form"). Invalid input
// re-renders the form in place with 422 and says why.
func (s *Server) jobFormSubmit(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	f := readJobForm(form)
	base := s.baseJobForm(c, row)
	f.Collection, f.PreviewURL, f.CSRFToken, f.Zones, f.Action = base.Collection, base.PreviewURL, base.CSRFToken, base.Zones, base.Action
	if name := c.Param("job"); name != "" {
		f.Edit, f.Name = true, name
		f.Action = web.JobEditPath(row.WorkspaceID, row.ResourceGroup, row.Name, name)
	}
	n := previewCount(f.PreviewCount)
	switch form.Get("switch") {
	case "cron":
		return s.jobFormFromCron(c, row, f, n) // jobform_cron.go
	case "json":
		if f.Mode == "form" {
			f.JSON = string(jobFormJSON(f))
		}
		f.Mode = "json"
		f.Preview = s.previewFor(c, row, []byte(f.JSON), n, f.Mode)
		return s.renderJobForm(c, http.StatusOK, f)
	case "form":
		job, err := jobdef.ParseWith([]byte(f.JSON), jobdef.Options{SecretsOptional: true})
		if ve := problem.As(err); ve != nil {
			f.Mode, f.Problems = "json", append([]string{"Fix the JSON before switching to the builder:"}, ve.Lines()...)
			return s.renderJobForm(c, statusUnprocessable, f)
		} else if err != nil {
			return err
		}
		nf, unsupported := web.JobFormFrom(job)
		if unsupported != "" {
			f.Mode, f.Notice = "json", "This job uses "+unsupported+", which only the JSON tab can edit."
			return s.renderJobForm(c, statusUnprocessable, f)
		}
		nf.Collection, nf.PreviewURL, nf.CSRFToken, nf.Zones, nf.Action = f.Collection, f.PreviewURL, f.CSRFToken, f.Zones, f.Action
		nf.Edit, nf.Name, nf.PreviewCount, nf.JSON = f.Edit, f.Name, f.PreviewCount, f.JSON
		nf.Preview = s.previewOf(c, row, []byte(f.JSON), n)
		return s.renderJobForm(c, http.StatusOK, nf)
	}
	body := []byte(f.JSON)
	if f.Mode == "form" {
		body = jobFormJSON(f)
	}
	if f.Name == "" {
		f.Errors = web.FieldErrors{"name": web.JobFormSentence("jobName", "a job name is required")}
		f.Preview = s.previewFor(c, row, body, n, f.Mode)
		return s.renderJobForm(c, statusUnprocessable, f)
	}
	var j *models.Job
	if f.Edit {
		j, _, err = s.jobs.EditJob(c.Request().Context(), actorOf(c), row, f.Name, body)
	} else {
		j, err = s.jobs.CreateJob(c.Request().Context(), actorOf(c), row, f.Name, body)
	}
	var qe *models.QuotaError
	switch {
	case problem.As(err) != nil:
		f.Errors, f.Problems = jobFormErrors(problem.As(err), f.Mode == "json")
		if len(f.Problems) == 0 {
			f.Problems = []string{"Some fields need attention: see the messages below them."}
		}
		f.Preview = s.previewFor(c, row, body, n, f.Mode)
		return s.renderJobForm(c, statusUnprocessable, f)
	case errors.As(err, &qe):
		f.Problems = []string{qe.Message}
		f.Preview = s.previewFor(c, row, body, n, f.Mode)
		return s.renderJobForm(c, statusUnprocessable, f)
	case err != nil:
		return err
	}
	return redirect(c, localRedirectTarget(web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)))
}

// renderJobForm renders the form fragment (htmx) or the whole page.
func (s *Server) renderJobForm(c echo.Context, status int, f web.JobForm) error {
	if isHTMX(c) {
		return render(c, status, web.JobFormFragment(s.withCalendars(c, f)))
	}
	title := "New job"
	if f.Edit {
		title = "Edit " + f.Name
	}
	return render(c, status, web.JobFormPage(page(c, title), s.withCalendars(c, f)))
}

// jobFormPreview answers the live preview: the description, the next
// occurrences, the warnings and the calendar strip of the job as the form
// stands, and the field errors out of band.
func (s *Server) jobFormPreview(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	f := readJobForm(form)
	body := []byte(f.JSON)
	if f.Mode == "form" {
		body = jobFormJSON(f)
	}
	pv := s.previewFor(c, row, body, previewCount(f.PreviewCount), f.Mode)
	if f.Mode == "json" {
		pv.FieldErrors = nil
	} else {
		pv.Compact = true
	}
	return render(c, http.StatusOK, web.JobPreviewContent(pv))
}

// previewCount reads the preview's N: 10, 25, 50 or 100 (default 10).
func previewCount(v string) int {
	n, _ := strconv.Atoi(v)
	if slices.Contains([]int{10, 25, 50, 100}, n) {
		return n
	}
	return 10
}

// formSlots are the form's error slots the preview updates.
var formSlots = []string{"action_type", "method", "uri", "headers", "body", "auth", "start_time", "time_zone", "frequency",
	"interval", "end", "minutes", "hours", "week_days", "month_days", "occurrences", "months", "calendars", "retry", "error_action", "timeout"}

// previewOf previews the job JSON body of a job of the collection row:
// secrets may be left out (they are kept when saving); the calendars of
// its workspace apply.
func (s *Server) previewOf(c echo.Context, row *models.CollectionRow, body []byte, n int) web.JobPreview {
	return s.previewFor(c, row, body, n, "form")
}

// previewFor is previewOf for the form's mode: the builder ("form") lists
// problems by the fields' labels, the JSON tab ("json") by their paths.
func (s *Server) previewFor(c echo.Context, row *models.CollectionRow, body []byte, n int, mode string) web.JobPreview {
	lines := func(ve *problem.List) []string {
		if mode == "json" {
			return ve.Lines()
		}
		out := make([]string, len(ve.Problems))
		for i, p := range ve.Problems {
			out[i] = web.JobFormSentence(p.Path, p.Message)
		}
		return out
	}
	pv := web.JobPreview{FieldErrors: web.FieldErrors{}}
	for _, slot := range formSlots {
		pv.FieldErrors[slot] = ""
	}
	now := s.clock()
	job, err := jobdef.ParseWith(body, jobdef.Options{SecretsOptional: true})
	if ve := problem.As(err); ve != nil {
		fields, _ := jobFormErrors(ve, false)
		for k, v := range fields {
			pv.FieldErrors[k] = v
		}
		pv.Problems = lines(ve)
		// While only the action is incomplete, the schedule is previewed
		// all the same (people often build the schedule first).
		if !onlyActionProblems(ve) {
			return pv
		}
		if job, err = jobdef.ParseWith(withPlaceholderAction(body), jobdef.Options{SecretsOptional: true}); err != nil {
			return pv
		}
	} else if err != nil {
		pv.Problems = []string{err.Error()}
		return pv
	}
	cals, err := s.catalog.CalendarsFor(c.Request().Context(), row.WorkspaceID, job)
	if err != nil {
		pv.Problems = []string{"The workspace's calendars cannot be read: " + err.Error()}
		return pv
	}
	res, err := recurrence.PreviewWith(job, now, n, recurrence.Options{Calendars: cals})
	if ve := problem.As(err); ve != nil {
		fields, _ := jobFormErrors(ve, false)
		for k, v := range fields {
			pv.FieldErrors[k] = v
		}
		pv.Problems = append(pv.Problems, lines(ve)...)
		return pv
	}
	if err != nil {
		pv.Problems = []string{err.Error()}
		return pv
	}
	loc := job.Location()
	pv.Valid, pv.Description, pv.Zone = true, res.Description, loc.String()
	if len(pv.Problems) == 0 {
		pv.Warnings = append(res.Warnings, catalog.TargetWarnings(job, s.allow)...)
	} else {
		pv.Warnings = res.Warnings
	}
	pv.Occurrences = web.PreviewOccurrencesOf(job, res.Occurrences, now)
	pv.Calendar = web.NewCalendarDays(job, now, cals)
	return pv
}

// prettyJSON indents JSON for the JSON tab, keeping the order of its
// members.
func prettyJSON(raw []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return raw
	}
	return buf.Bytes()
}
