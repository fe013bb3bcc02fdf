package web

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"sked/models"
)

// NewExecutionView is the detail page of history entry d of job j at now,
// its times in the job's zone; can decides whether the re-run form shows
// (a failed entry, an operator).
func NewExecutionView(row *models.CollectionRow, j *models.JobDetail, d *models.ExecutionDetail, can Can, now time.Time) ExecutionPageView {
	ws, rg, coll := row.WorkspaceID, row.ResourceGroup, row.Name
	zone := ParseStored(j.Definition).Zone()
	e := d.Entry
	v := ExecutionPageView{
		ID: strconv.FormatInt(e.ID, 10), Title: fmt.Sprintf("Execution %d of %s", e.ID, j.Name),
		JobName: j.Name, JobURL: JobPath(ws, rg, coll, j.Name), HistoryURL: JobHistoryPath(ws, rg, coll, j.Name),
		Collection: coll, CollectionURL: CollectionPath(ws, rg, coll),
		Badge: historyBadge(e.Status), Action: string(e.ActionName), RetryCount: strconv.Itoa(e.RetryCount),
		Occurrence: "#" + strconv.FormatInt(e.RepeatCount, 10), Lateness: LatenessText(e.LatenessMs), Duration: "—",
		Instance: d.Instance, IdempotencyKey: d.IdempotencyKey, Message: e.Message, Zone: zone.String(),
		RerunURL: ExecutionRerunPath(ws, rg, coll, j.Name, e.ID),
		CanRerun: can.Run && e.Status == models.StatusFailed, LimitWait: LimitWaitText(e.LimitWaitMs),
	}
	if e.EndTime != nil {
		v.Duration = SpanText(e.EndTime.Sub(e.StartTime))
	}
	add := func(label string, t *time.Time) {
		if t != nil {
			v.Times = append(v.Times, LabelledInstant{Label: label, At: InstantIn(*t, zone, now)})
		}
	}
	expected, start := e.ExpectedExecutionTime, e.StartTime
	add("Expected (the occurrence's time)", &expected)
	add("Due (this attempt)", d.DueAt)
	if d.ClaimedAt != nil {
		add("Claimed by the instance", d.ClaimedAt)
	} else {
		add("Started", &start)
	}
	add("Request sent", d.SentAt)
	add("Ended", e.EndTime)
	if e.RerunOf != nil {
		by := "someone"
		if e.RerunBy != nil {
			by = *e.RerunBy
		}
		v.RerunNote = fmt.Sprintf("Re-run of entry %d by %s", *e.RerunOf, by)
		v.RerunOfURL = ExecutionPath(ws, rg, coll, j.Name, *e.RerunOf)
	}
	if e.BackfillID != nil && v.RerunNote == "" {
		v.RerunNote = fmt.Sprintf("Run by backfill %d", *e.BackfillID)
		v.RerunOfURL = JobPath(ws, rg, coll, j.Name) + "#job-backfill"
	}
	if len(e.Changes) > 0 {
		v.Changes = indentJSON(e.Changes)
	}
	for _, id := range d.RerunEntries {
		v.Reruns = append(v.Reruns, LinkView{Text: fmt.Sprintf("Entry %d", id), URL: ExecutionPath(ws, rg, coll, j.Name, id)})
	}
	if d.Request != nil {
		v.Request = newExchangeRequestView(d.Request)
	}
	if d.Response != nil {
		v.Response = newExchangeResponseView(d.Response)
	}
	switch {
	case e.Status == models.StatusPostponed:
		v.NoExchange = "This occurrence did not run: nothing was sent."
	case !d.HasDetails:
		v.NoExchange = "No details were kept for this entry (it was recorded before Sked kept them)."
	case d.Request == nil:
		v.NoExchange = "No request was sent: the attempt ended before it could send one (see the message)."
	case d.Response == nil:
		v.NoExchange = "No answer came: see the message for the error."
	}
	return v
}

// newExchangeRequestView is a stored request as the page shows it.
func newExchangeRequestView(r *models.ExchangeRequest) *ExchangeRequestView {
	v := &ExchangeRequestView{Method: r.Method, URL: r.URL, Headers: r.Headers, Body: r.Body}
	if r.BodyTruncated {
		v.Notes = append(v.Notes, fmt.Sprintf("The body is cut after %s.", byteSize(models.MaxDetailRequestBody)))
	}
	if r.HeadersTruncated {
		v.Notes = append(v.Notes, fmt.Sprintf("Headers beyond %s are left out.", byteSize(models.MaxDetailHeaders)))
	}
	if r.ClientCertificate {
		v.Notes = append(v.Notes, "A TLS client certificate was presented (never stored).")
	}
	v.Notes = append(v.Notes, "Secrets (Authorization, keys, tokens, signatures, passwords, query secrets) are masked before they are stored.")
	return v
}

// newExchangeResponseView is a stored response as the page shows it.
func newExchangeResponseView(r *models.ExchangeResponse) *ExchangeResponseView {
	status := r.StatusText
	if status == "" {
		status = strconv.Itoa(r.Status) + " " + http.StatusText(r.Status)
	}
	tone := ToneBad
	if r.Status >= 200 && r.Status < 300 {
		tone = ToneGood
	}
	v := &ExchangeResponseView{Status: status, Badge: BadgeView{Text: strconv.Itoa(r.Status), Tone: tone}, Headers: r.Headers, Body: r.Body}
	if r.BodyTruncated {
		v.Notes = append(v.Notes, fmt.Sprintf("Only the first %s of the body are kept.", byteSize(models.MaxDetailResponseBody)))
	}
	if r.HeadersTruncated {
		v.Notes = append(v.Notes, fmt.Sprintf("Headers beyond %s are left out.", byteSize(models.MaxDetailHeaders)))
	}
	return v
}

// byteSize is "8 KiB" or "2,048 bytes".
func byteSize(n int) string {
	if n%1024 == 0 && n >= 4096 {
		return strconv.Itoa(n/1024) + " KiB"
	}
	return FormatCount(n) + " bytes"
}

// RerunMessage confirms a queued re-run of entry id (attempt attemptID).
func RerunMessage(id, attemptID int64) string {
	return fmt.Sprintf("Re-run of entry %d queued (attempt %d): it starts within moments, with the job's retry policy; its entries appear in the history.", id, attemptID)
}

// historyRowLinks are the detail URL of history entry e of j, its re-run
// URL when it failed ("" otherwise) and its re-run note ("" when it is
// not part of a re-run).
func historyRowLinks(row *models.CollectionRow, j *models.JobDetail, e *models.HistoryEntry) (detail, rerun, note string) {
	ws, rg, coll := row.WorkspaceID, row.ResourceGroup, row.Name
	detail = ExecutionPath(ws, rg, coll, j.Name, e.ID)
	if e.Status == models.StatusFailed {
		rerun = ExecutionRerunPath(ws, rg, coll, j.Name, e.ID)
	}
	if e.RerunOf != nil {
		by := "someone"
		if e.RerunBy != nil {
			by = *e.RerunBy
		}
		note = fmt.Sprintf("re-run of entry %d by %s", *e.RerunOf, by)
	}
	if e.BackfillID != nil {
		note = joinNote(note, fmt.Sprintf("backfill %d", *e.BackfillID))
	}
	if len(e.Changes) > 0 {
		note = joinNote(note, "run with changes")
	}
	return detail, rerun, note
}

// joinNote adds part to a history row's note.
func joinNote(note, part string) string {
	if note == "" {
		return part
	}
	return note + "; " + part
}
