package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/web"
)

// The job form's pages (SPEC §9): the new and edit pages and the form's
// post, which saves the job, switches between the builder and the JSON
// tab, or fills the builder from a cron line (jobform_cron.go). The form's
// values become the job JSON in web (web.ReadJobForm, JobForm.JobJSON),
// and a job becomes the form's values there too (web.JobFormOf); the live
// preview is in jobform_preview.go.

// jobFormFrame is the frame of the job form of the collection row: of a
// new job when name is "", else of the job name.
func (s *Server) jobFormFrame(c echo.Context, row *models.CollectionRow, name string) web.JobFormFrame {
	fr := web.JobFormFrame{
		Collection: web.CollectionRef{Workspace: row.WorkspaceID, ResourceGroup: row.ResourceGroup, Name: row.Name},
		Action:     web.NewJobPath(row.WorkspaceID, row.ResourceGroup, row.Name),
		PreviewURL: web.JobPreviewPath(row.WorkspaceID, row.ResourceGroup, row.Name),
		CSRFToken:  csrfToken(c),
		Zones:      zoneNames(),
	}
	if name != "" {
		fr.Edit, fr.Action = true, web.JobEditPath(row.WorkspaceID, row.ResourceGroup, row.Name, name)
	}
	return fr
}

// newJobPage shows an empty job form.
func (s *Server) newJobPage(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	f := web.JobForm{JobFormFrame: s.jobFormFrame(c, row, "")}
	f.Mode, f.ActionType, f.Method, f.Frequency, f.Interval, f.End, f.State = "form", "https", "GET", "day", "1", "never", string(jobdef.Enabled)
	f.PreviewCount = "10"
	f.Preview = s.previewOf(c, row, f.JobJSON(), 10)
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
	f := web.JobFormOf(job)
	f.JobFormFrame = s.jobFormFrame(c, row, j.Name)
	f.Name, f.PreviewCount = j.Name, "10"
	f.Preview = s.previewFor(c, row, []byte(f.JSON), 10, f.Mode)
	return render(c, http.StatusOK, web.JobFormPage(page(c, "Edit "+j.Name), s.withCalendars(c, f)))
}

// jobFormSubmit answers the form's post: "switch" = "cron" fills the
// builder from the cron line, "json" and "form" switch to the JSON tab
// and the builder; otherwise the job is saved (saveJobForm).
func (s *Server) jobFormSubmit(c echo.Context) error {
	row, err := s.pageCollection(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	f := web.ReadJobForm(form)
	f.JobFormFrame = s.jobFormFrame(c, row, c.Param("job"))
	if f.Edit {
		f.Name = c.Param("job")
	}
	switch form.Get("switch") {
	case "cron":
		return s.jobFormFromCron(c, row, f) // jobform_cron.go
	case "json":
		f.JSON, f.Mode = string(f.JobJSON()), "json"
		f.Preview = s.previewFor(c, row, []byte(f.JSON), f.PreviewN(), f.Mode)
		return s.renderJobForm(c, http.StatusOK, f)
	case "form":
		return s.jobFormToBuilder(c, row, f)
	}
	return s.saveJobForm(c, row, f)
}

// jobFormToBuilder switches the form from the JSON tab to the builder,
// which shows the job of the JSON tab's text. JSON that is not a valid job,
// or a job the builder cannot show, stays in the JSON tab with why (422).
func (s *Server) jobFormToBuilder(c echo.Context, row *models.CollectionRow, f web.JobForm) error {
	job, err := jobdef.ParseWith([]byte(f.JSON), jobdef.Options{SecretsOptional: true})
	if ve := problem.As(err); ve != nil {
		f.Mode, f.Problems = "json", append([]string{"Fix the JSON before switching to the builder:"}, ve.Lines()...)
		return s.renderJobForm(c, statusUnprocessable, f)
	} else if err != nil {
		return err
	}
	nf, unsupported := web.JobFormFrom(job)
	if unsupported != "" {
		f.Mode, f.Notice = "json", web.BuilderCannotShow(unsupported)
		return s.renderJobForm(c, statusUnprocessable, f)
	}
	nf.JobFormFrame, nf.Name, nf.PreviewCount, nf.JSON = f.JobFormFrame, f.Name, f.PreviewCount, f.JSON
	nf.Preview = s.previewOf(c, row, []byte(f.JSON), f.PreviewN())
	return s.renderJobForm(c, http.StatusOK, nf)
}

// saveJobForm saves the form's job: a new job with CreateJob (a taken
// name is a field error), an edited one with EditJob (which keeps its
// state note: the builder has none). Then it goes to the job's page;
// invalid input re-renders the form in place with 422 and says why.
func (s *Server) saveJobForm(c echo.Context, row *models.CollectionRow, f web.JobForm) error {
	body := f.JobJSON()
	refuse := func() error {
		f.Preview = s.previewFor(c, row, body, f.PreviewN(), f.Mode)
		return s.renderJobForm(c, statusUnprocessable, f)
	}
	if f.Name == "" {
		f.Errors = web.FieldErrors{"name": web.JobFormSentence("jobName", "a job name is required")}
		return refuse()
	}
	var j *models.Job
	var err error
	if f.Edit {
		j, _, err = s.jobs.EditJob(c.Request().Context(), actorOf(c), row, f.Name, body)
	} else {
		j, err = s.jobs.CreateJob(c.Request().Context(), actorOf(c), row, f.Name, body)
	}
	var qe *models.QuotaError
	switch {
	case problem.As(err) != nil:
		f.Errors, f.Problems = web.JobFormErrors(problem.As(err), f.Mode == "json")
		if len(f.Problems) == 0 && !onlyNameError(f.Errors) {
			f.Problems = []string{"Some fields need attention: see the messages below them."}
		}
		return refuse()
	case errors.As(err, &qe):
		f.Problems = []string{qe.Message}
		return refuse()
	case err != nil:
		return err
	}
	return redirect(c, localRedirectTarget(web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)))
}

// onlyNameError reports whether the name is the only field with an error:
// it is the form's first field, so no line above the form points to it.
func onlyNameError(errs web.FieldErrors) bool {
	_, ok := errs["name"]
	return ok && len(errs) == 1
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
