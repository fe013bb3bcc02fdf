package handlers

import "github.com/labstack/echo/v4"

// contentSecurityPolicy allows only Sked's own scripts, styles and images
// (plus data: images for inline SVG icons), no framing and no form posts to
// other sites. htmx runs without eval and without its injected indicator
// styles (see the htmx-config meta tag in web/layout.templ).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'self'; object-src 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}
