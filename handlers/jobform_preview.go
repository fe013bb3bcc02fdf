package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/scheduler/recurrence"
	"sked/web"
)

// The job form's live preview (SPEC §9).

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
	f := web.ReadJobForm(form)
	pv := s.previewFor(c, row, f.JobJSON(), f.PreviewN(), f.Mode)
	if f.Mode == "json" {
		pv.FieldErrors = nil
	} else {
		pv.Compact = true
	}
	return render(c, http.StatusOK, web.JobPreviewContent(pv))
}

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
	for _, slot := range web.JobFormSlots {
		pv.FieldErrors[slot] = ""
	}
	now := s.clock()
	job, err := jobdef.ParseWith(body, jobdef.Options{SecretsOptional: true})
	if ve := problem.As(err); ve != nil {
		fields, _ := web.JobFormErrors(ve, false)
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
	opts := recurrence.Options{Calendars: cals}
	if job.Recurrence != nil && job.Recurrence.Window > 0 {
		// A stored job's id keys its spread window's offsets: the
		// preview of an edit shows when each run is due, as the engine
		// will run it (a new job's offsets are fixed when it is saved).
		if name := jobFormName(c); name != "" {
			if j, err := s.store.JobByName(c.Request().Context(), row.ID, name); err == nil {
				opts.SpreadKey, opts.Keyed = uint64(j.ID), true
			}
		}
	}
	res, err := recurrence.PreviewWith(job, now, n, opts)
	if ve := problem.As(err); ve != nil {
		fields, _ := web.JobFormErrors(ve, false)
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

// jobFormName is the name of the job a form edits: its name field, else
// the job the path names; "" while a new job has none.
func jobFormName(c echo.Context) string {
	if name := strings.TrimSpace(c.FormValue("name")); name != "" {
		return name
	}
	return c.Param("job")
}

// onlyActionProblems reports whether every problem is in the action.
func onlyActionProblems(ve *problem.List) bool {
	for _, p := range ve.Problems {
		if p.Path != "action" && !strings.HasPrefix(p.Path, "action.") {
			return false
		}
	}
	return true
}

// withPlaceholderAction returns the job JSON with its action replaced by a
// valid placeholder, to preview the schedule of a job whose action is not
// complete yet.
func withPlaceholderAction(body []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return body
	}
	placeholder := json.RawMessage(`{"type":"http","request":{"uri":"https://placeholder.invalid/","method":"GET"}}`)
	if props, ok := top["properties"]; ok {
		var p map[string]json.RawMessage
		if json.Unmarshal(props, &p) != nil {
			return body
		}
		p["action"] = placeholder
		top["properties"], _ = json.Marshal(p)
	} else {
		top["action"] = placeholder
	}
	out, _ := json.Marshal(top)
	return out
}
