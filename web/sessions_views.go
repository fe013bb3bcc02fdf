package web

import (
	"regexp"
	"strconv"
	"strings"
)

// AccountView is the "Your account" page: the password change form and
// the user's sessions.
type AccountView struct {
	Password PasswordForm
	// PasswordMessage is the status line of the password section, or "".
	PasswordMessage string
	// TimeZone is the time zone form.
	TimeZone TimeZoneForm
	// Message is the status line of the sessions section, or "".
	Message  string
	Sessions []SessionRow
}

// TimeZoneForm is the time zone form: field "time_zone", its Value (the
// stored zone, or what was typed when it is refused), its Errors and
// Message, the status line ("" for none).
type TimeZoneForm struct {
	Value   string
	Errors  FieldErrors
	Message string
}

// CommonTimeZones are the suggestions of the time zone field; any IANA or
// Windows name is accepted.
var CommonTimeZones = []string{
	"UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Helsinki", "Europe/Moscow",
	"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo",
	"Asia/Dubai", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Asia/Singapore",
	"Australia/Sydney", "Pacific/Auckland", "Africa/Johannesburg",
}

// PasswordForm is the change-password form: fields "current", "password"
// and "confirm". Passwords are never echoed back.
type PasswordForm struct {
	Errors FieldErrors
}

// SessionRow is one of the user's sessions. Current marks the session of
// the browser looking at the page.
type SessionRow struct {
	ID       int64
	Current  bool
	Browser  string
	Address  string
	Created  AccountTime
	LastSeen AccountTime
}

// sessionEndPath is where the End button of session id posts.
func sessionEndPath(id int64) string {
	return "/account/sessions/" + strconv.FormatInt(id, 10) + "/end"
}

var (
	uaVersion = regexp.MustCompile(`^[0-9]+`)
	uaBrowser = []struct{ token, name string }{
		// Order matters: Edge and Opera also say Chrome, Chrome also says
		// Safari.
		{"Edg/", "Edge"},
		{"EdgA/", "Edge"},
		{"OPR/", "Opera"},
		{"Firefox/", "Firefox"},
		{"FxiOS/", "Firefox"},
		{"CriOS/", "Chrome"},
		{"HeadlessChrome/", "Headless Chrome"},
		{"Chromium/", "Chromium"},
		{"Chrome/", "Chrome"},
		{"Version/", "Safari"},
		{"curl/", "curl"},
	}
	uaSystem = []struct{ token, name string }{
		{"Android", "Android"},
		{"iPhone", "iOS"},
		{"iPad", "iPadOS"},
		{"Windows", "Windows"},
		{"Mac OS X", "macOS"},
		{"CrOS", "ChromeOS"},
		{"Linux", "Linux"},
	}
)

// BrowserName describes a User-Agent header for people: "Firefox 140 on
// Linux", "Chrome 131 on Windows", "Safari on iOS". An empty header gives
// "Unknown browser"; one it does not recognise is shown cut to 60
// characters.
func BrowserName(ua string) string {
	ua = strings.TrimSpace(ua)
	if ua == "" {
		return "Unknown browser"
	}
	browser := ""
	for _, b := range uaBrowser {
		if i := strings.Index(ua, b.token); i >= 0 {
			browser = b.name
			if v := uaVersion.FindString(ua[i+len(b.token):]); v != "" && b.name != "Safari" {
				browser += " " + v
			}
			break
		}
	}
	system := ""
	for _, s := range uaSystem {
		if strings.Contains(ua, s.token) {
			system = s.name
			break
		}
	}
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return "A browser on " + system
	}
	if r := []rune(ua); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return ua
}

// int64Text is id in decimal.
func int64Text(id int64) string { return strconv.FormatInt(id, 10) }

// addressText is a session's client address, or "unknown address".
func addressText(addr string) string {
	if addr == "" {
		return "unknown address"
	}
	return addr
}
