package jobdef

import (
	"errors"
	"strings"
)

// Problem is one validation problem: the JSON path of the offending field
// (for example "recurrence.schedule.weekDays" or
// "recurrence.schedule.minutes[2]"; "job" for the document as a whole) and a
// human-readable message that does not repeat the path.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// String returns the problem as "path: message".
func (p Problem) String() string { return p.Path + ": " + p.Message }

// ValidationError reports every problem found in a job definition at once.
// Its Error method returns one "path: message" line per problem, in the order
// the fields were checked.
type ValidationError struct {
	Problems []Problem
}

// Error joins the problems, one "path: message" per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Lines returns the problems as "path: message" strings, one per problem.
func (e *ValidationError) Lines() []string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return lines
}

// AsValidationError returns the *ValidationError inside err, or nil when err
// does not wrap one.
func AsValidationError(err error) *ValidationError {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve
	}
	return nil
}

// problems accumulates validation problems while a job is parsed.
type problems struct {
	list []Problem
	// keep holds stored secrets that fill in secrets the input leaves out.
	keep Secrets
	// secretsOptional: see Options.SecretsOptional.
	secretsOptional bool
	// stored: see Options.Stored.
	stored bool
}

// add records one problem at path.
func (p *problems) add(path, msg string) {
	p.list = append(p.list, Problem{Path: path, Message: msg})
}

// err returns the accumulated problems as a *ValidationError, or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &ValidationError{Problems: p.list}
}
