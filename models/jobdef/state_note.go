package jobdef

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxStateNote is the longest note a disabled job may carry
// (properties.stateNote, SPEC §13.2), in characters.
const MaxStateNote = 500

// CheckStateNote returns why note cannot be a job's state note, or "" when
// it can: at most MaxStateNote characters on one line, without control
// characters (tabs and line breaks included). Callers trim it first.
func CheckStateNote(note string) string {
	if n := utf8.RuneCountInString(note); n > MaxStateNote {
		return fmt.Sprintf("is %d characters long, over the maximum of %d", n, MaxStateNote)
	}
	for _, r := range note {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("may not hold control characters or line breaks (found %U)", r)
		}
	}
	return ""
}

// parseStateNote reads stateNote (extension, SPEC §13.2): the reason a
// disabled job is disabled, trimmed. It is kept for any state; the store
// keeps it only on a disabled job (enabling clears it).
func parseStateNote(o object, job *Job, ps *problems) {
	s, ok := stringField(o, "stateNote", "stateNote", ps)
	if !ok {
		return
	}
	job.StateNoteGiven = true
	s = strings.TrimSpace(s)
	if msg := CheckStateNote(s); msg != "" {
		ps.add("stateNote", msg)
		return
	}
	job.StateNote = s
}
