package web

// NoteEdit is the small form on the page of a paused job or collection
// that changes why it is paused ("Why is it paused?", SPEC §13.2). The
// status fragment holding it has it nil when the form does not show: the
// job or collection is not paused, or the viewer may not change its state.
type NoteEdit struct {
	// ID prefixes the ids of the form's elements: ID+"-form", ID (the
	// input), ID+"-save", ID+"-error".
	ID string
	// URL is the form's target (POST); Target the stable id of the
	// fragment it swaps ("#job-status").
	URL, Target string
	// Value is the note in the field: the current one, or the one just
	// refused.
	Value string
	// Error says why the note was refused ("" for none); Max is the
	// longest note (characters).
	Error string
	Max   int
}
