package web

// The Tailwind classes of the "All jobs" page (alljobs.templ), written out
// whole so that Tailwind finds them.
const (
	// allJobsControl is a select or input of the filter form.
	allJobsControl = "mt-1 block w-full rounded border border-slate-300 bg-white px-2 py-2 text-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
	// allJobsCell is a cell of a job's row: a labelled line of its card on
	// a phone, a table cell from md up.
	allJobsCell = "flex items-baseline gap-2 py-0.5 md:table-cell md:px-3 md:py-2"
	// allJobsCellLabel names a cell on a phone (the table head does it
	// from md up).
	allJobsCellLabel = "w-28 shrink-0 text-xs font-medium uppercase tracking-wide text-slate-500 md:hidden"
)

// whenTitle is the tooltip of an instant: its time in the job's zone and
// in UTC.
func whenTitle(i Instant) string {
	if i.UTC == "" {
		return i.Local
	}
	return i.Local + " (" + i.UTC + ")"
}
