package web

// navLinkClass is the class of a primary link of the header: the current
// page's is bold and underlined (aria-current says it too).
func navLinkClass(current bool) string {
	if current {
		return "whitespace-nowrap font-semibold text-slate-900 underline decoration-2 underline-offset-4 focus:outline-none focus:ring-2 focus:ring-indigo-500"
	}
	return "whitespace-nowrap text-indigo-700 underline-offset-4 hover:underline focus:outline-none focus:ring-2 focus:ring-indigo-500"
}

// navMoreClass is the class of the "More" menu's summary, bold when the
// current page is in the menu.
func navMoreClass(current bool) string {
	if current {
		return "flex cursor-pointer list-none items-center gap-1 whitespace-nowrap rounded border border-slate-300 px-2 py-1 font-semibold hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-indigo-500 dark:border-slate-600 dark:hover:bg-slate-800"
	}
	return "flex cursor-pointer list-none items-center gap-1 whitespace-nowrap rounded border border-slate-300 px-2 py-1 hover:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-indigo-500 dark:border-slate-600 dark:hover:bg-slate-800"
}

// navMenuItemClass is the class of a link (or button) of the "More" menu:
// the current page's is bold with a bar on its left.
func navMenuItemClass(current bool) string {
	if current {
		return "block border-l-4 border-indigo-600 px-3 py-2 font-semibold hover:bg-slate-100 focus:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-500 dark:hover:bg-slate-800 dark:focus:bg-slate-800"
	}
	return "block border-l-4 border-transparent px-3 py-2 text-slate-800 hover:bg-slate-100 focus:bg-slate-100 focus:outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-500 dark:hover:bg-slate-800 dark:focus:bg-slate-800"
}
