package web

import (
	"net/url"
	"strconv"
)

// ExecutionPath is the detail page of history entry id of a job.
func ExecutionPath(ws, rg, coll, job string, id int64) string {
	return JobHistoryPath(ws, rg, coll, job) + "/" + strconv.FormatInt(id, 10)
}

// ExecutionRerunPath re-runs the occurrence of history entry id (POST).
func ExecutionRerunPath(ws, rg, coll, job string, id int64) string {
	return ExecutionPath(ws, rg, coll, job, id) + "/rerun"
}

// RunningPath is the running-now page of a workspace (htmx polls it for
// its table).
func RunningPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/running" }
