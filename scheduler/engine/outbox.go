package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"sked/models"
	"sked/models/notifydef"
	"sked/scheduler/action"
)

// Sender sends one notification to a channel; *action.Notifier satisfies
// it.
type Sender interface {
	Send(ctx context.Context, ch *notifydef.Channel, ev *notifydef.Event) action.SendResult
}

// outboxConfig is what an outbox is made of: its settings, taken from
// the engine's Config, and its collaborators. The engine makes it (New)
// and starts and stops the outbox with itself; the outbox holds nothing
// of the engine's.
type outboxConfig struct {
	// Owner names the instance the notifications are leased to
	// (Config.InstanceID).
	Owner string
	// Workers caps the notifications sent at once (Config.NotifyWorkers,
	// at least 1).
	Workers int
	// Tries is how many times a notification is tried before it fails
	// (Config.NotifyTries).
	Tries int
	// Backoff is the wait after the first failed try, doubled after each
	// (Config.NotifyBackoff).
	Backoff time.Duration
	// Lease is how long a claimed notification is held: the send's
	// timeout plus Config.LeaseMargin.
	Lease time.Duration
	// QueueWait bounds how long a claimed notification waits for a free
	// sender before it is put back (half Config.LeaseMargin).
	QueueWait time.Duration
	// SafetyPoll and ErrorBackoff are the engine's (Config).
	SafetyPoll, ErrorBackoff time.Duration

	// Store is the database.
	Store Store
	// Sender sends to channels; nil means action.NewNotifier(Action).
	Sender Sender
	// Action configures the default Sender.
	Action action.Config
	// Sends wakes the outbox when a notification was stored elsewhere
	// (Notifier.Sends); nil: it wakes on its own engine's writes, its
	// timer and the safety poll only.
	Sends <-chan struct{}
	// JobURL makes an event's link to the job page; nil: no link.
	JobURL func(workspace, resourceGroup, collection, job string) string
	// MonitorURL makes a monitor event's link to the monitor's page; nil:
	// no link.
	MonitorURL func(workspace, monitor string) string
	// Calendars gives the calendars of the jobs whose schedule an event
	// describes; nil: a job excluding calendars is described without.
	Calendars CalendarSource
	// Blocked, when not nil, reports that the outbox must claim nothing
	// now (the engine's clock is too far from the database's, or its
	// heartbeat was not renewed: see Engine.Ready); it then looks again
	// after ErrorBackoff, doubling up to 5 s, or at a notification.
	Blocked func() bool
	// Clock, Logger and Metrics are the engine's.
	Clock   Clock
	Logger  *slog.Logger
	Metrics *Metrics
}

// outbox sends the notifications that the engine's writes store (SPEC
// §13.3) with its own pool of Config.NotifyWorkers goroutines, apart from
// the attempts' workers: it claims due notifications with a lease
// (models.Store.ClaimNotifications: FOR UPDATE SKIP LOCKED, so that each is
// sent by one instance at a time), sends each once, records the try, and
// puts a failed one back with exponential backoff until Config.NotifyTries
// tries. It wakes on the database's notification (NotifySendPayload), on
// its own engine's writes, at the next due try, and at the safety poll.
type outbox struct {
	cfg    outboxConfig
	store  Store
	sender Sender
	clock  Clock
	logger *slog.Logger
	// ctx is the context of the outbox's database calls, cancelled when
	// shutdown ends.
	ctx    context.Context
	cancel context.CancelFunc

	sem     chan struct{}
	freed   chan struct{}
	poke    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	sending sync.WaitGroup
	// sendCtx ends the sends in flight (Stop, past its deadline).
	sendCtx    context.Context
	sendCancel context.CancelFunc
	// closer closes the sender's idle connections at Stop, when it has them.
	closer interface{ CloseIdleConnections() }
	// channels caches the channels read, descriptions the jobs' schedule
	// descriptions.
	channels     ttlCache[*notifydef.Channel]
	descriptions ttlCache[string]
	// tries takes the senders' tries to the recorder (outbox_record.go),
	// which closes recorded when it stops; nil without run (sendDue).
	tries    chan *tryRecord
	recorded chan struct{}
	// burst says when the engine's claim loop has due attempts left: the
	// outbox then yields to it (outbox_yield.go).
	burst *burstSignal
	// onSent, when set before Start, sees every recorded try (tests).
	onSent func(n *models.Notification, r models.DeliveryResult)
}

// newOutbox returns an outbox made of cfg, not running (run starts it,
// shutdown stops it).
func newOutbox(cfg outboxConfig) *outbox {
	o := &outbox{cfg: cfg, store: cfg.Store, sender: cfg.Sender, clock: cfg.Clock, logger: cfg.Logger,
		sem: make(chan struct{}, cfg.Workers), freed: make(chan struct{}, 1),
		poke: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), burst: newBurstSignal()}
	if o.sender == nil {
		n := action.NewNotifier(cfg.Action)
		o.sender, o.closer = n, n
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	o.sendCtx, o.sendCancel = context.WithCancel(context.Background())
	return o
}

// wake makes the outbox look for due notifications now.
func (o *outbox) wake() {
	if o == nil {
		return
	}
	select {
	case o.poke <- struct{}{}:
	default:
	}
}

// run claims and sends until stop is closed; its recorder records the
// tries until shutdown.
func (o *outbox) run() {
	defer close(o.done)
	o.startRecorder()
	sends := o.cfg.Sends
	backoff := o.cfg.ErrorBackoff
	more := false // the last claim was full: claim the rest without yielding
	for {
		select {
		case <-o.stop:
			return
		default:
		}
		free := cap(o.sem) - len(o.sem)
		if free > 0 && free < o.minBatch() && !o.waitFreed(slotWait) {
			return
		}
		free = cap(o.sem) - len(o.sem)
		got, limit := 0, o.claimLimit(free)
		if free > 0 && o.cfg.Blocked != nil && o.cfg.Blocked() {
			if !o.sleep(backoff, sends, nil, nil) {
				return
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		if free > 0 {
			if !more && !o.yield() {
				return
			}
			more = false
			now := o.clock.Now()
			ns, err := o.store.ClaimNotifications(o.ctx, models.ClaimParams{Owner: o.cfg.Owner, Now: now,
				DueBy: o.dueBy(now), Lease: o.cfg.Lease, Limit: limit})
			if err != nil {
				o.logger.Warn("engine: claiming notifications failed", "err", err, "retry_in", backoff.String())
				if !o.sleep(backoff, sends, nil, nil) {
					return
				}
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			backoff = o.cfg.ErrorBackoff
			got = len(ns)
			if !o.dispatch(ns, now) {
				return
			}
			if got == limit {
				more = true
				continue // there may be more due
			}
		}
		delay := o.cfg.SafetyPoll
		var freed chan struct{}
		// held gets the engine's busy-to-idle signal only while some
		// notification is pending (perhaps held back for the burst):
		// otherwise the end of a burst has nothing to send.
		var held <-chan struct{}
		if free-got <= 0 {
			freed = o.freed // due notifications wait for a free sender
		} else if at, ok, err := o.store.NextNotification(o.ctx); err != nil {
			o.logger.Warn("engine: next notification", "err", err)
			delay = o.cfg.ErrorBackoff
		} else if ok {
			held = o.burst.idle
			delay = min(delay, o.nextAt(at).Sub(o.clock.Now()))
			if delay <= 0 {
				// Due but locked by another instance for a moment.
				delay = idleRecheck
			}
		}
		if !o.sleep(delay, sends, freed, held) {
			return
		}
	}
}

// minBatch is how many senders a busy outbox waits to be free before it
// claims again: a quarter of them, so that a burst is claimed in batches
// rather than one by one.
func (o *outbox) minBatch() int { return max(1, cap(o.sem)/4) }

// waitFreed waits until minBatch senders are free or d has passed; it
// reports false when the outbox stops.
func (o *outbox) waitFreed(d time.Duration) bool {
	t := o.clock.NewTimer(d)
	defer t.Stop()
	for cap(o.sem)-len(o.sem) < o.minBatch() {
		select {
		case <-o.freed:
		case <-t.C():
			return true
		case <-o.stop:
			return false
		}
	}
	return true
}

// sleep waits for d, a wake-up, a freed sender or (held) the engine's
// claim loop turning idle; it reports false when the outbox stops.
func (o *outbox) sleep(d time.Duration, sends, freed, held <-chan struct{}) bool {
	t := o.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
	case <-sends:
	case <-o.poke:
	case <-freed:
	case <-held: // what was held back is due
	case <-o.stop:
		return false
	}
	return true
}

// deliver sends the claimed notification n once and records the try:
// delivered, pending again after the backoff, or failed after the last
// try.
func (o *outbox) deliver(n *models.Notification) {
	res := o.send(n)
	r := models.DeliveryResult{Delivered: res.Delivered, StatusCode: res.StatusCode, Answer: res.Answer, Error: res.Error,
		Now: o.clock.Now()}
	gone := n.ChannelID == nil
	switch {
	case r.Delivered:
	case o.sendCtx.Err() != nil:
		// Interrupted by Stop: another instance (or this one, restarted)
		// sends it again at once.
		r.RetryAt, r.Error = &r.Now, "interrupted: the instance sending it stopped"
	case !gone && n.Attempts < o.cfg.Tries:
		at := r.Now.Add(o.backoff(n.Attempts))
		r.RetryAt = &at
	}
	o.record(n, r)
	if o.onSent != nil {
		o.onSent(n, r)
	}
	if r.RetryAt != nil {
		o.wake() // the loop arms its timer for the retry
	}
	level := slog.LevelDebug
	if !r.Delivered {
		level = slog.LevelWarn
	}
	o.logger.Log(o.ctx, level, "engine: notification sent", "notification_id", n.ID, "channel", n.ChannelName,
		"event", n.EventType, "delivered", r.Delivered, "try", n.Attempts, "status_code", r.StatusCode, "err", r.Error,
		"duration", res.Duration.String())
	o.cfg.Metrics.observeNotification(r.Delivered, r.RetryAt != nil)
}

// backoff is the wait after the tries-th failed try.
func (o *outbox) backoff(tries int) time.Duration {
	d := o.cfg.Backoff
	for i := 1; i < tries && d < 24*time.Hour; i++ {
		d *= 2
	}
	return d
}

// finish records a try, retrying a few times while the database is
// unavailable (else the lease expires and the notification is sent again).
func (o *outbox) finish(n *models.Notification, r models.DeliveryResult) {
	backoff := o.cfg.ErrorBackoff
	for try := 1; ; try++ {
		err := o.store.FinishNotification(o.ctx, n.ID, o.cfg.Owner, r)
		switch {
		case err == nil:
			return
		case errors.Is(err, models.ErrConflict) || try == 5 || o.ctx.Err() != nil:
			o.logger.Error("engine: notification try not recorded", "notification_id", n.ID, "err", err)
			return
		}
		t := o.clock.NewTimer(backoff)
		select {
		case <-t.C():
		case <-o.ctx.Done():
		}
		t.Stop()
		backoff = min(2*backoff, 5*time.Second)
	}
}

// send sends n to its channel once.
func (o *outbox) send(n *models.Notification) action.SendResult {
	if n.ChannelID == nil {
		return action.SendResult{Error: "the channel " + n.ChannelName + " was deleted"}
	}
	ch, err := o.channels.get(o.ctx, *n.ChannelID, o.loadChannel)
	if errors.Is(err, models.ErrNotFound) {
		return action.SendResult{Error: "the channel " + n.ChannelName + " was deleted"}
	}
	if err != nil {
		return action.SendResult{Error: fmt.Sprintf("the channel cannot be read: %v", err)}
	}
	var ev notifydef.Event
	if err := json.Unmarshal(n.Event, &ev); err != nil {
		return action.SendResult{Error: fmt.Sprintf("the stored event cannot be read: %v", err)}
	}
	if o.cfg.JobURL != nil && ev.Job != "" {
		ev.URL = o.cfg.JobURL(ev.Workspace, ev.ResourceGroup, ev.Collection, ev.Job)
	}
	if o.cfg.MonitorURL != nil && ev.Monitor != "" {
		ev.URL = o.cfg.MonitorURL(ev.Workspace, ev.Monitor)
	}
	if ev.JobInfo != nil && ev.JobInfo.Description == "" && n.JobID != nil {
		// A job deleted since, or unreadable: the event goes without.
		ev.JobInfo.Description, _ = o.descriptions.get(o.ctx, *n.JobID, o.describeJob)
	}
	return o.sender.Send(o.sendCtx, ch, &ev)
}

// loadChannel reads channel id from the store.
func (o *outbox) loadChannel(ctx context.Context, id int64) (*notifydef.Channel, error) {
	row, err := o.store.ChannelByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return notifydef.FromStored(row.Type, row.Description, row.Config, row.Secrets)
}

// shutdown stops claiming, lets the sends in flight finish until ctx
// ends, then interrupts them (they are recorded pending again) and waits.
func (o *outbox) shutdown(ctx context.Context) {
	close(o.stop)
	<-o.done
	idle := make(chan struct{})
	go func() { o.sending.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
		o.logger.Warn("engine: interrupting the notifications still being sent")
		o.sendCancel()
		<-idle
	}
	o.stopRecorder()
	o.sendCancel()
	o.cancel()
	if o.closer != nil {
		o.closer.CloseIdleConnections()
	}
}
