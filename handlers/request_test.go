package handlers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"sked/models/problem"
)

// requestContext is an echo context of a request with query and body.
func requestContext(query, body string) echo.Context {
	r := httptest.NewRequest(http.MethodPost, "/?"+query, strings.NewReader(body))
	return echo.New().NewContext(r, httptest.NewRecorder())
}

// problemPath is the field the 400 err names, or "" for another error.
func problemPath(err error) string {
	if p := problem.As(err); p != nil && len(p.Problems) == 1 {
		return p.Problems[0].Path
	}
	return ""
}

func TestParsePaging(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  paging
		bad   string
	}{
		{"", paging{top: 100}, ""},
		{"$top=5&$skip=10", paging{top: 5, skip: 10}, ""},
		{"$top=1&$skip=0", paging{top: 1}, ""},
		{"$top=0", paging{}, "$top"},
		{"$top=101", paging{}, "$top"},
		{"$top=ten", paging{}, "$top"},
		{"$skip=-1", paging{}, "$skip"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got, err := parsePaging(requestContext(tc.query, ""))
			if tc.bad != "" {
				if problemPath(err) != tc.bad {
					t.Errorf("err = %v, want a 400 naming %s", err, tc.bad)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("parsePaging = %+v, %v, want %+v", got, err, tc.want)
			}
		})
	}
}

func TestReadBody(t *testing.T) {
	if got, err := readBody(requestContext("", `{"a":1}`), 10); err != nil || string(got) != `{"a":1}` {
		t.Errorf("a short body: %q, %v", got, err)
	}
	for name, body := range map[string]string{"over the maximum": strings.Repeat("x", 11), "empty": "", "blank": " \n"} {
		if _, err := readBody(requestContext("", body), 10); problemPath(err) != "body" {
			t.Errorf("%s: err = %v, want a 400 naming body", name, err)
		}
	}
	// Without a length, the body is read only up to one byte over.
	c := requestContext("", strings.Repeat("x", 100))
	c.Request().ContentLength = -1
	if _, err := readBody(c, 10); problemPath(err) != "body" || !strings.Contains(err.Error(), "over the maximum of 10 bytes") {
		t.Errorf("a body of unknown length over the maximum: %v", err)
	}
}
