package engine

import (
	"testing"
	"testing/synctest"
	"time"

	"sked/models"
)

// rideEngine returns an Engine with only what the result pipeline's
// batching needs: results, the ride and the awaiting count.
func rideEngine() *Engine {
	return &Engine{cfg: Config{ResultBatch: 256}, results: make(chan models.AttemptOutcome, 16), ride: newResultRide()}
}

func success(id int64) models.AttemptOutcome {
	return models.AttemptOutcome{AttemptID: id, Succeeded: true}
}

// TestRideOffer: a writer's offer returns false at once while the claim
// loop is idle; while it is busy the loop's takeRide gets the batch (and
// the results still waiting in results, counted out of awaiting); an
// offer nobody takes gives up after rideWait, as soon as a claim that
// took none passed, or as soon as the loop turns idle.
func TestRideOffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := rideEngine()
		t0 := time.Now()
		if e.ride.offer([]models.AttemptOutcome{success(1)}, rideWait) || time.Since(t0) != 0 {
			t.Fatal("offer to an idle loop: taken, or waited")
		}

		e.ride.noteClaim(4, 4) // a full claim: busy
		e.awaiting.Store(2)
		e.results <- success(3)
		e.results <- success(4)
		taken := make(chan bool)
		go func() { taken <- e.ride.offer([]models.AttemptOutcome{success(1), success(2)}, rideWait) }()
		synctest.Wait()
		got := e.takeRide(e.cfg.ResultBatch)
		if !<-taken || len(got) != 4 || got[0].AttemptID != 1 || got[3].AttemptID != 4 {
			t.Fatalf("takeRide got %+v, want the offered batch then the 2 waiting", got)
		}
		if n := e.awaiting.Load(); n != 0 {
			t.Errorf("awaiting %d after takeRide, want 0", n)
		}
		if got := e.takeRide(e.cfg.ResultBatch); got != nil {
			t.Errorf("takeRide with nothing offered got %+v", got)
		}

		t0 = time.Now()
		if e.ride.offer([]models.AttemptOutcome{success(5)}, rideWait) || time.Since(t0) != rideWait {
			t.Fatalf("an offer nobody took returned after %v, want false after %v", time.Since(t0), rideWait)
		}
		go func() { taken <- e.ride.offer([]models.AttemptOutcome{success(7)}, rideWait) }()
		time.Sleep(10 * time.Millisecond)
		e.ride.passed() // a claim that took none
		t0 = time.Now()
		if <-taken || time.Since(t0) != 0 {
			t.Fatal("an offer went on after a claim that took none")
		}

		go func() { taken <- e.ride.offer([]models.AttemptOutcome{success(6)}, rideWait) }()
		time.Sleep(10 * time.Millisecond)
		e.ride.noteClaim(4, 2) // a claim that did not fill its workers: idle
		t0 = time.Now()
		if <-taken || time.Since(t0) != 0 {
			t.Fatal("an offer went on after the loop turned idle")
		}
	})
}

// TestTakeRideCapsAtResultBatch: takeRide takes the waiting results only
// up to its cap.
func TestTakeRideCapsAtResultBatch(t *testing.T) {
	e := rideEngine()
	e.awaiting.Store(5)
	for i := range 5 {
		e.results <- success(int64(i))
	}
	if got := e.takeRide(3); len(got) != 3 {
		t.Fatalf("takeRide(3) took %d", len(got))
	}
	if n := e.awaiting.Load(); n != 2 {
		t.Errorf("awaiting %d, want the 2 left", n)
	}
}

// TestFillWaits: a batch of successes waits for more results while
// attempts run, and is complete as soon as none is awaited; a failure
// ends the wait at once; the wait for successes is bounded by
// successLinger (an attempt that runs long does not hold the others), a
// batch holding a failure waits at most resultLinger.
func TestFillWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := rideEngine()
		send := func(after time.Duration, o models.AttemptOutcome) {
			go func() { time.Sleep(after); e.results <- o }()
		}
		fill := func(first models.AttemptOutcome) ([]models.AttemptOutcome, time.Duration) {
			t0 := time.Now()
			e.awaiting.Add(-1) // first was taken from results
			b := e.fill([]models.AttemptOutcome{first})
			return b, time.Since(t0)
		}

		e.awaiting.Store(3)
		send(10*time.Millisecond, success(2))
		send(30*time.Millisecond, success(3))
		if b, d := fill(success(1)); len(b) != 3 || d != 30*time.Millisecond {
			t.Errorf("successes: %d results after %v, want 3 after 30ms (when the last arrived)", len(b), d)
		}

		e.awaiting.Store(3)
		send(10*time.Millisecond, models.AttemptOutcome{AttemptID: 2})
		if b, d := fill(success(1)); len(b) != 2 || d != 10*time.Millisecond {
			t.Errorf("a failure: %d results after %v, want 2 after 10ms", len(b), d)
		}

		e.awaiting.Store(2) // one runs for long
		if b, d := fill(success(1)); len(b) != 1 || d != successLinger {
			t.Errorf("a long attempt: %d results after %v, want 1 after %v", len(b), d, successLinger)
		}

		e.awaiting.Store(2)
		if b, d := fill(models.AttemptOutcome{AttemptID: 1}); len(b) != 1 || d != resultLinger {
			t.Errorf("a failure first: %d results after %v, want 1 after %v", len(b), d, resultLinger)
		}
	})
}
