package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/scheduler/catalog"
	"sked/web"
)

// Backfills (SPEC §16.3): the API under /api/v1 and the job page's block.
// Each handler parses, makes one call (a catalog write or a store read)
// and renders.

// backfillAPI is the API path of a job's backfills.
const backfillAPI = "/api/v1/workspaces/:ws/collections/:rg/:jc/jobs/:job"

// backfillListMax is how many backfills the list and the job page show.
const backfillListMax = 50

// backfillOccurrence is one occurrence of a backfill's answer.
type backfillOccurrence struct {
	ExpectedTime time.Time             `json:"expectedTime"`
	Action       models.BackfillAction `json:"action"`
	Reason       string                `json:"reason,omitempty"`
}

// backfillAnswer is a backfill with its progress.
type backfillAnswer struct {
	ID            int64                `json:"id"`
	State         models.BackfillState `json:"state"`
	From          time.Time            `json:"from"`
	To            time.Time            `json:"to"`
	Only          models.BackfillOnly  `json:"only"`
	Order         models.BackfillOrder `json:"order"`
	MaxConcurrent int                  `json:"maxConcurrent"`
	Total         int                  `json:"total"`
	Skipped       int                  `json:"skipped"`
	Done          int                  `json:"done"`
	Succeeded     int                  `json:"succeeded"`
	Failed        int                  `json:"failed"`
	Cancelled     int                  `json:"cancelled"`
	Running       int                  `json:"running"`
	Queued        int                  `json:"queued"`
	CreatedBy     string               `json:"createdBy"`
	CreatedAt     time.Time            `json:"createdAt"`
	EndedAt       *time.Time           `json:"endedAt,omitempty"`
}

// backfillResultAnswer answers POST …/backfill: the occurrences of the
// range and what happens to each, and the backfill created (none for a
// dry run).
type backfillResultAnswer struct {
	DryRun      bool                 `json:"dryRun"`
	Run         int                  `json:"run"`
	Skipped     int                  `json:"skipped"`
	Occurrences []backfillOccurrence `json:"occurrences"`
	Backfill    *backfillAnswer      `json:"backfill,omitempty"`
}

// toBackfillAnswer writes b as the API answers it.
func toBackfillAnswer(b *models.Backfill) *backfillAnswer {
	out := &backfillAnswer{ID: b.ID, State: b.State, From: b.From.UTC(), To: b.To.UTC(), Only: b.Only, Order: b.Order,
		MaxConcurrent: b.MaxConcurrent, Total: b.Total, Skipped: b.Skipped, Done: b.Done(), Succeeded: b.Succeeded,
		Failed: b.Failed, Cancelled: b.Cancelled, Running: b.Started, Queued: b.Queued, CreatedBy: b.CreatedBy,
		CreatedAt: b.CreatedAt.UTC()}
	if b.EndedAt != nil {
		t := b.EndedAt.UTC()
		out.EndedAt = &t
	}
	return out
}

// apiJobOf is the collection and job of an /api/v1 job path, in a
// workspace the token's user is a member of; 404 naming what is missing.
func (s *Server) apiJobOf(c echo.Context) (*models.CollectionRow, *models.Job, error) {
	ref, err := s.apiCollectionRef(c)
	if err != nil {
		return nil, nil, err
	}
	row, err := s.store.CollectionByRef(c.Request().Context(), ref)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf(
			"The job collection %q was not found in resource group %q.", ref.Name, ref.ResourceGroup))
	}
	if err != nil {
		return nil, nil, err
	}
	j, err := s.job(c, row)
	return row, j, err
}

// apiBackfill answers POST …/jobs/{job}/backfill: a dry run (200) or a
// backfill created (201), each with the range's occurrences.
func (s *Server) apiBackfill(c echo.Context) error {
	row, j, err := s.apiJobOf(c)
	if err != nil {
		return err
	}
	body, err := readBody(c, maxAPIBody)
	if err != nil {
		return err
	}
	in, err := catalog.ParseBackfill(body, s.clock())
	if err != nil {
		return err
	}
	res, err := s.jobs.Backfill(c.Request().Context(), actorOf(c), row, j, in)
	if err != nil {
		return err
	}
	out := backfillResultAnswer{DryRun: in.DryRun, Occurrences: make([]backfillOccurrence, len(res.Decisions))}
	for i, d := range res.Decisions {
		out.Occurrences[i] = backfillOccurrence{ExpectedTime: d.ExpectedTime.UTC(), Action: d.Action, Reason: d.Reason}
		if d.Action == models.BackfillRun {
			out.Run++
		} else {
			out.Skipped++
		}
	}
	if res.Backfill == nil {
		return c.JSON(http.StatusOK, out)
	}
	out.Backfill = toBackfillAnswer(res.Backfill)
	return c.JSON(http.StatusCreated, out)
}

// apiBackfills answers GET …/jobs/{job}/backfills: the job's newest
// backfills, newest first.
func (s *Server) apiBackfills(c echo.Context) error {
	_, j, err := s.apiJobOf(c)
	if err != nil {
		return err
	}
	bs, err := s.store.Backfills(c.Request().Context(), j.ID, backfillListMax)
	if err != nil {
		return err
	}
	out := struct {
		Value []*backfillAnswer `json:"value"`
	}{Value: make([]*backfillAnswer, len(bs))}
	for i := range bs {
		out.Value[i] = toBackfillAnswer(&bs[i])
	}
	return c.JSON(http.StatusOK, out)
}

// backfillID reads the path's backfill id; a bad one is a 404.
func backfillID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no backfill %q.", c.Param("id")))
	}
	return id, nil
}

// notFoundBackfill turns the store's not-found into a 404 naming the
// backfill.
func notFoundBackfill(err error, id int64) error {
	if errors.Is(err, models.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no backfill %d of this job.", id))
	}
	return err
}

// apiGetBackfill answers GET …/backfills/{id}: its progress.
func (s *Server) apiGetBackfill(c echo.Context) error {
	_, j, err := s.apiJobOf(c)
	if err != nil {
		return err
	}
	id, err := backfillID(c)
	if err != nil {
		return err
	}
	b, err := s.store.Backfill(c.Request().Context(), j.ID, id)
	if err != nil {
		return notFoundBackfill(err, id)
	}
	return c.JSON(http.StatusOK, toBackfillAnswer(b))
}

// apiCancelBackfill answers POST …/backfills/{id}/cancel: the runs not
// started are cancelled, the running ones finish.
func (s *Server) apiCancelBackfill(c echo.Context) error {
	row, j, err := s.apiJobOf(c)
	if err != nil {
		return err
	}
	id, err := backfillID(c)
	if err != nil {
		return err
	}
	b, err := s.jobs.CancelBackfill(c.Request().Context(), actorOf(c), row, j, id)
	if err != nil {
		return notFoundBackfill(err, id)
	}
	return c.JSON(http.StatusOK, toBackfillAnswer(b))
}

// backfillLocalLayout is how the form's datetime-local fields are written.
const backfillLocalLayout = "2006-01-02T15:04:05"

// backfillPanel is the job page's backfill block: the form (operators
// and up) with default values (the last day) and the job's backfills.
func (s *Server) backfillPanel(c echo.Context, row *models.CollectionRow, j *models.JobDetail, can web.Can) (*web.BackfillPanel, error) {
	list, err := s.backfillList(c, row, j, can)
	if err != nil {
		return nil, err
	}
	p := &web.BackfillPanel{List: list}
	if can.Run {
		loc, now := s.userZone(c), s.clock()
		f := s.backfillForm(c, row, j)
		f.From = now.Add(-24 * time.Hour).In(loc).Truncate(time.Second).Format(backfillLocalLayout)
		f.To = now.In(loc).Truncate(time.Second).Format(backfillLocalLayout)
		p.Form = &f
	}
	return p, nil
}

// backfillForm is the empty backfill form of job j.
func (s *Server) backfillForm(c echo.Context, row *models.CollectionRow, j *models.JobDetail) web.BackfillForm {
	return web.BackfillForm{URL: web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name) + "/backfill",
		CSRFToken: csrfToken(c), Only: string(models.BackfillMissing), Order: string(models.BackfillOldestFirst),
		MaxConcurrent: "1", Zone: s.userZone(c).String()}
}

// backfillList is #job-backfills of job j.
func (s *Server) backfillList(c echo.Context, row *models.CollectionRow, j *models.JobDetail, can web.Can) (web.BackfillList, error) {
	bs, err := s.store.Backfills(c.Request().Context(), j.ID, backfillListMax)
	if err != nil {
		return web.BackfillList{}, err
	}
	base := web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name)
	seen := web.BackfillSeen(bs)
	l := web.BackfillList{URL: base + "/backfills?seen=" + url.QueryEscape(seen), Seen: seen, CSRFToken: csrfToken(c),
		Items: web.BackfillListOf(bs, s.userZone(c), s.clock(), can.Run, func(id int64) string {
			return base + "/backfills/" + strconv.FormatInt(id, 10) + "/cancel"
		})}
	for i := range bs {
		l.Refresh = l.Refresh || bs[i].State == models.BackfillRunning
	}
	return l, nil
}

// jobBackfill answers the job page's backfill form: "Preview" (dryRun
// true) re-renders the form with the dry run's table, "Start" creates the
// backfill and says so (the list refreshes on sked-backfills-changed);
// bad fields come back in place (422). Without htmx it answers with the
// job page (the form and its preview or errors) or, after a start, a
// redirect to it.
func (s *Server) jobBackfill(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	loc, now := s.userZone(c), s.clock()
	f := s.backfillForm(c, row, j)
	f.From, f.To, f.Only, f.Order, f.MaxConcurrent = c.FormValue("from"), c.FormValue("to"), c.FormValue("only"),
		c.FormValue("order"), c.FormValue("maxConcurrent")
	in, err := catalog.CheckBackfill(catalog.BackfillFields{From: f.From, To: f.To, Only: f.Only, Order: f.Order,
		MaxConcurrent: f.MaxConcurrent, DryRun: c.FormValue("dryRun") != "false"}, loc, now)
	var res *catalog.BackfillResult
	if err == nil {
		res, err = s.jobs.Backfill(c.Request().Context(), actorOf(c), row, &j.Job, in)
	}
	status := http.StatusOK
	switch {
	case err != nil:
		if f.Errors = formErrors(err, backfillLabels); f.Errors == nil {
			msg := refusal(err)
			if msg == "" {
				return err
			}
			f.Error = msg
		}
		status = statusUnprocessable
	case res.Backfill == nil:
		f.Preview = web.BackfillPreviewOf(res.Decisions, loc, now)
	default:
		b := res.Backfill
		f.Message = fmt.Sprintf("Backfill %d started: %d to run, %d skipped.", b.ID, b.Total, b.Skipped)
		if !isHTMX(c) {
			if err := addFlash(c, f.Message); err != nil {
				return err
			}
			return redirect(c, web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name))
		}
		c.Response().Header().Set("HX-Trigger", "sked-backfills-changed")
	}
	if isHTMX(c) {
		return render(c, status, web.BackfillFormFragment(f))
	}
	p, _ := parseHistoryParams(c)
	v, err := s.jobView(c, row, j, p, false)
	if err != nil {
		return err
	}
	v.Backfill.Form = &f
	return render(c, status, web.JobPage(page(c, j.Name), v))
}

// backfillLabels are the backfill form's field labels.
var backfillLabels = map[string]string{"from": "From", "to": "To", "only": "Which occurrences", "order": "The order",
	"maxConcurrent": "At once"}

// jobBackfills answers GET …/jobs/{job}/backfills: #job-backfills; when
// it shows runs ended since what the asking list showed (?seen=), it
// sends sked-history-changed so that the history blocks refresh.
func (s *Server) jobBackfills(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	l, err := s.backfillList(c, row, j, web.CanFor(string(s.roleIn(c, row.WorkspaceID))))
	if err != nil {
		return err
	}
	if seen := c.QueryParam("seen"); seen != "" && seen != l.Seen {
		c.Response().Header().Set("HX-Trigger", "sked-history-changed")
	}
	return render(c, http.StatusOK, web.BackfillListFragment(l))
}

// jobCancelBackfill answers the Cancel button of a backfill: the new
// list (htmx) or a redirect to the job page.
func (s *Server) jobCancelBackfill(c echo.Context) error {
	row, j, err := s.pageJob(c)
	if err != nil {
		return err
	}
	id, err := backfillID(c)
	if err != nil {
		return err
	}
	if _, err := s.jobs.CancelBackfill(c.Request().Context(), actorOf(c), row, &j.Job, id); err != nil {
		return notFoundBackfill(err, id)
	}
	if !isHTMX(c) {
		return redirect(c, web.JobPath(row.WorkspaceID, row.ResourceGroup, row.Name, j.Name))
	}
	l, err := s.backfillList(c, row, j, web.CanFor(string(s.roleIn(c, row.WorkspaceID))))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.BackfillListFragment(l))
}
