package handlers

import (
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/models/monitordef"
)

// pingRate and pingBurst limit the pings of one token (SPEC §17.3: 10 a
// second): a token bucket of pingBurst pings refilled at pingRate per
// second.
const (
	pingRate  = 10.0
	pingBurst = 10.0
	// pingIdle is how long a token's bucket is kept after its last ping.
	pingIdle = time.Minute
	// pingSweepEvery is how many new buckets are made between sweeps of
	// the idle ones.
	pingSweepEvery = 1024
	// pingMaxBuckets bounds the buckets kept (a flood of made-up tokens):
	// when a sweep leaves more, all are dropped, which at worst lets a
	// token ping a burst more.
	pingMaxBuckets = 100_000
)

// pingLimiter limits pings per token, in this process only: with several
// instances behind a load balancer, each allows 10 a second. Safe for
// concurrent use.
type pingLimiter struct {
	mu      sync.Mutex
	buckets map[string]*pingBucket
	made    int
}

// pingBucket is one token's bucket.
type pingBucket struct {
	tokens float64
	last   time.Time
}

func newPingLimiter() *pingLimiter { return &pingLimiter{buckets: map[string]*pingBucket{}} }

// allow takes one ping of key at now from its bucket; when it is empty it
// reports false and how long until the next ping is allowed.
func (l *pingLimiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		if l.made++; l.made%pingSweepEvery == 0 {
			for k, old := range l.buckets {
				if now.Sub(old.last) > pingIdle {
					delete(l.buckets, k)
				}
			}
			if len(l.buckets) > pingMaxBuckets {
				clear(l.buckets)
			}
		}
		b = &pingBucket{tokens: pingBurst, last: now}
		l.buckets[key] = b
	}
	if d := now.Sub(b.last).Seconds(); d > 0 {
		b.tokens = math.Min(pingBurst, b.tokens+d*pingRate)
		b.last = now
	}
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / pingRate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}

// ping answers GET and POST /ping/{token}[/start|/fail] (SPEC §17.3): no
// sign-in, the token is the capability. 200 "OK" when recorded; 404 for an
// unknown token; 429 with Retry-After over 10 pings a second per token; a
// fail ping's body (up to 10 kB; a longer one is cut at 10 kB on a
// character boundary) is kept as its message. It answers no 5xx but one:
// 503 with Retry-After when the database cannot record the ping (it is not
// kept anywhere else, and saying so lets the sender retry).
func (s *Server) ping(kind monitordef.PingKind) echo.HandlerFunc {
	return func(c echo.Context) error {
		token := c.Param("token")
		now := s.clock()
		if ok, wait := s.pings.allow(token, now); !ok {
			secs := int(math.Ceil(wait.Seconds()))
			c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, secs)))
			return c.String(http.StatusTooManyRequests, "Too many pings: at most 10 a second per monitor.\n")
		}
		message := ""
		if kind == monitordef.PingFail && c.Request().Body != nil {
			body, err := io.ReadAll(io.LimitReader(c.Request().Body, monitordef.MaxMessage+utf8.UTFMax))
			if err != nil {
				return c.String(http.StatusBadRequest, "The body could not be read.\n")
			}
			message = cutMessage(body)
		}
		_, err := s.store.RecordPing(c.Request().Context(), models.MonitorTokenHash(token), string(kind), now, message)
		switch {
		case err == nil:
			return c.String(http.StatusOK, "OK\n")
		case errors.Is(err, models.ErrNotFound):
			return c.String(http.StatusNotFound, "No monitor has this ping URL.\n")
		default:
			s.log.Warn("ping not recorded", "kind", string(kind), "err", err)
			c.Response().Header().Set("Retry-After", "5")
			return c.String(http.StatusServiceUnavailable, "The ping could not be recorded now: try again.\n")
		}
	}
}

// cutMessage returns body as a message: at most monitordef.MaxMessage
// bytes, cut on a character boundary, invalid UTF-8 and NULs replaced.
func cutMessage(body []byte) string {
	if len(body) > monitordef.MaxMessage {
		body = body[:monitordef.MaxMessage]
		// Drop a character the cut split.
		j := len(body) - 1
		for j > 0 && len(body)-j < utf8.UTFMax && !utf8.RuneStart(body[j]) {
			j--
		}
		if j >= 0 && !utf8.FullRune(body[j:]) {
			body = body[:j]
		}
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	for len(s) > monitordef.MaxMessage { // replacements may have grown it
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
