package provider

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

// errNotConfigured is what a resource answers before the provider has a
// client (its endpoint or token is known only after another apply).
var errNotConfigured = errors.New("the sked provider is not configured yet: its endpoint or token is not known")

// apiVersion is the Azure Scheduler API version the provider speaks.
const apiVersion = "2016-03-01"

// client talks to one Sked server with one API token. It is safe for
// concurrent use (Terraform runs up to ten operations at once).
type client struct {
	endpoint  string // e.g. http://127.0.0.1:8080, without a trailing slash
	token     string
	workspace string // the ARM subscription new collections and jobs go into
	http      *http.Client
	userAgent string
}

// apiError is a non-2xx answer: the status and Sked's
// {"error": {"code", "message", "details": [{"target", "message"}]}}.
type apiError struct {
	Status  int
	Code    string
	Message string
	Details []apiErrorDetail
}

type apiErrorDetail struct {
	Code    string `json:"code"`
	Target  string `json:"target"`
	Message string `json:"message"`
}

func (e *apiError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("Sked answered %d %s: %s", e.Status, e.Code, msg)
}

// workspaceOf is the provider's workspace ("" before it is configured).
func (c *client) workspaceOf() string {
	if c == nil {
		return ""
	}
	return c.workspace
}

// isNotFound reports whether err is a 404 from Sked.
func isNotFound(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// do sends a request with a JSON body (nil for none) and decodes a JSON
// answer into out (nil to discard it). rawPath is the path with its segments
// already escaped; query is added to it.
func (c *client) do(ctx context.Context, method, rawPath string, query url.Values, body, out any) error {
	if c == nil {
		return errNotConfigured
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encode body: %w", method, rawPath, err)
		}
		rd = bytes.NewReader(b)
	}
	u := c.endpoint + rawPath
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, rawPath, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, rawPath, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, rawPath, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ae := &apiError{Status: resp.StatusCode}
		var env struct {
			Error struct {
				Code    string           `json:"code"`
				Message string           `json:"message"`
				Details []apiErrorDetail `json:"details"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &env) == nil && (env.Error.Code != "" || env.Error.Message != "") {
			ae.Code, ae.Message, ae.Details = env.Error.Code, env.Error.Message, env.Error.Details
		} else {
			ae.Message = strings.TrimSpace(string(b))
		}
		return fmt.Errorf("%s %s: %w", method, rawPath, ae)
	}
	if out != nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, rawPath, err)
		}
	}
	return nil
}

// arm sends a request to an ARM path with the api-version.
func (c *client) arm(ctx context.Context, method, rawPath string, body, out any) error {
	return c.do(ctx, method, rawPath, url.Values{"api-version": {apiVersion}}, body, out)
}

// newClient checks the configuration and returns a client.
func newClient(endpoint, token, workspace, version string) (*client, error) {
	endpoint = strings.TrimRight(strings.TrimSpace(endpoint), "/")
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q is not an http or https URL such as https://sked.example.com", endpoint)
	}
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("token is empty: create one with `sked token add USER` or on the Tokens page")
	}
	if workspace == "" {
		workspace = "default"
	}
	return &client{
		endpoint:  endpoint,
		token:     strings.TrimSpace(token),
		workspace: workspace,
		http:      &http.Client{Timeout: 60 * time.Second},
		userAgent: "terraform-provider-sked/" + version,
	}, nil
}

// isForbidden reports whether err is a 403 from Sked (also its answer for
// a workspace that does not exist).
func isForbidden(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == http.StatusForbidden
}
