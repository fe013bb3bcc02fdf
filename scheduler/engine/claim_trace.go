package engine

import (
	"context"
	"log/slog"
	"time"

	"sked/models"
)

// traceClaim logs, at debug level, where the time of one claim went: how
// late its earliest started attempt was when the claim began (late_ms:
// the wake-up and whatever the loop did before), how long the claim's
// transaction took (claim_ms), the free workers it asked for and the
// attempts it started. Nothing is computed when debug logging is off.
func (e *Engine) traceClaim(now, t0 time.Time, free int, got []models.ClaimedAttempt) {
	if !e.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	started := 0
	var first time.Time
	for i := range got {
		if got[i].Expired {
			continue
		}
		started++
		if first.IsZero() || got[i].DueAt.Before(first) {
			first = got[i].DueAt
		}
	}
	late := time.Duration(0)
	if !first.IsZero() {
		late = max(0, now.Sub(first))
	}
	e.logger.Debug("engine: claim", "free", free, "started", started, "rows", len(got),
		"late_ms", late.Milliseconds(), "claim_ms", time.Since(t0).Milliseconds())
}
