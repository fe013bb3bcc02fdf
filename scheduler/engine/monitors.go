package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sked/models"
	"sked/models/monitordef"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// WorkspaceCalendarSource gives the compiled calendars of a workspace
// (catalog.Catalog implements it): what a heartbeat monitor's schedule
// excludes. A Deps.Calendars that does not implement it leaves monitors
// that exclude calendars unevaluated (each is logged).
type WorkspaceCalendarSource interface {
	WorkspaceCalendars(ctx context.Context, workspaceID string) (recurrence.Calendars, error)
}

// maxMonitorDecisions bounds the occurrences of one monitor decided in one
// transaction; more (an engine down for long, a minutely monitor) are
// decided by the next rounds at once.
const maxMonitorDecisions = 500

// watchMonitors evaluates the heartbeat monitors (SPEC §17.3) until the
// engine stops: each round decides every occurrence whose grace has
// passed (met or missed, models.Store.DecideMonitor) and raises the
// slowRun of every start ping older than its monitor's maxDuration, then
// sleeps until the earliest next such moment (a timer, not a poll), a
// wake-up (a monitor written or pinged with a start: the claim loop's
// notifications and Wake pass it on, pokeMonitors) or the safety poll.
// Every engine runs it; the store makes each decision once across them.
// It decides nothing while the engine may not claim (claimBlocked: no
// heartbeat yet, or the clock too far from the database's).
func (e *Engine) watchMonitors() {
	e.watchTimed("monitors", e.evaluateMonitors, e.monitorPoke)
}

// pokeMonitors makes watchMonitors look again at once; a wake-up already
// pending absorbs it.
func (e *Engine) pokeMonitors() {
	select {
	case e.monitorPoke <- struct{}{}:
	default:
	}
}

// evaluateMonitors runs one round of watchMonitors at the engine's now and
// returns when the next round is due (zero: nothing is expected).
func (e *Engine) evaluateMonitors(ctx context.Context) (time.Time, error) {
	ms, err := e.store.WatchedMonitors(ctx)
	if err != nil {
		return time.Time{}, err
	}
	now := e.clock.Now()
	var next time.Time
	earliest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	cals := map[string]recurrence.Calendars{}
	for i := range ms {
		at, err := e.evaluateMonitor(ctx, &ms[i], now, cals)
		if err != nil {
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			e.logger.Warn("engine: monitor not evaluated", "workspace", ms[i].WorkspaceID, "monitor", ms[i].Name, "err", err)
			continue
		}
		if !at.IsZero() {
			earliest(at)
		}
	}
	return next, nil
}

// evaluateMonitor decides m's occurrences whose grace ended by now and
// raises its slowRun when due; it returns when m needs looking at next
// (zero: never). cals memoises workspace calendars for the round.
func (e *Engine) evaluateMonitor(ctx context.Context, m *models.WatchedMonitor, now time.Time, cals map[string]recurrence.Calendars) (time.Time, error) {
	def, err := monitordef.Parse(m.Definition)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored definition: %w", err)
	}
	var wsCals recurrence.Calendars
	if def.Recurrence.Calendars != nil && len(def.Recurrence.Calendars.Exclude) > 0 {
		var ok bool
		if wsCals, ok = cals[m.WorkspaceID]; !ok {
			if e.wsCalendars == nil {
				return time.Time{}, errors.New("the monitor excludes calendars, but the engine has no calendar source")
			}
			if wsCals, err = e.wsCalendars.WorkspaceCalendars(ctx, m.WorkspaceID); err != nil {
				return time.Time{}, err
			}
			cals[m.WorkspaceID] = wsCals
		}
	}
	rule, err := plan.MonitorRule(def, m.Anchor, wsCals)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	var due []time.Time
	for t := m.CheckedThrough; len(due) < maxMonitorDecisions; {
		occ, ok := rule.Next(t)
		if !ok {
			break
		}
		if end := occ.Add(def.Grace); end.After(now) {
			next = end
			break
		}
		due = append(due, occ)
		t = occ
	}
	if len(due) > 0 {
		d, err := e.store.DecideMonitor(ctx, models.MonitorDecision{ID: m.ID, Version: m.Version, From: m.CheckedThrough,
			Expected: due, Grace: def.Grace, Now: now})
		if err != nil {
			return time.Time{}, err
		}
		if d.Decided {
			e.logger.Debug("engine: monitor occurrences decided", "monitor", m.Name, "met", d.Met, "missed", d.Missed, "events", d.Events)
		}
		if len(due) == maxMonitorDecisions || !d.Decided {
			next = now // more to decide, or the monitor changed: look again
		}
	}
	if def.MaxDuration > 0 && m.StartedAt != nil && (m.SlowRaisedFor == nil || !m.SlowRaisedFor.Equal(*m.StartedAt)) {
		at := m.StartedAt.Add(def.MaxDuration)
		if at.After(now) {
			if next.IsZero() || at.Before(next) {
				next = at
			}
		} else if _, err := e.store.RaiseSlowRun(ctx, m.ID, *m.StartedAt, now); err != nil {
			return time.Time{}, err
		}
	}
	return next, nil
}
