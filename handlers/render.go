package handlers

import (
	"errors"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// render writes component with status as an HTML response.
func render(c echo.Context, status int, component templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return component.Render(c.Request().Context(), c.Response())
}

// isHTMX reports whether the request came from htmx (and so wants a
// fragment, not a full page).
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get(hxRequest) == "true"
}

// fieldErrors turns a models.ValidationError into the form's field errors.
// It returns nil when err is another error.
func fieldErrors(err error) web.FieldErrors {
	var v *models.ValidationError
	if !errors.As(err, &v) {
		return nil
	}
	out := web.FieldErrors{}
	for _, p := range v.Problems {
		if out[p.Field] == "" {
			out[p.Field] = fieldLabel(p.Field) + " " + p.Message + "."
		}
	}
	return out
}

// fieldLabel is how a form shows a field's name at the start of a message.
func fieldLabel(field string) string {
	switch field {
	case "username":
		return "User name"
	case "password":
		return "Password"
	case "confirm":
		return "The repeated password"
	}
	return field
}

// statusUnprocessable is the status of a form re-rendered with its errors.
const statusUnprocessable = http.StatusUnprocessableEntity
