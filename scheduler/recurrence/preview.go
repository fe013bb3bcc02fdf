package recurrence

import (
	"encoding/json"
	"fmt"
	"time"

	"sked/models/jobdef"
	"sked/models/problem"
)

// DefaultPreviewCount is the number of occurrences a preview shows when none
// is asked for; MaxPreviewCount is the most it shows.
const (
	DefaultPreviewCount = 10
	MaxPreviewCount     = 1000
)

// Result is the answer of a preview: the next occurrences (in the job's
// zone), the plain-English description and the warnings (never nil).
//
// Its JSON form is exactly the contract of SPEC §3, shared by
// `sked preview --json` and POST /api/v1/preview:
//
//	{"occurrences": ["2024-05-01T17:15:00Z", …], "description": "…", "warnings": []}
//
// with the occurrences in RFC 3339 in the job's zone ("Z" for UTC) and
// warnings an empty array, not null, when there are none.
type Result struct {
	Occurrences []time.Time
	Description string
	Warnings    []string
}

// resultJSON is the wire form of Result.
type resultJSON struct {
	Occurrences []string `json:"occurrences"`
	Description string   `json:"description"`
	Warnings    []string `json:"warnings"`
}

// MarshalJSON encodes the result in the SPEC §3 form.
func (res Result) MarshalJSON() ([]byte, error) {
	out := resultJSON{Occurrences: make([]string, len(res.Occurrences)), Description: res.Description, Warnings: res.Warnings}
	for i, t := range res.Occurrences {
		out.Occurrences[i] = t.Format(time.RFC3339)
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return json.Marshal(out)
}

// UnmarshalJSON decodes the SPEC §3 form (for clients and tests).
func (res *Result) UnmarshalJSON(data []byte) error {
	var in resultJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("decode preview result: %w", err)
	}
	res.Occurrences = make([]time.Time, len(in.Occurrences))
	for i, s := range in.Occurrences {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return fmt.Errorf("decode preview result: occurrence %d: %w", i, err)
		}
		res.Occurrences[i] = t
	}
	res.Description, res.Warnings = in.Description, in.Warnings
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return nil
}

// Preview returns the next n occurrences the engine would run if job were
// created (or enabled) at now, with the description and the warnings. It is
// the single code path behind `sked preview` and POST /api/v1/preview.
//
// n = 0 means DefaultPreviewCount (10); n must not exceed MaxPreviewCount
// (1000) nor be negative: otherwise the error is a *problem.List
// with the path "n". Fewer than n occurrences come back when the job ends
// sooner (count, endTime, or a schedule with no further date). The job's state
// is not applied (a disabled job is previewed as if enabled, with a warning).
// A job with recurrence.window shows its nominal times and a warning (its
// id, the key of its offsets, is not known).
//
// Typical wiring:
//
//	job, err := jobdef.Parse(body)            // *problem.List → exit 2 / HTTP 400
//	res, err := recurrence.Preview(job, now, n)
//	json.NewEncoder(w).Encode(res)            // {"occurrences": […], "description": …, "warnings": […]}
//
// or DecodePreviewRequest for the HTTP body that carries "n" and "now" too.
func Preview(job *jobdef.Job, now time.Time, n int) (Result, error) {
	return PreviewWith(job, now, n, Options{})
}

// PreviewWith is Preview for a job that may exclude calendars (opts): the
// warnings then name the occurrences moved or skipped, with the reason.
// For a stored job (opts.Keyed, with its id as opts.SpreadKey) the
// occurrences of a job with recurrence.window are when each is due. A
// window not shorter than the gap between two occurrences is a
// *problem.List naming recurrence.window.
func PreviewWith(job *jobdef.Job, now time.Time, n int, opts Options) (Result, error) {
	if err := checkPreviewCount(n); err != nil {
		return Result{}, err
	}
	if n == 0 {
		n = DefaultPreviewCount
	}
	if y := now.Year(); y < 1 || y > 9999 {
		return Result{}, &problem.List{Problems: []problem.Problem{{Path: "now", Message: "must lie in the years 0001 to 9999"}}}
	}
	r, err := CompileWith(job, now, opts)
	if err != nil {
		return Result{}, fmt.Errorf("preview: %w", err)
	}
	if err := r.CheckWindow(now); err != nil {
		return Result{}, fmt.Errorf("preview: %w", err)
	}
	occ := r.take(n)
	res := Result{Occurrences: make([]time.Time, len(occ)), Description: r.Description(), Warnings: r.warnings(occ, n)}
	sp := Spread{}
	if w := job.Recurrence; w != nil && w.Window >= 2*time.Second {
		if opts.Keyed {
			sp = Spread{Window: w.Window, Key: opts.SpreadKey}
		} else {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"Each run starts at a fixed moment within %s after the times shown (recurrence.window); the moment is fixed when the job is saved.",
				formatSpan(w.Window)))
		}
	}
	for i, o := range occ {
		res.Occurrences[i] = sp.Due(time.Unix(o.at, 0).In(r.zone.loc))
	}
	return res, nil
}

// checkPreviewCount validates the number of occurrences asked for.
func checkPreviewCount(n int) error {
	switch {
	case n < 0:
		return &problem.List{Problems: []problem.Problem{{Path: "n", Message: fmt.Sprintf("%d is below the minimum of 1", n)}}}
	case n > MaxPreviewCount:
		return &problem.List{Problems: []problem.Problem{{Path: "n", Message: fmt.Sprintf("%d is over the maximum of %d", n, MaxPreviewCount)}}}
	}
	return nil
}

// PreviewRequest is a decoded POST /api/v1/preview body: a job in either
// shape plus the optional top-level "n" and "now".
type PreviewRequest struct {
	Job *jobdef.Job
	// Now is "now" from the request, or the defaultNow given to
	// DecodePreviewRequest when absent.
	Now time.Time
	// N is "n" from the request, or DefaultPreviewCount when absent.
	N int
}

// DecodePreviewRequest decodes a preview request body: the job JSON (either
// shape) with optional top-level "n" (1–1000, default 10) and "now" (RFC 3339,
// default defaultNow). All problems, of the job and of n/now, come back
// together as one *problem.List.
func DecodePreviewRequest(body []byte, defaultNow time.Time) (PreviewRequest, error) {
	req := PreviewRequest{Now: defaultNow, N: DefaultPreviewCount}
	var extra struct {
		N   json.RawMessage `json:"n"`
		Now json.RawMessage `json:"now"`
	}
	var problems []problem.Problem
	if json.Unmarshal(body, &extra) == nil {
		if len(extra.N) > 0 && string(extra.N) != "null" {
			var n int
			if err := json.Unmarshal(extra.N, &n); err != nil {
				problems = append(problems, problem.Problem{Path: "n", Message: "must be an integer from 1 to 1000"})
			} else if err := checkPreviewCount(n); err != nil || n == 0 {
				msg := "0 is below the minimum of 1"
				if err != nil {
					msg = problem.As(err).Problems[0].Message
				}
				problems = append(problems, problem.Problem{Path: "n", Message: msg})
			} else {
				req.N = n
			}
		}
		if len(extra.Now) > 0 && string(extra.Now) != "null" {
			var s string
			t, err := time.Time{}, json.Unmarshal(extra.Now, &s)
			if err == nil {
				t, err = time.Parse(time.RFC3339, s)
			}
			if err != nil || t.Year() < 1 || t.Year() > 9999 {
				problems = append(problems, problem.Problem{Path: "now", Message: fmt.Sprintf("%s is not an RFC 3339 date-time", extra.Now)})
			} else {
				req.Now = t
			}
		}
	}
	job, err := jobdef.Parse(body)
	if err != nil {
		ve := problem.As(err)
		if ve == nil {
			return req, fmt.Errorf("decode preview request: %w", err)
		}
		problems = append(problems, ve.Problems...)
	}
	if len(problems) > 0 {
		return req, &problem.List{Problems: problems}
	}
	req.Job = job
	return req, nil
}
