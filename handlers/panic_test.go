package handlers

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestPanicIsLoggedOnce checks that a panic in a handler answers 500 and is
// logged once, with the request id the response carries and the stack.
func TestPanicIsLoggedOnce(t *testing.T) {
	var logs bytes.Buffer
	e := New(Deps{SessionSecret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.GET("/boom", func(echo.Context) error { panic("boom") })
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/boom", nil))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", w.Code)
	}
	id := w.Header().Get(headerRequestID)
	out := logs.String()
	if id == "" || strings.Count(out, "level=ERROR") != 1 || strings.Count(out, "request_id="+id) != 1 ||
		!strings.Contains(out, "panic: boom") || !strings.Contains(out, "panic_test.go") {
		t.Errorf("request id %q, logs:\n%s", id, out)
	}
	if strings.Contains(w.Body.String(), "boom") {
		t.Errorf("the answer shows the panic: %s", w.Body)
	}
}
