package engine

import (
	"errors"
	"time"

	"sked/models"
)

// recordLinger is how long the outbox's recorder waits for more tries to
// join a batch while other sends are in flight: a burst's tries are then
// recorded a few at a time in one statement and one commit, not one by
// one. It delays only the recording (and the sender's slot), never a send.
const recordLinger = 2 * time.Millisecond

// tryRecord is a try waiting for the recorder; done is closed once it is
// recorded (or given up).
type tryRecord struct {
	n    *models.Notification
	r    models.DeliveryResult
	done chan struct{}
}

// startRecorder starts the goroutine that records the tries of the
// outbox's senders in batches (up to Config.NotifyWorkers in one
// statement), until stopRecorder. Without it (sendDue) each try is
// recorded on its own.
func (o *outbox) startRecorder() {
	o.tries = make(chan *tryRecord, cap(o.sem))
	o.recorded = make(chan struct{})
	go o.recorder()
}

// stopRecorder stops the recorder once the tries sent to it are recorded;
// the senders must be done.
func (o *outbox) stopRecorder() {
	if o.tries == nil {
		return
	}
	close(o.tries)
	<-o.recorded
}

// record records the try r of n: through the recorder when it runs, else
// at once. It returns when the try is recorded (or given up).
func (o *outbox) record(n *models.Notification, r models.DeliveryResult) {
	if o.tries == nil {
		o.finish(n, r)
		return
	}
	t := &tryRecord{n: n, r: r, done: make(chan struct{})}
	o.tries <- t
	<-t.done
}

// recorder records tries in batches until tries is closed and drained.
func (o *outbox) recorder() {
	defer close(o.recorded)
	batch := make([]*tryRecord, 0, cap(o.sem))
	for first := range o.tries {
		batch = append(batch[:0], first)
		batch = o.fillTries(batch)
		o.finishBatch(batch)
		for _, t := range batch {
			close(t.done)
		}
	}
}

// fillTries adds to batch the tries already waiting and, while other
// sends are in flight, those arriving within recordLinger, up to
// Config.NotifyWorkers.
func (o *outbox) fillTries(batch []*tryRecord) []*tryRecord {
	var linger <-chan time.Time
	for len(batch) < cap(o.sem) {
		select {
		case t, ok := <-o.tries:
			if !ok {
				return batch
			}
			batch = append(batch, t)
			continue
		default:
		}
		if linger == nil {
			// The senders of the batch hold their slots until it is
			// recorded: the others are still sending.
			if len(o.sem) <= len(batch) {
				return batch
			}
			t := time.NewTimer(recordLinger)
			defer t.Stop()
			linger = t.C
		}
		select {
		case t, ok := <-o.tries:
			if !ok {
				return batch
			}
			batch = append(batch, t)
		case <-linger:
			return batch
		}
	}
	return batch
}

// finishBatch records the tries of batch in one statement, retrying a few
// times while the database is unavailable (else the leases expire and the
// notifications are sent again), as finish does for one.
func (o *outbox) finishBatch(batch []*tryRecord) {
	tries := make([]models.NotificationTry, len(batch))
	for i, t := range batch {
		tries[i] = models.NotificationTry{ID: t.n.ID, Result: t.r}
	}
	backoff := o.cfg.ErrorBackoff
	for try := 1; ; try++ {
		conflicts, err := o.store.FinishNotifications(o.ctx, o.cfg.Owner, tries)
		switch {
		case err == nil:
			for _, id := range conflicts {
				o.logger.Error("engine: notification try not recorded", "notification_id", id,
					"err", models.ErrConflict.Error())
			}
			return
		case errors.Is(err, models.ErrConflict) || try == 5 || o.ctx.Err() != nil:
			o.logger.Error("engine: notification tries not recorded", "count", len(tries), "err", err)
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
