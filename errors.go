package main

import (
	"errors"
	"flag"
	"fmt"

	"sked/models"
	"sked/models/problem"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the command failed
	exitUsage = 2 // bad command line, configuration or input
)

// exitStatus reports err, a command's result, on stderr and returns the
// exit status it calls for.
func exitStatus(sio stdio, err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	}
	var re *reportedError
	if errors.As(err, &re) {
		return re.code
	}
	fmt.Fprintln(sio.err, "sked:", err)
	var ue *usageError
	var ce *ConfigError
	if errors.As(err, &ue) || errors.As(err, &ce) {
		return exitUsage
	}
	return exitError
}

// usageError is a mistake in the command line or the input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError with the message format makes of args.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// reportedError is an error whose messages were already written to stderr;
// runCLI only turns it into the exit status.
type reportedError struct{ code int }

func (e *reportedError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// inputError makes the errors of command op that the user can act on
// usage errors (exit status 2) with their message: invalid input, a
// conflict, and a missing resource, named by missing ("such workspace").
// Any other error is wrapped with op.
func inputError(op, missing string, err error) error {
	var ve *problem.List
	var ce *models.ConflictError
	switch {
	case errors.As(err, &ve), errors.As(err, &ce):
		return usagef("%s: %v", op, err)
	case errors.Is(err, models.ErrNotFound):
		return usagef("%s: there is no %s", op, missing)
	}
	return fmt.Errorf("%s: %w", op, err)
}
