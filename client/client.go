// Package client is a small Go client of Sked's REST API (SPEC §7, §13):
// the Azure Scheduler routes for collections, jobs and history, and
// Sked's own /api/v1 routes for workspaces, calendars, notification
// channels and alert rules. It uses net/http only and speaks JSON; the
// documents it returns are the server's, unchanged (json.RawMessage), so
// that callers compare and show what the server stores.
//
// A Client is safe for concurrent use. Every error the server answers is
// an *Error carrying its status, code, message and the fields it names.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// APIVersion is the api-version the client sends on the Azure Scheduler
// routes.
const APIVersion = "2016-03-01"

// maxAnswer bounds an answer's body: 64 MB.
const maxAnswer = 64 << 20

// Client talks to one Sked server with one API token.
type Client struct {
	base  *url.URL
	token string
	// HTTP sends the requests; New sets a client with a 60-second
	// timeout. It may be replaced before the first request.
	HTTP *http.Client
	// PageSize is the $top of the Azure Scheduler lists (collections,
	// jobs, history), 1–100; zero leaves the server's default (100).
	// Lists follow nextLink whatever it is.
	PageSize int
}

// New returns a client of the Sked at server (an http or https URL, e.g.
// "https://sked.example.com"; a path is kept as a prefix) that sends
// token as its bearer token. Both are required.
func New(server, token string) (*Client, error) {
	if strings.TrimSpace(server) == "" {
		return nil, errors.New("client: the server URL is empty")
	}
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("client: the API token is empty")
	}
	u, err := url.Parse(strings.TrimSpace(server))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http or https URL of a server", server)
	}
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
	u.RawQuery, u.Fragment = "", ""
	return &Client{base: u, token: strings.TrimSpace(token), HTTP: &http.Client{Timeout: 60 * time.Second}}, nil
}

// Server returns the server's URL as New read it.
func (c *Client) Server() string { return c.base.String() }

// Error is an answer of the server with a status of 400 or above. Its
// fields are those of the error shape of SPEC §7 ({"error": {"code",
// "message", "details": [{"target", "message"}]}}).
type Error struct {
	// Method and URL are the request's (the URL without its query).
	Method, URL string
	// Status is the HTTP status code.
	Status int
	// Code is the error's code ("BadRequest", "ResourceNotFound", …).
	Code string
	// Message is the server's message; the body's text when it was not
	// the JSON error shape.
	Message string
	// Details are the problems of a 400: the field (Target, a path such
	// as "action.request.uri") and the whole "path: message" line.
	Details []Detail
}

// Detail is one problem of an Error.
type Detail struct {
	Target  string `json:"target"`
	Message string `json:"message"`
}

// Error returns the status and the server's message with every problem.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.URL, e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for _, d := range e.Details {
		if !strings.Contains(e.Message, d.Message) {
			b.WriteString("; " + d.Message)
		}
	}
	return b.String()
}

// IsNotFound reports whether err is an *Error with status 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// do sends a request to path (relative to the server's URL, with query)
// with body as JSON when not nil, and decodes a 2xx answer into out when
// out is not nil (a *json.RawMessage takes the body as it is).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body []byte, out any) error {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = query.Encode()
	return c.send(ctx, method, &u, body, out)
}

// send is do with the whole URL.
func (c *Client) send(ctx context.Context, method string, u *url.URL, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, u.Path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, u.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("client: %s %s: read the answer: %w", method, u.Path, err)
	}
	if resp.StatusCode >= 400 {
		return answerError(method, u.Path, resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		*raw = append(json.RawMessage(nil), data...)
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("client: %s %s: the answer is not the JSON expected: %w", method, u.Path, err)
	}
	return nil
}

// answerError reads an error answer.
func answerError(method, path string, status int, data []byte) *Error {
	e := &Error{Method: method, URL: path, Status: status}
	var shape struct {
		Error struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Details []Detail `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &shape) == nil && (shape.Error.Code != "" || shape.Error.Message != "") {
		e.Code, e.Message, e.Details = shape.Error.Code, shape.Error.Message, shape.Error.Details
		return e
	}
	e.Message = strings.TrimSpace(string(data))
	if len(e.Message) > 500 {
		e.Message = e.Message[:500] + "…"
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// page is one page of a list: {"value": […], "nextLink": "…"}.
type page[T any] struct {
	Value    []T    `json:"value"`
	NextLink string `json:"nextLink"`
}

// list reads every page of the list at path, following nextLink. A
// nextLink is followed on the client's own server (its path and query,
// never another host, so that the token goes nowhere else).
func list[T any](ctx context.Context, c *Client, path string, query url.Values) ([]T, error) {
	var out []T
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = query.Encode()
	for range 100000 {
		var p page[T]
		if err := c.send(ctx, http.MethodGet, &u, nil, &p); err != nil {
			return nil, err
		}
		out = append(out, p.Value...)
		if p.NextLink == "" {
			return out, nil
		}
		next, err := url.Parse(p.NextLink)
		if err != nil {
			return nil, fmt.Errorf("client: GET %s: the nextLink %q is not a URL: %w", u.Path, p.NextLink, err)
		}
		u = *c.base
		u.Path, u.RawPath, u.RawQuery = next.Path, next.RawPath, next.RawQuery
	}
	return nil, fmt.Errorf("client: GET %s: more than 100000 pages", path)
}
