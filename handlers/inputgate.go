package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"sked/models/jobdef"
	"sked/scheduler/catalog"
)

// importPageLimit bounds the body of an import page (the pages the global
// body limit skips): a 50 MB file and the form around it.
const importPageLimit = catalog.MaxImportBytes + 1<<20

// multipartMemory is how much of a multipart form is kept in memory; the
// rest of its files goes to temporary files (as Echo's own default).
const multipartMemory = 32 << 20

// inputGate refuses, before any handler, a request whose input holds a NUL
// byte or text that is not valid UTF-8 (SPEC §13.8): path segments (as
// sent and decoded), query parameter names and values, form fields
// (urlencoded, and the values of multipart forms, not their files) and the
// strings of JSON bodies (a \u0000 escape, or an escape of half a UTF-16
// surrogate pair, too). Such input is a 400 naming it: PostgreSQL cannot
// store it, and Go's JSON decoder would silently replace it.
//
// Bodies stay readable for the handler: a form or JSON body is read
// (within the body limit, which runs before the gate) and put back; a
// multipart form is parsed once into the request, where FormValue and
// FormFile find it; the import API's body (up to 50 MB) is not read here
// but checked as the handler reads it, which then fails with the same 400.
func (s *Server) inputGate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if err := checkPath(r.URL); err != nil {
			return err
		}
		if err := checkValues("query parameter", r.URL.RawQuery); err != nil {
			return err
		}
		if err := checkBody(c); err != nil {
			return err
		}
		return next(c)
	}
}

// textProblem says what is wrong with s as text, or "".
func textProblem(s string) string {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return "contains a NUL byte"
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	}
	return ""
}

// errBadInput is the 400 naming the input (as "path segment 2" or
// `query parameter "after"`).
func errBadInput(name, problem string) error {
	return badRequest(name, problem)
}

// checkPath checks every segment of the path, as sent and decoded. Segments
// are counted from 1 after the leading slash.
func checkPath(u *url.URL) error {
	segs := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	for i, seg := range segs {
		name := fmt.Sprintf("path segment %d", i+1)
		if p := textProblem(seg); p != "" {
			return errBadInput(name, p)
		}
		if dec, err := url.PathUnescape(seg); err == nil {
			if p := textProblem(dec); p != "" {
				return errBadInput(name, p)
			}
		}
	}
	if p := textProblem(u.Path); p != "" {
		return errBadInput("path", p)
	}
	return nil
}

// checkValues checks the names and values of an urlencoded string (a query
// or a form body); what names them is "query parameter" or "form field".
func checkValues(what, encoded string) error {
	if encoded == "" {
		return nil
	}
	// ParseQuery keeps what it could decode; the rest reaches no handler.
	vals, _ := url.ParseQuery(encoded)
	return checkMap(what, vals)
}

// checkMap checks names and values, in name order so that the answer is
// the same every time.
func checkMap(what string, vals map[string][]string) error {
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if p := textProblem(k); p != "" {
			return errBadInput(what+" name "+fmt.Sprintf("%q", k), p)
		}
		for _, v := range vals[k] {
			if p := textProblem(v); p != "" {
				return errBadInput(fmt.Sprintf("%s %q", what, k), p)
			}
		}
	}
	return nil
}

// checkBody checks a form, multipart or JSON body. Other bodies (none of
// Sked's pages takes one) are left to the handler.
func checkBody(c echo.Context) error {
	r := c.Request()
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	if skipBodyLimit(c) && !isAPIPath(r.URL.Path) {
		// The import pages take 50 MB files; the global limit skips them.
		r.Body = http.MaxBytesReader(c.Response(), r.Body, importPageLimit)
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	isJSON := mediaType == "" || mediaType == echo.MIMEApplicationJSON || strings.HasSuffix(mediaType, "+json")
	switch {
	case mediaType == echo.MIMEApplicationForm:
		body, err := readGated(c)
		if err != nil {
			return err
		}
		return checkValues("form field", string(body))
	case mediaType == echo.MIMEMultipartForm:
		if err := r.ParseMultipartForm(multipartMemory); err != nil {
			if tooLarge(err) {
				return bodyError(err, "")
			}
			// A malformed form reaches no handler: the request keeps no
			// values of it, and CSRF or the handler answers as before.
			return nil
		}
		if err := checkMap("form field", r.MultipartForm.Value); err != nil {
			return err
		}
		files := map[string][]string{}
		for k := range r.MultipartForm.File {
			files[k] = nil
		}
		return checkMap("form field", files)
	case skipBodyLimit(c) && isAPIPath(r.URL.Path):
		// The import API streams up to 50 MB: check as the handler reads.
		r.Body = &checkedBody{ReadCloser: r.Body}
	case isJSON && (isAPIPath(r.URL.Path) || mediaType != ""):
		body, err := readGated(c)
		if err != nil {
			return err
		}
		return jsonTextError(jobdef.CheckText(body))
	case isAPIPath(r.URL.Path):
		// Another text (an .ics file): NUL and UTF-8 only.
		body, err := readGated(c)
		if err != nil {
			return err
		}
		if p := textProblem(string(body)); p != "" {
			return errBadInput("body", p)
		}
	}
	return nil
}

// readGated reads the whole body (within the limit the body limit
// middleware put on it) and puts it back for the handler.
func readGated(c echo.Context) ([]byte, error) {
	r := c.Request()
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, bodyError(err, "could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// tooLarge reports whether err says the body was over its limit.
func tooLarge(err error) bool {
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	return (errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge) || errors.As(err, &mbe)
}

// bodyError is a 413 for a body over its limit, and otherwise a 400 saying
// problem about the body.
func bodyError(err error, problem string) error {
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return err
	case errors.As(err, &mbe):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(err)
	}
	return errBadInput("body", problem)
}

// jsonTextError turns a jobdef.TextError into the 400 naming the body.
func jsonTextError(err error) error {
	var te *jobdef.TextError
	if errors.As(err, &te) {
		return errBadInput("body", te.Error())
	}
	return err
}

// checkedBody checks a JSON body as it is read: a read fails with the 400
// of the first problem found, so that a handler reading a large body never
// holds text PostgreSQL cannot store.
type checkedBody struct {
	io.ReadCloser
	scan jobdef.TextScanner
}

// Read reads from the body and checks what it read.
func (b *checkedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		if _, serr := b.scan.Write(p[:n]); serr != nil {
			return n, jsonTextError(serr)
		}
	}
	if err == io.EOF {
		if serr := b.scan.Close(); serr != nil {
			return n, jsonTextError(serr)
		}
	}
	return n, err
}
