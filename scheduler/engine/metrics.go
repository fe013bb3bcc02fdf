package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sked/models"
)

// Metrics are the engine's Prometheus metrics (SPEC §10): attempts by
// status and action, start lateness, due backlog, claim and HTTP
// durations, the clock offset from the database. Create them with NewMetrics; one Metrics may serve one engine.
type Metrics struct {
	attempts  *prometheus.CounterVec
	lateness  prometheus.Histogram
	claim     prometheus.Histogram
	http      *prometheus.HistogramVec
	postponed prometheus.Counter
	notified  *prometheus.CounterVec
	// clockOffset is the latest measured offset of the instance's clock
	// from the database's (database − instance), in seconds.
	clockOffset prometheus.Gauge
	backlog     atomic.Pointer[func() float64]
	// targetWait is how long attempts waited for their host's target
	// limit, by host (apart from the engine's lateness, which includes
	// it); targets reads the hosts' gauges when scraped.
	targetWait *prometheus.HistogramVec
	targets    atomic.Pointer[func() ([]models.TargetGauge, error)]
}

// NewMetrics creates the metrics and registers them with reg (nothing is
// registered when reg is nil). The due backlog is computed when scraped,
// with a query bounded to 2 s.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sked_engine_attempts_total",
			Help: "Execution attempts finished, by status (Completed, Failed) and action (MainAction, ErrorAction).",
		}, []string{"status", "action"}),
		lateness: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sked_engine_start_lateness_seconds",
			Help:    "How late attempts started after their due time.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
		claim: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sked_engine_claim_duration_seconds",
			Help:    "Duration of the claim transactions.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		http: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sked_engine_http_duration_seconds",
			Help:    "Duration of the HTTP requests of http/https actions, by status class (2xx … 5xx, error).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"class"}),
		postponed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sked_engine_postponed_total",
			Help: "Postponed history entries planned (missed or overlapping occurrences); a claim that rolls back may count one twice.",
		}),
		notified: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sked_engine_notification_tries_total",
			Help: "Tries of sending notifications, by result (delivered, retry, failed).",
		}, []string{"result"}),
		clockOffset: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sked_clock_offset_seconds",
			Help: "Offset of this instance's clock from the database's (database minus instance), measured at every heartbeat.",
		}),
		targetWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sked_target_wait_seconds",
			Help:    "How long attempts started by this instance waited for their host's target limit, by host.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"host"}),
	}
	if reg != nil {
		reg.MustRegister(m.attempts, m.lateness, m.claim, m.http, m.postponed, m.notified, m.clockOffset, m.targetWait,
			targetCollector{m},
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "sked_engine_due_backlog",
				Help: "Occurrences and attempts due now and not started yet.",
			}, func() float64 {
				f := m.backlog.Load()
				if f == nil {
					return 0
				}
				return (*f)()
			}))
	}
	return m
}

func (m *Metrics) observeHTTP(d time.Duration, status int) {
	class := "error"
	if status >= 100 && status < 600 {
		class = string(rune('0'+status/100)) + "xx"
	}
	m.http.WithLabelValues(class).Observe(d.Seconds())
}

// observeNotification counts one try of sending a notification.
func (m *Metrics) observeNotification(delivered, retry bool) {
	result := "failed"
	switch {
	case delivered:
		result = "delivered"
	case retry:
		result = "retry"
	}
	m.notified.WithLabelValues(result).Inc()
}

// setBacklog makes the backlog gauge ask store.
func (m *Metrics) setBacklog(store Store, clock Clock) {
	f := func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, err := store.DueBacklog(ctx, clock.Now())
		if err != nil {
			return -1
		}
		return float64(n)
	}
	m.backlog.Store(&f)
}

// setTargets makes the target gauges ask store.
func (m *Metrics) setTargets(store Store) {
	f := func() ([]models.TargetGauge, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return store.TargetGauges(ctx)
	}
	m.targets.Store(&f)
}

// observeTargetWait records the wait for a target limit of an attempt
// that one held (a nil wait: none held it).
func (m *Metrics) observeTargetWait(host string, waitMs *int64) {
	if host == "" || waitMs == nil {
		return
	}
	m.targetWait.WithLabelValues(host).Observe(float64(*waitMs) / 1000)
}

// Descriptions of the target gauges (SPEC §16.2), labelled by workspace
// and host.
var (
	targetWaitingDesc = prometheus.NewDesc("sked_target_waiting",
		"Attempts due and waiting for their host's target limit, across all instances.", []string{"workspace", "host"}, nil)
	targetInFlightDesc = prometheus.NewDesc("sked_target_in_flight",
		"Attempts in flight to a host with a target limit, across all instances.", []string{"workspace", "host"}, nil)
)

// targetCollector reports the target gauges, read from the database
// when scraped (bounded to 2 s; nothing when it fails).
type targetCollector struct{ m *Metrics }

func (c targetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- targetWaitingDesc
	ch <- targetInFlightDesc
}

func (c targetCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.m.targets.Load()
	if f == nil {
		return
	}
	gauges, err := (*f)()
	if err != nil {
		return
	}
	for _, g := range gauges {
		ch <- prometheus.MustNewConstMetric(targetWaitingDesc, prometheus.GaugeValue, float64(g.Waiting), g.WorkspaceID, g.Host)
		ch <- prometheus.MustNewConstMetric(targetInFlightDesc, prometheus.GaugeValue, float64(g.InFlight), g.WorkspaceID, g.Host)
	}
}

var (
	defaultMetricsOnce sync.Once
	defaultMetrics     *Metrics
)

// DefaultMetrics returns the process's metrics, registered once with
// prometheus.DefaultRegisterer (what /metrics serves). Several engines in
// one process (tests) share them; the due backlog follows the engine
// created last.
func DefaultMetrics() *Metrics {
	defaultMetricsOnce.Do(func() { defaultMetrics = NewMetrics(prometheus.DefaultRegisterer) })
	return defaultMetrics
}
