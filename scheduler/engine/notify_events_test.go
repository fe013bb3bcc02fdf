package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sked/models"
	"sked/models/notifydef"
	"sked/scheduler/catalog/catalogtest"
)

// failingPaths answers 500 on paths starting with /bad, 200 otherwise.
func failingPaths(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/bad") {
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	_, _ = io.WriteString(w, "ok")
}

func TestNotifyEventsFireForTheirScopeOnce(t *testing.T) {
	e := newEnv(t, failingPaths)
	h := newHook(t, nil)
	ws := models.DefaultWorkspaceID
	addWebhook(t, e.store, ws, "hook", h.URL, h.secret)
	coll := e.coll.Name
	addRule(t, e.store, ws, "ws-failures", `{"channel":"hook","events":["attemptFailed"]}`)
	addRule(t, e.store, ws, "coll-faults", fmt.Sprintf(
		`{"channel":"hook","scope":{"resourceGroup":"rg","collection":%q},"events":["occurrenceFaulted","jobFaulted"]}`, coll))
	// Names compare without regard to case.
	addRule(t, e.store, ws, "good-done", fmt.Sprintf(
		`{"channel":"hook","scope":{"resourceGroup":"RG","collection":%q,"job":"GOOD"},"events":["jobCompleted","attemptFailed"]}`,
		strings.ToUpper(coll)))
	addRule(t, e.store, ws, "elsewhere", `{"channel":"hook","scope":{"resourceGroup":"rg","collection":"nope"},
		"events":["attemptFailed","occurrenceFaulted","jobFaulted","jobCompleted","recovered","missed"]}`)
	addRule(t, e.store, ws, "other-job", fmt.Sprintf(
		`{"channel":"hook","scope":{"resourceGroup":"rg","collection":%q,"job":"nobody"},"events":["attemptFailed","jobFaulted"]}`, coll))
	// Another workspace's rule never sees this workspace's jobs.
	owner, err := e.store.UserByName(e.ctx, catalogtest.AdminName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateWorkspace(e.ctx, "other", "Other", owner.ID); err != nil {
		t.Fatal(err)
	}
	addWebhook(t, e.store, "other", "hook", h.URL, h.secret)
	addRule(t, e.store, "other", "all", `{"channel":"hook","events":["attemptFailed","occurrenceFaulted","jobFaulted","jobCompleted"]}`)

	e.put("bad", `{"action":`+e.action("/bad", `"retryPolicy":{"retryType":"fixed","retryInterval":"PT20S","retryCount":1}`)+`}`)
	e.put("good", `{"action":`+e.action("/good", "")+`}`)
	e.drain()
	e.clock.Add(20 * time.Second)
	e.drain()
	p := "rg/" + coll + "/"
	want := []string{"attemptFailed " + p + "bad", "attemptFailed " + p + "bad", "occurrenceFaulted " + p + "bad",
		"jobFaulted " + p + "bad", "jobCompleted " + p + "good"}
	var stored []string
	for _, n := range deliveries(t, e.store) {
		if n.Status != models.NotificationPending || n.Attempts != 0 {
			t.Errorf("stored %+v, want pending", n)
		}
		stored = append(stored, n.EventType+" "+p+jobOf(t, n))
		// Stored with the schedule's description (the engine's compiled rule).
		var ev notifydef.Event
		if err := json.Unmarshal(n.Event, &ev); err != nil || ev.JobInfo == nil || !strings.HasPrefix(ev.JobInfo.Description, "Once at ") {
			t.Errorf("stored event %s: %v", n.Event, err)
		}
	}
	sort.Strings(stored)
	wantSummary(t, "stored notifications", stored, want...)

	e.sendAll()
	wantSummary(t, "received", h.summary(), want...)
	for _, n := range deliveries(t, e.store) {
		if n.Status != models.NotificationDelivered || n.Attempts != 1 || n.LastStatusCode != http.StatusNoContent || n.FinishedAt == nil {
			t.Errorf("delivery log %+v", n)
		}
	}
	for _, ev := range h.events() {
		if ev.Event.Workspace != ws || ev.Event.JobInfo == nil || ev.Event.Occurrence == nil && ev.Event.Type != notifydef.JobFaulted &&
			ev.Event.Type != notifydef.JobCompleted {
			t.Errorf("event %+v", ev.Event)
		}
		if ev.Event.Type == notifydef.OccurrenceFaulted && (ev.Event.Attempt == nil || ev.Event.Attempt.RetryCount != 1 ||
			ev.Event.Attempt.Status != string(models.StatusFailed) || !strings.Contains(ev.Event.Attempt.Message, "500")) {
			t.Errorf("occurrenceFaulted attempt %+v", ev.Event.Attempt)
		}
		if ev.Event.Type == notifydef.JobFaulted && ev.Event.JobInfo.State != "faulted" {
			t.Errorf("jobFaulted state %+v", ev.Event.JobInfo)
		}
	}
	if h.bad != 0 {
		t.Errorf("%d deliveries did not verify", h.bad)
	}
	// Nothing is sent twice.
	e.clock.Add(time.Hour)
	e.sendAll()
	if n := len(h.events()); n != len(want) {
		t.Errorf("received %d, want %d", n, len(want))
	}
}

// jobOf returns the job name of a stored notification's event.
func jobOf(t *testing.T, n models.Notification) string {
	t.Helper()
	var ev notifydef.Event
	if err := json.Unmarshal(n.Event, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Job
}

func TestNotifyRecoveredOnlyAfterAFaultAndConsecutiveFailuresAtN(t *testing.T) {
	var failing atomic.Bool
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "boom", http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	h := newHook(t, nil)
	ws := models.DefaultWorkspaceID
	addWebhook(t, e.store, ws, "hook", h.URL, h.secret)
	addRule(t, e.store, ws, "recovery", `{"channel":"hook","events":["recovered","missed"]}`)
	addRule(t, e.store, ws, "three", `{"channel":"hook","events":["consecutiveFailures"],"threshold":3}`)
	start := e.clock.Now().Add(time.Minute)
	e.put("minute", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`,
		rfc(start), e.action("/m", `"retryPolicy":{"retryType":"none"}`)))
	e.clock.Set(start)
	e.drain()
	p := "rg/" + e.coll.Name + "/minute"
	// ok, then four faults, ok, ok, a fault, ok.
	steps := []bool{false, true, true, true, true, false, false, true, false}
	want := map[int][]string{
		3: {"consecutiveFailures " + p},
		5: {"recovered " + p},
		8: {"recovered " + p},
	}
	var all []string
	for i, fail := range steps {
		failing.Store(fail)
		e.clock.Add(time.Minute)
		e.drain()
		e.sendAll()
		all = append(all, want[i]...)
		wantSummary(t, fmt.Sprintf("after occurrence %d", i+2), h.summary(), all...)
	}
	ev := h.events()
	for _, x := range ev {
		if x.Event.JobInfo == nil || x.Event.JobInfo.State != "enabled" || x.Event.JobInfo.Description != "Every minute" {
			t.Errorf("jobInfo %+v", x.Event.JobInfo)
		}
	}
	if c := ev[0].Event; c.Type != notifydef.ConsecutiveFailures || c.Attempt == nil || c.Attempt.Status != string(models.StatusFailed) {
		t.Errorf("consecutiveFailures event %+v", c)
	}
	// Five minutes without a run: the missed occurrences are a Postponed
	// entry and a missed event.
	failing.Store(false)
	e.clock.Add(5 * time.Minute)
	e.drain()
	e.sendAll()
	all = append(all, "missed "+p)
	wantSummary(t, "after the missed occurrences", h.summary(), all...)
	last := h.events()[len(h.events())-1].Event
	if last.Attempt == nil || !strings.Contains(last.Attempt.Message, "Missed") || last.Attempt.Status != string(models.StatusPostponed) {
		t.Errorf("missed event %+v", last.Attempt)
	}
}

func TestNotifyMinIntervalSendsOneDigestWithTheCount(t *testing.T) {
	e := newEnv(t, failingPaths)
	h := newHook(t, nil)
	ws := models.DefaultWorkspaceID
	addWebhook(t, e.store, ws, "hook", h.URL, h.secret)
	addRule(t, e.store, ws, "calm", fmt.Sprintf(`{"channel":"hook","scope":{"resourceGroup":"rg","collection":%q,"job":"flaky"},
		"events":["occurrenceFaulted"],"minInterval":"PT10M"}`, e.coll.Name))
	addRule(t, e.store, ws, "loud", fmt.Sprintf(`{"channel":"hook","scope":{"resourceGroup":"rg","collection":%q,"job":"other"},
		"events":["occurrenceFaulted"]}`, e.coll.Name))
	start := e.clock.Now().Add(time.Minute)
	e.put("flaky", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`,
		rfc(start), e.action("/bad", `"retryPolicy":{"retryType":"none"}`)))
	e.put("other", fmt.Sprintf(`{"startTime":%q,"recurrence":{"frequency":"minute"},"action":%s}`,
		rfc(start), e.action("/bad-other", `"retryPolicy":{"retryType":"none"}`)))
	p, o := "rg/"+e.coll.Name+"/flaky", "rg/"+e.coll.Name+"/other"
	// Six faults at start … start+5m: the first is sent at once, the
	// five others are held back for the digest at start+10m.
	e.clock.Set(start)
	var others []string
	for i := range 6 {
		if i > 0 {
			e.clock.Add(time.Minute)
		}
		e.drain()
		e.sendAll()
		others = append(others, "occurrenceFaulted "+o)
	}
	wantSummary(t, "within the interval", h.summary(), append([]string{"occurrenceFaulted " + p}, others...)...)
	// start+10m: the digest, with the count of what was held back
	// (start+1m … start+9m: nine); the fault at start+10m itself opens the
	// next digest, due at start+20m.
	for range 5 {
		e.clock.Add(time.Minute)
		e.drain()
		e.sendAll()
		others = append(others, "occurrenceFaulted "+o)
	}
	wantSummary(t, "after the interval", h.summary(),
		append([]string{"occurrenceFaulted " + p, "occurrenceFaulted " + p + " ×9"}, others...)...)
	// The next window's digest holds the fault at start+10m: one.
	e.clock.Set(start.Add(20 * time.Minute))
	e.sendAll()
	var digests []int
	for _, ev := range h.events() {
		if ev.Event.Job == "flaky" {
			digests = append(digests, ev.Event.Count)
		}
	}
	if fmt.Sprint(digests) != "[0 9 1]" {
		t.Errorf("counts of the flaky job's notifications %v, want [0 9 1]", digests)
	}
}
