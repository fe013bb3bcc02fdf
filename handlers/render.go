package handlers

import (
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"sked/models/problem"
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

// accountLabels name the account forms' fields at the start of a sentence
// (users, setup, sign-in).
var accountLabels = map[string]string{
	"username":   "User name",
	"password":   "Password",
	"confirm":    "The repeated password",
	"setup_code": "The setup code",
}

// fieldErrors is formErrors with the account forms' labels.
func fieldErrors(err error) web.FieldErrors { return formErrors(err, accountLabels) }

// formErrors turns a *problem.List into a form's field errors written as
// sentences: "is …" and "must …" messages get the field's label in front
// ("The name is required."; labels maps a field to it, "The <field>" when
// it has none), others already name what they are about. The first
// problem of a field wins. It returns nil when err holds no *problem.List.
func formErrors(err error, labels map[string]string) web.FieldErrors {
	v := problem.As(err)
	if v == nil {
		return nil
	}
	out := web.FieldErrors{}
	for _, p := range v.Problems {
		if out[p.Path] != "" {
			continue
		}
		msg := p.Message
		if strings.HasPrefix(msg, "is ") || strings.HasPrefix(msg, "must ") {
			label := labels[p.Path]
			if label == "" {
				label = "The " + p.Path
			}
			msg = label + " " + msg
		}
		out[p.Path] = msg + "."
	}
	return out
}

// statusUnprocessable is the status of a form re-rendered with its errors.
const statusUnprocessable = http.StatusUnprocessableEntity
