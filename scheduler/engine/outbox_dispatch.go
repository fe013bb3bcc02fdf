package engine

import (
	"time"

	"sked/models"
)

// claimQueue is how many notifications the outbox claims per free sender
// in one statement: a burst is claimed (and recorded) in batches of up to
// claimQueue×Config.NotifyWorkers rather than one per sender, the ones
// beyond the free senders waiting in the outbox for the next free one.
const claimQueue = 4

// claimLimit is how many notifications a claim takes when free senders
// are free.
func (o *outbox) claimLimit(free int) int { return claimQueue * free }

// queueWait bounds how long a claimed notification may wait for a free
// sender: past it (the senders are held up by slow channels) the ones
// still waiting are put back (models.Store.ReleaseNotifications), so
// that none is sent after its lease could expire.
func (o *outbox) queueWait() time.Duration { return o.cfg.QueueWait }

// dispatch hands the notifications ns claimed at claimedAt to the
// senders, waiting for a free one for each; those that waited longer than
// queueWait, and all the rest when the outbox stops, are put back. It
// reports false when the outbox stops.
func (o *outbox) dispatch(ns []models.Notification, claimedAt time.Time) bool {
	for i := range ns {
		select {
		case o.sem <- struct{}{}:
		case <-o.stop:
			o.release(ns[i:])
			return false
		}
		if o.clock.Now().Sub(claimedAt) > o.queueWait() {
			<-o.sem
			o.release(ns[i:])
			return true
		}
		o.sending.Go(func() {
			defer func() {
				<-o.sem
				select {
				case o.freed <- struct{}{}:
				default:
				}
			}()
			o.deliver(&ns[i])
		})
	}
	return true
}

// release puts back claimed notifications that were not tried.
func (o *outbox) release(ns []models.Notification) {
	ids := make([]int64, len(ns))
	for i := range ns {
		ids[i] = ns[i].ID
	}
	if _, err := o.store.ReleaseNotifications(o.ctx, o.cfg.Owner, ids, o.clock.Now()); err != nil {
		// Their leases expire: they are sent later, a try counted.
		o.logger.Warn("engine: claimed notifications not put back", "count", len(ids), "err", err)
	}
}
