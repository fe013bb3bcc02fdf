package handlers

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsHandler serves the default Prometheus registry: the engine's
// metrics (engine.DefaultMetrics) and the Go runtime's.
var metricsHandler = promhttp.Handler()

// metrics answers GET /metrics in the Prometheus text format. It needs no
// session: put it behind the network's own access control.
func (s *Server) metrics(c echo.Context) error {
	metricsHandler.ServeHTTP(c.Response(), c.Request())
	return nil
}
