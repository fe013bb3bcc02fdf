package web

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"sked/models/jobdef"
)

// BulkConfirmNames is how many job names the delete confirmation lists.
const BulkConfirmNames = 20

// NewBulkBar is the bulk actions' form of a results page of p that shows
// shown jobs out of matching (the jobs the filter selects, counted up to
// max: more than max means "more than max"; -1 when not counted).
func NewBulkBar(p AllJobsParams, shown int, matching int64, max int, csrf string) BulkBar {
	b := BulkBar{Action: AllJobsBulkPath(), CSRFToken: csrf, NoteMax: jobdef.MaxStateNote}
	q := p.Values(false)
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if k != "sort" {
			b.Filter = append(b.Filter, FormField{Name: k, Value: q.Get(k)})
		}
	}
	all, some, one := "All jobs that match the filter", "All %s jobs that match the filter", "The 1 job that matches the filter"
	if !p.Filtered() {
		all, some, one = "All your jobs", "All %s of your jobs", "Your 1 job"
	}
	switch {
	case shown == 0:
	case matching < 0:
		b.MatchLabel = all
	case matching > int64(max):
		b.MatchLabel = fmt.Sprintf("%s (more than %s: one action takes %s at most)", all, FormatCount(max), FormatCount(max))
	case matching == 1:
		b.MatchLabel = one
	default:
		b.MatchLabel = fmt.Sprintf(some, FormatCount(matching))
	}
	return b
}

// BulkOutcomeCount is how many jobs of a bulk action ended in Outcome (the
// catalog's outcome names: "disabled", "alreadyCompleted", …).
type BulkOutcomeCount struct {
	Outcome string
	N       int
}

// bulkOutcomeWords are the outcomes as a summary says them (the first two
// are spelled as the states they lead to).
var bulkOutcomeWords = map[string]string{
	string(jobdef.Enabled): string(jobdef.Enabled), string(jobdef.Disabled): string(jobdef.Disabled), "noteChanged": "note changed (already disabled)",
	"alreadyEnabled": "already enabled", "alreadyDisabled": "already disabled",
	"alreadyCompleted": "already completed", "alreadyFaulted": "already faulted",
	"started": "started", "notEnabled": "not run (not enabled)", "deleted": "deleted",
}

// BulkSummary is the result of a bulk action in words, in the order of
// counts: "48 disabled, 2 already completed.".
func BulkSummary(counts []BulkOutcomeCount) string {
	var parts []string
	for _, c := range counts {
		if c.N == 0 {
			continue
		}
		w, ok := bulkOutcomeWords[c.Outcome]
		if !ok {
			w = c.Outcome
		}
		parts = append(parts, FormatCount(c.N)+" "+w)
	}
	if len(parts) == 0 {
		return "Nothing was changed."
	}
	s := strings.Join(parts, ", ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

// NewBulkConfirm is the question before deleting the jobs paths (their
// "workspace/group/collection/job"), whose selection the form fields
// form carry again; back is the "All jobs" page to return to.
func NewBulkConfirm(paths []string, form url.Values, csrf, back string) BulkConfirm {
	c := BulkConfirm{Action: AllJobsBulkPath(), CSRFToken: csrf, BackURL: back,
		Title:  "Delete " + Plural(int64(len(paths)), "job", "jobs") + "?",
		Button: "Delete " + Plural(int64(len(paths)), "job", "jobs") + " and their history"}
	for _, k := range slices.Sorted(maps.Keys(form)) {
		if k == "csrf_token" || k == "action" || k == "confirm" {
			continue
		}
		for _, v := range form[k] {
			c.Hidden = append(c.Hidden, FormField{Name: k, Value: v})
		}
	}
	c.Names = paths[:min(len(paths), BulkConfirmNames)]
	if n := len(paths) - len(c.Names); n > 0 {
		c.More = "and " + Plural(int64(n), "more job", "more jobs")
	}
	return c
}
