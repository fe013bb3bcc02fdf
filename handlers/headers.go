package handlers

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows only Sked's own scripts, styles and images
// (plus data: images for inline SVG icons), no framing and no form posts to
// other sites. htmx runs without eval and without its injected indicator
// styles (see the htmx-config meta tag in web/layout.templ).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'self'; object-src 'none'"

// strictTransportSecurity tells browsers to reach Sked over HTTPS only, for
// two years, subdomains included.
const strictTransportSecurity = "max-age=63072000; includeSubDomains"

// hstsFor reports whether responses carry Strict-Transport-Security: when
// the base URL (--base-url) is https.
func hstsFor(baseURL string) bool {
	return strings.HasPrefix(strings.ToLower(baseURL), "https://")
}

// securityHeaders sets the headers every response carries, and
// Strict-Transport-Security when hsts is set.
func securityHeaders(hsts bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", contentSecurityPolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "same-origin")
			if hsts {
				h.Set("Strict-Transport-Security", strictTransportSecurity)
			}
			return next(c)
		}
	}
}
