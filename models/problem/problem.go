// Package problem is the one type for input errors: every parser and
// validator in Sked (job definitions, calendars, collections, forms,
// imports, the API) reports what is wrong with its input as a *List of
// Problems, and the HTTP layer maps that to one answer shape. It is a
// leaf package: it imports nothing of Sked's.
package problem

import (
	"errors"
	"strings"
)

// Problem is one thing wrong with one input field. Path names the field as
// the input spells it: a JSON path ("recurrence.schedule.minutes[2]",
// "properties.state"; "job" for a document as a whole) or a form field's
// name. Message says what is wrong without repeating the path. Label, when
// set, is the field's name as a form shows it to a person ("Start time");
// the zero value means the path is shown.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Label   string `json:"-"`
}

// String returns the problem as "path: message".
func (p Problem) String() string { return p.Path + ": " + p.Message }

// Sentence returns the problem as a person reads it on a form: "Label:
// message" when the problem has a label, "path: message" otherwise.
func (p Problem) Sentence() string {
	if p.Label != "" {
		return p.Label + ": " + p.Message
	}
	return p.String()
}

// List is every problem found in one input, in the order found. A *List
// with at least one problem is an error; its zero value holds none and is
// ready to use. A List is not safe for concurrent use.
type List struct {
	Problems []Problem
}

// New returns a *List holding one problem at path.
func New(path, message string) *List {
	return &List{Problems: []Problem{{Path: path, Message: message}}}
}

// Error joins the problems, one "path: message" per line.
func (l *List) Error() string { return strings.Join(l.Lines(), "\n") }

// Lines returns the problems as "path: message" strings, one per problem.
func (l *List) Lines() []string {
	lines := make([]string, len(l.Problems))
	for i, p := range l.Problems {
		lines[i] = p.String()
	}
	return lines
}

// Add records a problem at path.
func (l *List) Add(path, message string) {
	l.Problems = append(l.Problems, Problem{Path: path, Message: message})
}

// Merge appends every problem of other, with prefix put before each path
// ("jobs[3]." gives "jobs[3].recurrence.interval"; "" keeps the paths).
func (l *List) Merge(prefix string, other *List) {
	if other == nil {
		return
	}
	for _, p := range other.Problems {
		p.Path = prefix + p.Path
		l.Problems = append(l.Problems, p)
	}
}

// For returns the first message recorded for path, or "".
func (l *List) For(path string) string {
	for _, p := range l.Problems {
		if p.Path == path {
			return p.Message
		}
	}
	return ""
}

// Len returns the number of problems; a nil *List has none.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.Problems)
}

// OrNil returns l when it holds problems and nil otherwise, so that a
// validator can end with `return problems.OrNil()`.
func (l *List) OrNil() error {
	if l.Len() == 0 {
		return nil
	}
	return l
}

// As returns the *List inside err, or nil when err wraps none.
func As(err error) *List {
	var l *List
	if errors.As(err, &l) {
		return l
	}
	return nil
}
