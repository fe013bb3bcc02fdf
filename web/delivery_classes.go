package web

// The Tailwind classes of the delivery log (channels.templ), written out
// whole so that Tailwind finds them.
const (
	// deliveryCell is a cell of a notification's row: a labelled line of
	// its card on a phone, a table cell from md up.
	deliveryCell = "flex items-baseline gap-2 py-0.5 md:table-cell md:px-3 md:py-2"
	// deliveryCellLabel names a cell on a phone (the table head does it
	// from md up).
	deliveryCellLabel = "w-20 shrink-0 text-xs font-medium uppercase tracking-wide text-slate-500 md:hidden"
)
