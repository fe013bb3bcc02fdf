package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/web"
)

// importPage shows the import form.
func (s *Server) importPage(c echo.Context) error {
	return render(c, http.StatusOK, web.ImportPageView(page(c, "Import and export"),
		web.ImportPage{CSRFToken: csrfToken(c), ResourceGroup: "default", Collection: "imported", OnConflict: "skip"}))
}

// importSubmit checks an import (step "check": a dry run) or applies it
// (step "all" or "valid"), and shows the report. The file comes from the
// upload field or, when none is chosen, from the pasted text.
func (s *Server) importSubmit(c echo.Context) error {
	ctx := c.Request().Context()
	// Bound the whole form (the file plus a little): a larger body fails
	// while it is read, without being read whole.
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, catalog.MaxImportBytes+1<<20)
	v := web.ImportPage{
		CSRFToken:     csrfToken(c),
		Text:          c.FormValue("text"),
		ResourceGroup: strings.TrimSpace(c.FormValue("resource_group")),
		Collection:    strings.TrimSpace(c.FormValue("collection")),
		OnConflict:    c.FormValue("on_conflict"),
	}
	data := []byte(v.Text)
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		if fh.Size > catalog.MaxImportBytes {
			v.Problems = []string{fmt.Sprintf("file: the file is %d bytes, over the maximum of %d (50 MB): split it into several imports", fh.Size, catalog.MaxImportBytes)}
			return s.renderImport(c, statusUnprocessable, v)
		}
		f, err := fh.Open()
		if err != nil {
			return fmt.Errorf("import page: open upload: %w", err)
		}
		data, err = io.ReadAll(io.LimitReader(f, catalog.MaxImportBytes+1))
		f.Close()
		if err != nil {
			return fmt.Errorf("import page: read upload: %w", err)
		}
		v.Text = string(data)
		// The input gate checks form fields, not files: text PostgreSQL
		// cannot store is refused here.
		var te *jobdef.TextError
		if errors.As(jobdef.CheckText(data), &te) {
			v.Text = ""
			v.Problems = []string{"file: " + te.Error()}
			return s.renderImport(c, statusUnprocessable, v)
		}
	}
	file, err := catalog.ParseImport(data)
	if err == nil { // a crontab file needs the collection fields
		err = file.RequireTarget(models.CollectionRef{ResourceGroup: v.ResourceGroup, Name: v.Collection})
	}
	if ve := problem.As(err); ve != nil {
		v.Problems = ve.Lines()
		return s.renderImport(c, statusUnprocessable, v)
	} else if err != nil {
		return err
	}
	wss, err := s.store.WorkspacesOf(ctx, currentUser(c).ID)
	if err != nil {
		return err
	}
	if len(wss) == 0 {
		return echo.NewHTTPError(http.StatusForbidden, "You are not a member of any workspace.")
	}
	opts := catalog.ImportOptions{DryRun: true, Mode: catalog.ModeAll, OnConflict: v.OnConflict, PreviewCount: 3}
	switch c.FormValue("step") {
	case "all":
		opts.DryRun = false
	case "valid":
		opts.DryRun, opts.Mode = false, catalog.ModeValid
	}
	target := models.CollectionRef{WorkspaceID: wss[0].ID, ResourceGroup: v.ResourceGroup, Name: v.Collection}
	if isHTMX(c) && len(file.Jobs) >= progressThreshold {
		// A large file is checked in the background; the page polls its
		// progress (this instance keeps it: see catalog.Imports).
		if s.startImports != nil {
			// The runs outlive this request: they keep its values, not its end.
			s.startImports(context.WithoutCancel(ctx))
		}
		run, err := s.imports.Begin(actorOf(c), catalog.BackgroundImport{WorkspaceID: wss[0].ID, Target: target, File: file,
			Options: opts, Tag: v})
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, web.ImportProgressFragment(importProgressView(run)))
	}
	status, page := s.runImport(ctx, actorOf(c), v, wss[0].ID, target, file, opts)
	return s.renderImport(c, status, page)
}

// runImport imports file for actor (or checks it, in a dry run) and
// returns the page that reports it with its status.
func (s *Server) runImport(ctx context.Context, actor catalog.Actor, v web.ImportPage, workspaceID string, target models.CollectionRef,
	file *catalog.ImportFile, opts catalog.ImportOptions) (int, web.ImportPage) {
	rep, err := s.importer.Import(ctx, actor, workspaceID, target, file, opts)
	return s.importResult(v, rep, err)
}

// importResult is the page v reporting the import's report rep and
// error err, with its status.
func (s *Server) importResult(v web.ImportPage, rep *catalog.ImportReport, err error) (int, web.ImportPage) {
	var qe *models.QuotaError
	switch {
	case err == nil:
	case rep != nil && (problem.As(err) != nil || errors.As(err, &qe)):
		v.Report = importReportView(rep, s.clock())
		v.Report.Message = "Nothing was written: " + strings.SplitN(err.Error(), "\n", 2)[0] +
			" — see the jobs marked invalid below, or import the valid ones only."
		return statusUnprocessable, v
	case problem.As(err) != nil:
		v.Problems = problem.As(err).Lines()
		return statusUnprocessable, v
	default:
		s.log.Error("import failed", "err", err)
		v.Problems = []string{"The import failed on our side and nothing was written; the error has been logged."}
		return http.StatusInternalServerError, v
	}
	v.Report = importReportView(rep, s.clock())
	if rep.Applied {
		v.Report.Message = "Imported: " + web.Plural(int64(rep.Summary.Written), "job", "jobs") + " written."
	}
	return http.StatusOK, v
}

// importProgress answers the progress poll of a background import: the
// progress fragment while it runs, the report once it is done.
func (s *Server) importProgress(c echo.Context) error {
	run := s.imports.Run(c.Param("id"), actorOf(c))
	if run == nil {
		return echo.NewHTTPError(http.StatusNotFound, "This import is unknown here: it finished more than 10 minutes ago, or ran on another instance.")
	}
	view := importProgressView(run)
	if !view.Done {
		return render(c, http.StatusOK, web.ImportProgressFragment(view))
	}
	v, _ := run.Tag().(web.ImportPage)
	rep, err := run.Result()
	status, page := s.importResult(v, rep, err)
	page.CSRFToken = csrfToken(c)
	return s.renderImport(c, status, page)
}

// importReportView turns a report into its view; next runs carry how far
// they are from now.
func importReportView(rep *catalog.ImportReport, now time.Time) *web.ImportReportView {
	sm := rep.Summary
	out := &web.ImportReportView{DryRun: rep.DryRun, Applied: rep.Applied, Jobs: sm.Jobs, New: sm.New, Replace: sm.Replace,
		Skip: sm.Skip, Invalid: sm.Invalid, Written: sm.Written}
	for _, j := range rep.Jobs {
		row := web.ImportRow{Path: j.Path, Collection: j.ResourceGroup + " / " + j.Collection, Name: j.Name, Action: j.Action,
			State: j.State, Description: j.Description, Problems: j.Problems, Warnings: j.Warnings, Written: j.Written}
		for _, o := range j.NextOccurrences {
			t, err := time.Parse(time.RFC3339, o)
			if err != nil {
				continue
			}
			row.Next = append(row.Next, web.PreviewOccurrence{RFC3339: o, Local: web.TimeBeside(web.ImportInstant(t), t, now)})
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// renderImport renders the import fragment (htmx) or the whole page.
func (s *Server) renderImport(c echo.Context, status int, v web.ImportPage) error {
	if isHTMX(c) {
		return render(c, status, web.ImportFragment(v))
	}
	return render(c, status, web.ImportPageView(page(c, "Import and export"), v))
}
