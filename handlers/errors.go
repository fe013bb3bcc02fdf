package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/problem"
	"sked/scheduler/catalog"
	"sked/web"
)

// handleError is the one place where errors become responses: a JSON error
// in the Azure shape for API paths, an error fragment for htmx, an error
// page otherwise. Unexpected errors are logged and answered 500 without
// their details.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		s.log.Error("error after response started", "method", c.Request().Method, "path", c.Path(), "err", err)
		return
	}
	status, message := classify(err)
	if status >= 500 {
		args := []any{"method", c.Request().Method, "uri", c.Request().RequestURI,
			"request_id", c.Response().Header().Get(headerRequestID), "err", err}
		var pe *panicError
		if errors.As(err, &pe) {
			args = append(args, "stack", string(pe.stack))
		}
		s.log.Error("request failed", args...)
	}
	var werr error
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(status)
	case isAPIPath(c.Request().URL.Path):
		werr = c.JSON(status, apiError{Error: apiErrorBody{Code: apiCode(status), Message: message, Details: problemDetails(err)}})
	case isHTMX(c):
		werr = render(c, status, web.ErrorFragment(errorView(status, message)))
	default:
		werr = render(c, status, web.ErrorPage(page(c, http.StatusText(status)), errorView(status, message)))
	}
	if werr != nil {
		s.log.Error("writing error response", "err", werr)
	}
}

// panicError is a panic that the Recover middleware caught, with the
// stack where it happened.
type panicError struct {
	err   error
	stack []byte
}

// Error returns the panic's value.
func (e *panicError) Error() string { return "panic: " + e.err.Error() }

// Unwrap returns the panic's value as an error.
func (e *panicError) Unwrap() error { return e.err }

// recovered is the Recover middleware's LogErrorFunc: it logs nothing, but
// hands the panic to handleError, which logs it once with the request id
// and answers 500.
func recovered(_ echo.Context, err error, stack []byte) error {
	return &panicError{err: err, stack: stack}
}

// classify maps an error to a status code and a message safe to show.
func classify(err error) (int, string) {
	var he *echo.HTTPError
	var ve *problem.List
	var qe *models.QuotaError
	var ce *models.ConflictError
	var fe *catalog.ForbiddenError
	switch {
	case errors.As(err, &fe):
		return forbidden(fe)
	case errors.Is(err, catalog.ErrMayNotCreate):
		return http.StatusForbidden, "Only instance administrators may create workspaces here (the server runs without --open-workspaces)."
	case errors.Is(err, models.ErrLastOwner):
		return http.StatusConflict, "The last owner of a workspace cannot be removed or demoted: make another member owner first."
	case errors.As(err, &qe):
		return http.StatusConflict, qe.Message
	case errors.As(err, &ce):
		return http.StatusConflict, ce.Message
	case errors.Is(err, models.ErrJobFinished):
		return http.StatusConflict, "The job is completed or faulted: it cannot run any more."
	case errors.Is(err, models.ErrJobNotEnabled):
		return http.StatusConflict, "The job is disabled: enable it to run it."
	case errors.Is(err, catalog.ErrNoEngine):
		return http.StatusServiceUnavailable, "The engine is not running in this process."
	case errors.Is(err, catalog.ErrImportsStopped):
		return http.StatusServiceUnavailable, "The server is starting or stopping: try the import again in a moment."
	case errors.Is(err, models.ErrReadOnly), errors.Is(err, models.ErrUnavailable):
		return http.StatusServiceUnavailable, "The database is unavailable or read-only (a failover may be under way): try again in a moment."
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && m != "" {
			msg = m
		}
		if he.Code == http.StatusRequestEntityTooLarge {
			msg = "The request body is too large."
		}
		return he.Code, msg
	case errors.As(err, &ve):
		return http.StatusBadRequest, ve.Error()
	case errors.Is(err, models.ErrNotFound):
		return http.StatusNotFound, "Not found."
	case errors.Is(err, models.ErrInvalidText):
		return http.StatusBadRequest, "The request holds a NUL byte or text that is not valid UTF-8."
	case errors.Is(err, models.ErrSetupDone):
		return http.StatusNotFound, "Setup is already complete: sign in instead."
	case errors.Is(err, models.ErrConflict):
		return http.StatusConflict, "This conflicts with existing data."
	}
	return http.StatusInternalServerError, "Something went wrong on our side. The error has been logged."
}

func isAPIPath(path string) bool {
	p := strings.ToLower(path)
	return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/subscriptions/") ||
		p == "/healthz" || p == "/readyz"
}

// apiError is the Azure Resource Manager error shape.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Code    string           `json:"code"`
	Message string           `json:"message"`
	Details []apiErrorDetail `json:"details,omitempty"`
}

// apiErrorDetail is one validation problem: Target is the field's path and
// Message the whole "path: message" line.
type apiErrorDetail struct {
	Code    string `json:"code"`
	Target  string `json:"target"`
	Message string `json:"message"`
}

// problemDetails lists the problems of a validation error, one detail each,
// or nil for other errors.
func problemDetails(err error) []apiErrorDetail {
	var out []apiErrorDetail
	if ve := problem.As(err); ve != nil {
		for _, p := range ve.Problems {
			out = append(out, apiErrorDetail{Code: "BadRequest", Target: p.Path, Message: p.String()})
		}
	}
	return out
}

// apiCode is the ARM error code for a status.
func apiCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequest"
	case http.StatusUnauthorized:
		return "AuthenticationFailed"
	case http.StatusForbidden:
		return "AuthorizationFailed"
	case http.StatusNotFound:
		return "ResourceNotFound"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusRequestEntityTooLarge:
		return "RequestEntityTooLarge"
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowed"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	}
	if status >= 500 {
		return "InternalServerError"
	}
	return strings.ReplaceAll(http.StatusText(status), " ", "")
}

func errorView(status int, message string) web.ErrorView {
	title := http.StatusText(status)
	if title == "" {
		title = fmt.Sprintf("Error %d", status)
	}
	return web.ErrorView{Status: status, Title: title, Message: message}
}

// refusal is the message of an error that refuses a job action for a
// reason the user can act on, or "" for other errors.
func refusal(err error) string {
	var he *echo.HTTPError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, models.ErrJobFinished), errors.Is(err, models.ErrJobNotEnabled), errors.Is(err, catalog.ErrNoEngine):
		_, msg := classify(err)
		return msg
	case errors.As(err, &he) && he.Code == http.StatusServiceUnavailable:
		_, msg := classify(err)
		return msg
	case problem.As(err) != nil:
		return problem.As(err).Problems[0].Sentence()
	}
	return ""
}
