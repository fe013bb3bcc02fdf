package handlers

import "github.com/labstack/echo/v4"

// pageRoutes registers the collection and job pages (SPEC §9): every page
// checks that the user is a member of the path's workspace; every change
// is a POST with the CSRF token.
func (s *Server) pageRoutes(e *echo.Echo) {
	signedIn := []echo.MiddlewareFunc{s.loadSession, s.csrf, s.requireUser}
	const coll = "/c/:ws/:rg/:jc"
	const job = coll + "/jobs/:job"
	e.GET(coll, s.collectionPage, signedIn...)
	e.POST(coll+"/enable", s.collectionEnable, signedIn...)
	e.POST(coll+"/disable", s.collectionDisable, signedIn...)
	e.GET(job, s.jobPage, signedIn...)
	e.GET(job+"/history", s.jobHistoryPage, signedIn...)
	e.GET(job+"/timeline", s.jobTimeline, signedIn...)
	e.POST(job+"/run", s.jobRunNow, signedIn...)
	e.POST(job+"/enable", s.jobEnable, signedIn...)
	e.POST(job+"/disable", s.jobDisable, signedIn...)
	e.GET(job+"/delete", s.jobDeleteConfirm, signedIn...)
	e.POST(job+"/delete", s.jobDelete, signedIn...)
	e.GET(job+"/export.json", s.jobExport, signedIn...)
	e.GET(job+"/calendar.ics", s.jobFeed) // no session: the token in the URL (jobfeed.go)
}
