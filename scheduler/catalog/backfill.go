package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
	"sked/scheduler/plan"
	"sked/scheduler/recurrence"
)

// Backfill limits (SPEC §16.3).
const (
	// MaxBackfillOccurrences caps the occurrences of a backfill's range.
	MaxBackfillOccurrences = 10_000
	// MaxBackfillConcurrent caps a backfill's runs in flight at once.
	MaxBackfillConcurrent = 20
)

// BackfillInput is a backfill request (SPEC §16.3): the range [From, To),
// which occurrences to run (default missing), in which order (default
// oldest first), how many at once (default 1, at most
// MaxBackfillConcurrent), and whether it is only a dry run.
type BackfillInput struct {
	From, To      time.Time
	Only          models.BackfillOnly
	Order         models.BackfillOrder
	MaxConcurrent int
	DryRun        bool
}

// BackfillFields are a backfill request's fields as text: the API's JSON
// (ParseBackfill) and the job page's form give them. Empty means absent.
type BackfillFields struct {
	From, To, Only, Order, MaxConcurrent string
	DryRun                               bool
}

// ParseBackfill reads the API's body {"from", "to", "only", "order",
// "maxConcurrent", "dryRun"} (see CheckBackfill); problems are one
// *problem.List naming the fields.
func ParseBackfill(body []byte, now time.Time) (BackfillInput, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return BackfillInput{}, &problem.List{Problems: []problem.Problem{{Path: "body",
			Message: `must be a JSON object such as {"from": "2026-01-01T00:00:00Z", "to": "2026-02-01T00:00:00Z"}`}}}
	}
	var ps []problem.Problem
	field := func(name string) (json.RawMessage, bool) {
		for k, v := range raw {
			if strings.EqualFold(k, name) && string(v) != "null" {
				return v, true
			}
		}
		return nil, false
	}
	text := func(name string) string {
		v, ok := field(name)
		if !ok {
			return ""
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			ps = append(ps, problem.Problem{Path: name, Message: "must be a string"})
		}
		return s
	}
	f := BackfillFields{From: text("from"), To: text("to"), Only: text("only"), Order: text("order")}
	if v, ok := field("maxConcurrent"); ok {
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			ps = append(ps, problem.Problem{Path: "maxConcurrent", Message: fmt.Sprintf("must be a whole number from 1 to %d", MaxBackfillConcurrent)})
		}
		f.MaxConcurrent = n.String()
	}
	if v, ok := field("dryRun"); ok {
		if err := json.Unmarshal(v, &f.DryRun); err != nil {
			ps = append(ps, problem.Problem{Path: "dryRun", Message: "must be true or false"})
		}
	}
	in, err := CheckBackfill(f, nil, now)
	if len(ps) > 0 {
		if pl := problem.As(err); pl != nil {
			ps = append(ps, pl.Problems...)
		}
		return BackfillInput{}, &problem.List{Problems: ps}
	}
	return in, err
}

// CheckBackfill reads and checks f at now: from and to are required RFC
// 3339 instants (with loc, the job page's form may also give a local
// "2006-01-02T15:04" read in loc), from before to, and to not after now (a
// backfill runs past occurrences: the schedule runs the others); only is
// missing, failed or all; order oldestFirst or newestFirst; maxConcurrent
// 1–MaxBackfillConcurrent. Problems are one *problem.List naming the
// fields (labels for the form).
func CheckBackfill(f BackfillFields, loc *time.Location, now time.Time) (BackfillInput, error) {
	in := BackfillInput{Only: models.BackfillMissing, Order: models.BackfillOldestFirst, MaxConcurrent: 1, DryRun: f.DryRun}
	var ps []problem.Problem
	add := func(path, label, msg string) {
		ps = append(ps, problem.Problem{Path: path, Label: label, Message: msg})
	}
	var okFrom, okTo bool
	if in.From, okFrom = backfillTime(f.From, loc); !okFrom {
		add("from", "From", backfillTimeProblem(f.From))
	}
	if in.To, okTo = backfillTime(f.To, loc); !okTo {
		add("to", "To", backfillTimeProblem(f.To))
	}
	switch {
	case okFrom && okTo && !in.From.Before(in.To):
		add("to", "To", "must be after from")
	case okTo && in.To.After(now):
		add("to", "To", fmt.Sprintf("is in the future (now is %s): a backfill runs past occurrences, the schedule runs the others",
			now.UTC().Format(time.RFC3339)))
	}
	if f.Only != "" {
		o, err := models.ParseBackfillOnly(f.Only)
		if err != nil {
			add("only", "Only", err.Error())
		}
		in.Only = o
	}
	if f.Order != "" {
		o, err := models.ParseBackfillOrder(f.Order)
		if err != nil {
			add("order", "Order", err.Error())
		}
		in.Order = o
	}
	if f.MaxConcurrent != "" {
		n, err := strconv.Atoi(strings.TrimSpace(f.MaxConcurrent))
		if err != nil || n < 1 || n > MaxBackfillConcurrent {
			add("maxConcurrent", "At once", fmt.Sprintf("%q is not a whole number from 1 to %d", f.MaxConcurrent, MaxBackfillConcurrent))
		}
		in.MaxConcurrent = n
	}
	if len(ps) > 0 {
		return BackfillInput{}, &problem.List{Problems: ps}
	}
	return in, nil
}

// backfillTime reads an RFC 3339 instant, or with loc a local date and
// time in loc.
func backfillTime(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if loc != nil {
		for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.ParseInLocation(layout, s, loc); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// backfillTimeProblem says what is wrong with a time that did not parse.
func backfillTimeProblem(s string) string {
	if strings.TrimSpace(s) == "" {
		return "is required (an RFC 3339 instant such as 2026-01-01T00:00:00Z)"
	}
	return fmt.Sprintf("%q is not an RFC 3339 instant such as 2026-01-01T00:00:00Z", s)
}

// BackfillResult is what Backfill did: for a dry run only the decisions,
// otherwise also the backfill it created.
type BackfillResult struct {
	Decisions []models.BackfillDecision
	Backfill  *models.Backfill
}

// BackfillOccurrences returns the occurrences of job in [from, to): its
// rule compiled for its schedule base with its workspace's calendars, as
// the engine runs it (plan.Between). A range of more than
// MaxBackfillOccurrences is a *problem.List naming to; a definition that
// cannot be read or compiled is an error.
func (c *Catalog) BackfillOccurrences(ctx context.Context, coll *models.CollectionRow, job *models.Job, from, to time.Time) ([]time.Time, error) {
	def, err := jobdef.ParseWith(job.Definition, jobdef.Options{SecretsOptional: true, Stored: true})
	if err != nil {
		return nil, fmt.Errorf("catalog: backfill: %w", err)
	}
	cals, err := c.CalendarsFor(ctx, coll.WorkspaceID, def)
	if err != nil {
		return nil, fmt.Errorf("catalog: backfill: %w", err)
	}
	base := job.CreatedAt
	if job.ScheduleBase != nil {
		base = *job.ScheduleBase
	}
	times, err := backfillTimes(def, cals, base, from, to)
	if err != nil {
		return nil, fmt.Errorf("catalog: backfill: %w", err)
	}
	if len(times) > MaxBackfillOccurrences {
		return nil, &problem.List{Problems: []problem.Problem{{Path: "to", Label: "To",
			Message: fmt.Sprintf("the range holds more than %d occurrences of the job: end it sooner, or backfill in parts", MaxBackfillOccurrences)}}}
	}
	return times, nil
}

// Backfill backfills job of coll for actor (SPEC §16.3; the operator
// role): it lists the job's occurrences in [in.From, in.To)
// (BackfillOccurrences) and decides for each whether it runs or is
// skipped, and why (already succeeded for missing, not failed for failed,
// running now, or queued by another backfill). A dry run stops there and
// writes nothing. Otherwise the backfill is created and its runs queued
// in the transaction of its audit entry (models.Store.CreateBackfill: at
// most in.MaxConcurrent in flight at once, each with its occurrence's
// expected time and so its Idempotency-Key), and this process's engine is
// woken. Errors wrap models.ErrNotFound, models.ErrJobNotEnabled or
// models.ErrJobFinished; a range too long is a *problem.List naming to.
func (c *Catalog) Backfill(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, in BackfillInput) (*BackfillResult, error) {
	detail := fmt.Sprintf("from %s to %s, %s, %s, %d at once", in.From.UTC().Format(time.RFC3339), in.To.UTC().Format(time.RFC3339),
		in.Only, in.Order, in.MaxConcurrent)
	rec := &record{Change: jobChange(OpBackfillJob, coll, job.Name, detail)}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	times, err := c.BackfillOccurrences(ctx, coll, job, in.From, in.To)
	if err != nil {
		return nil, err
	}
	if in.DryRun {
		ds, err := c.store.PlanBackfill(ctx, job.ID, in.Only, times)
		if err != nil {
			return nil, fmt.Errorf("catalog: backfill: %w", err)
		}
		return &BackfillResult{Decisions: ds}, nil
	}
	var out BackfillResult
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		b, ds, err := tc.store.CreateBackfill(ctx, models.NewBackfill{WorkspaceID: coll.WorkspaceID, JobID: job.ID,
			From: in.From, To: in.To, Only: in.Only, Order: in.Order, MaxConcurrent: in.MaxConcurrent,
			CreatedBy: actorName(actor), Now: c.now(), Times: times})
		if err != nil {
			return fmt.Errorf("catalog: backfill: %w", err)
		}
		out = BackfillResult{Decisions: ds, Backfill: b}
		rec.Detail = fmt.Sprintf("backfill %d: %s; %d to run, %d skipped", b.ID, detail, b.Total, b.Skipped)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.runner != nil {
		c.runner.Wake()
	}
	return &out, nil
}

// CancelBackfill cancels backfill id of job of coll for actor (the
// operator role): its runs not yet started are cancelled, those running
// finish (models.Store.CancelBackfill). Cancelling one that ended changes
// nothing. Errors wrap models.ErrNotFound.
func (c *Catalog) CancelBackfill(ctx context.Context, actor Actor, coll *models.CollectionRow, job *models.Job, id int64) (*models.Backfill, error) {
	rec := &record{Change: jobChange(OpCancelBackfill, coll, job.Name, fmt.Sprintf("backfill %d", id))}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	var b *models.Backfill
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		var err error
		if b, err = tc.store.CancelBackfill(ctx, job.ID, id, c.now()); err != nil {
			return fmt.Errorf("catalog: cancel backfill: %w", err)
		}
		return nil
	})
	return b, err
}

// actorName is who the backfill records as its author.
func actorName(a Actor) string {
	if a.UserName != "" {
		return a.UserName
	}
	return "someone"
}

// backfillTimes returns the occurrences of def in [from, to), at most
// MaxBackfillOccurrences+1 of them, for a job whose schedule began at base
// (its creation, last change or re-enabling). From base on they are the
// engine's (the rule compiled for base). Before base the engine has no
// schedule: a job with a startTime follows its rule back to its startTime
// (the anchor is the startTime, whatever the compile time); a recurring
// job without one is taken as if it had started at from (its rule
// anchored there: the same times of day for a schedule, the interval
// counted from from for a bare one); a one-time job without startTime ran
// at its creation only.
func backfillTimes(def *jobdef.Job, cals recurrence.Calendars, base, from, to time.Time) ([]time.Time, error) {
	compileFor := func(job *jobdef.Job) plan.Compile {
		return func(at time.Time) (plan.Rule, error) {
			return recurrence.CompileWith(job, at, recurrence.Options{Calendars: cals})
		}
	}
	if def.StartTime != nil {
		return plan.Between(compileFor(def), minTime(base, from), from, to, MaxBackfillOccurrences)
	}
	var out []time.Time
	if from.Before(base) && def.Recurrence != nil {
		early := *def
		start, err := jobdef.ParseDateTime(from.UTC().Format(time.RFC3339), false)
		if err != nil {
			return nil, err
		}
		early.StartTime = &start
		ts, err := plan.Between(compileFor(&early), from, from, minTime(base, to), MaxBackfillOccurrences)
		if err != nil {
			return nil, err
		}
		out = ts
	}
	if to.After(base) && len(out) <= MaxBackfillOccurrences {
		ts, err := plan.Between(compileFor(def), base, maxTime(base, from), to, MaxBackfillOccurrences-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
