package web

import "net/url"

// ImportPage is the import page: the file (pasted or uploaded), where jobs
// without a collection go, and, after a check, the dry-run report.
type ImportPage struct {
	CSRFToken     string
	Text          string
	ResourceGroup string
	Collection    string
	OnConflict    string
	// Problems are problems with the file as a whole.
	Problems []string
	// Report is set after a dry run or an import.
	Report *ImportReportView
}

// ImportReportView is the report of a dry run or an import.
type ImportReportView struct {
	DryRun, Applied                            bool
	Jobs, New, Replace, Skip, Invalid, Written int
	Rows                                       []ImportRow
	// Message says what happened (applied, or why nothing was written).
	Message string
}

// ImportRow is one job of the report.
type ImportRow struct {
	Path, Collection, Name, Action, State, Description string
	Problems, Warnings                                 []string
	Next                                               []PreviewOccurrence
	Written                                            bool
}

// CollectionExportURL is where a collection's jobs download as JSON.
func CollectionExportURL(h CollectionHead) string {
	q := url.Values{"subscription": {h.Workspace}, "resourceGroup": {h.ResourceGroup}, "jobCollection": {h.Name}}
	return "/export?" + q.Encode()
}

// ImportProgress is a background import while it runs.
type ImportProgress struct {
	ID             string
	Done           bool
	Checked, Total int
}
