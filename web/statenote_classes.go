package web

// noteEditInputClass is the class of the note field of the "Why is it
// paused?" form, red when the note was refused.
func noteEditInputClass(refused bool) string {
	if refused {
		return "min-w-0 flex-1 basis-64 rounded border border-red-500 px-2 py-1.5 text-sm focus:outline-none focus:ring-2 focus:ring-red-500"
	}
	return "min-w-0 flex-1 basis-64 rounded border border-slate-300 px-2 py-1.5 text-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
}
