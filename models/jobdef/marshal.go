package jobdef

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// MarshalOptions changes how a job is written out.
type MarshalOptions struct {
	// ResolveLocal, when not nil, turns a startTime or endTime given
	// without an offset into the instant it names in the job's zone (its
	// argument carries the wall-clock fields; pass recurrence.WallInstant,
	// which applies SPEC §2's daylight-saving rule), written with that
	// zone's offset (RFC 3339, as API clients expect). When nil such a time
	// is written as given (how Sked stores it, keeping the wall-clock anchor
	// of SPEC §2).
	ResolveLocal func(wall time.Time, loc *time.Location) time.Time
}

// MarshalProperties writes the job in canonical form: the "properties" of
// the ARM shape without "status". Enumerations are lowercase (frequency,
// state, week days, retryType), action.type is written as sent, the
// authentication types in the API's spelling, defaults of Sked's extensions
// are left out, and secrets are never written: a clientCertificate shows
// its thumbprint, subject and expiry instead. stateNote is written when
// StateNote is set (the stored definition leaves it out: Catalog.Prepare
// clears it, the store keeps the note in a column).
func (j *Job) MarshalProperties(opts MarshalOptions) json.RawMessage {
	w := &objWriter{}
	if j.StartTime != nil {
		w.str("startTime", j.dateTime(*j.StartTime, opts))
	}
	if j.Action != nil {
		w.raw("action", j.Action.marshal(true))
	}
	if r := j.Recurrence; r != nil {
		w.raw("recurrence", j.marshalRecurrence(opts))
	}
	if j.Trigger != nil {
		w.raw("trigger", j.Trigger.marshal())
	}
	w.str("state", string(j.State))
	if j.StateNote != "" {
		w.str("stateNote", j.StateNote)
	}
	if j.MisfirePolicy != "" && j.MisfirePolicy != MisfireSkip {
		w.str("misfirePolicy", string(j.MisfirePolicy))
	}
	if j.Concurrency != "" && j.Concurrency != ConcurrencyAllow {
		w.str("concurrency", string(j.Concurrency))
	}
	if d := j.Deadline.marshal(); d != nil {
		w.raw("deadline", d)
	}
	return w.done()
}

// dateTime formats d for output.
func (j *Job) dateTime(d DateTime, opts MarshalOptions) string {
	if d.HasOffset {
		return d.Time.Format(time.RFC3339Nano)
	}
	if opts.ResolveLocal == nil {
		return d.Raw
	}
	return opts.ResolveLocal(d.Time, j.Location()).Format(time.RFC3339Nano)
}

func (j *Job) marshalRecurrence(opts MarshalOptions) json.RawMessage {
	r := j.Recurrence
	w := &objWriter{}
	w.str("frequency", string(r.Frequency))
	w.val("interval", r.Interval)
	if r.Count > 0 {
		w.val("count", r.Count)
	}
	if r.EndTime != nil {
		w.str("endTime", j.dateTime(*r.EndTime, opts))
	}
	if s := r.Schedule; !s.IsEmpty() {
		sw := &objWriter{}
		if len(s.Minutes) > 0 {
			sw.val("minutes", s.Minutes)
		}
		if len(s.Hours) > 0 {
			sw.val("hours", s.Hours)
		}
		if len(s.WeekDays) > 0 {
			days := make([]string, len(s.WeekDays))
			for i, d := range s.WeekDays {
				days[i] = strings.ToLower(d.String())
			}
			sw.val("weekDays", days)
		}
		if len(s.MonthDays) > 0 {
			sw.val("monthDays", s.MonthDays)
		}
		if len(s.MonthlyOccurrences) > 0 {
			type occ struct {
				Day        string `json:"day"`
				Occurrence int    `json:"occurrence,omitempty"`
			}
			os := make([]occ, len(s.MonthlyOccurrences))
			for i, m := range s.MonthlyOccurrences {
				os[i] = occ{strings.ToLower(m.Day.String()), m.Occurrence}
			}
			sw.val("monthlyOccurrences", os)
		}
		if len(s.Months) > 0 {
			sw.val("months", s.Months)
		}
		w.raw("schedule", sw.done())
	}
	if r.TimeZone != "" {
		w.str("timeZone", r.TimeZone)
	}
	if c := r.Calendars; c != nil {
		cw := &objWriter{}
		cw.val("exclude", c.Exclude)
		cw.str("onExcluded", string(c.OnExcluded))
		w.raw("calendars", cw.done())
	}
	if r.WindowText != "" {
		w.str("window", r.WindowText)
	}
	return w.done()
}

// marshal writes an action without its secrets.
func (a *Action) marshal(main bool) json.RawMessage {
	w := &objWriter{}
	w.str("type", a.Type)
	if r := a.Request; r != nil {
		rw := &objWriter{}
		rw.str("uri", r.URI)
		rw.str("method", r.Method)
		if len(r.Headers) > 0 {
			rw.raw("headers", marshalPairs(r.Headers))
		}
		if r.Body != "" {
			rw.str("body", r.Body)
		}
		if au := r.Authentication; au != nil {
			aw := &objWriter{}
			aw.str("type", string(au.Kind))
			switch au.Kind {
			case AuthBasic:
				aw.str("username", au.Username)
			case AuthClientCertificate:
				aw.str("certificateThumbprint", au.CertificateThumbprint)
				aw.str("certificateSubjectName", au.CertificateSubjectName)
				aw.str("certificateExpirationDate", au.CertificateExpiration.Format(time.RFC3339))
			case AuthActiveDirectory:
				aw.str("tenant", au.Tenant)
				aw.str("audience", au.Audience)
				aw.str("clientId", au.ClientID)
			}
			rw.raw("authentication", aw.done())
		}
		w.raw("request", rw.done())
	}
	if q := a.QueueMessage; q != nil {
		qw := &objWriter{}
		qw.str("storageAccount", q.StorageAccount)
		qw.str("queueName", q.QueueName)
		qw.str("message", q.Message)
		w.raw("queueMessage", qw.done())
	}
	if m := a.ServiceBusMessage; m != nil {
		mw := &objWriter{}
		mw.str("namespace", m.Namespace)
		key := "serviceBusQueueMessage"
		if a.Kind == KindServiceBusTopic {
			key = "serviceBusTopicMessage"
			mw.str("topicPath", m.TopicPath)
		} else {
			mw.str("queueName", m.QueueName)
		}
		mw.str("message", m.Message)
		if m.TransportType != "" {
			mw.str("transportType", m.TransportType)
		}
		aw := &objWriter{}
		aw.str("type", "SharedAccessKey")
		aw.str("sasKeyName", m.SASKeyName)
		mw.raw("authentication", aw.done())
		if b := m.BrokeredProperties; b != nil {
			mw.raw("brokeredMessageProperties", b.marshal())
		}
		if len(m.CustomProperties) > 0 {
			mw.raw("customMessageProperties", marshalPairs(m.CustomProperties))
		}
		w.raw(key, mw.done())
	}
	if a.HasRetryPolicy {
		p := a.RetryPolicy
		pw := &objWriter{}
		pw.str("retryType", string(p.Type))
		if p.Type == RetryFixed || p.Type == RetryExponential {
			iv := p.IntervalText
			if iv == "" {
				iv = FormatISODuration(p.Interval)
			}
			pw.str("retryInterval", iv)
			pw.val("retryCount", p.Count)
		}
		if p.Type == RetryExponential {
			mx := p.MaxIntervalText
			if mx == "" {
				mx = FormatISODuration(p.MaxInterval)
			}
			pw.str("maxRetryInterval", mx)
		}
		w.raw("retryPolicy", pw.done())
	}
	if a.TimeoutText != "" {
		w.str("timeout", a.TimeoutText)
	}
	if main && a.ErrorAction != nil {
		w.raw("errorAction", a.ErrorAction.marshal(false))
	}
	return w.done()
}

func (b *BrokeredProperties) marshal() json.RawMessage {
	w := &objWriter{}
	opt := func(k, v string) {
		if v != "" {
			w.str(k, v)
		}
	}
	opt("contentType", b.ContentType)
	opt("correlationId", b.CorrelationID)
	if b.ForcePersistence != nil {
		w.val("forcePersistence", *b.ForcePersistence)
	}
	opt("label", b.Label)
	opt("messageId", b.MessageID)
	opt("partitionKey", b.PartitionKey)
	opt("replyTo", b.ReplyTo)
	opt("replyToSessionId", b.ReplyToSessionID)
	opt("scheduledEnqueueTimeUtc", b.ScheduledEnqueueTimeUTC)
	opt("sessionId", b.SessionID)
	opt("timeToLive", b.TimeToLive)
	opt("to", b.To)
	opt("viaPartitionKey", b.ViaPartitionKey)
	return w.done()
}

// marshalPairs writes name/value pairs as a JSON object in their order.
func marshalPairs(hs []Header) json.RawMessage {
	w := &objWriter{}
	for _, h := range hs {
		w.str(h.Name, h.Value)
	}
	return w.done()
}

// objWriter builds a JSON object with its members in the order written.
type objWriter struct {
	buf bytes.Buffer
}

func (w *objWriter) key(k string) {
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	kb, _ := json.Marshal(k)
	w.buf.Write(kb)
	w.buf.WriteByte(':')
}

func (w *objWriter) raw(k string, v json.RawMessage) {
	w.key(k)
	w.buf.Write(v)
}

func (w *objWriter) str(k, v string) { w.val(k, v) }

func (w *objWriter) val(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	w.raw(k, b)
}

func (w *objWriter) done() json.RawMessage {
	if w.buf.Len() == 0 {
		return json.RawMessage(`{}`)
	}
	w.buf.WriteByte('}')
	return json.RawMessage(w.buf.Bytes())
}

// FormatISODuration writes d as an ISO 8601 duration such as "PT30S",
// "PT1M30S" or "P1DT2H".
func FormatISODuration(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteByte('P')
	day := 24 * time.Hour
	if d >= day {
		b.WriteString(itoa(int64(d / day)))
		b.WriteByte('D')
		d %= day
	}
	if d == 0 {
		return b.String()
	}
	b.WriteByte('T')
	if h := d / time.Hour; h > 0 {
		b.WriteString(itoa(int64(h)) + "H")
		d %= time.Hour
	}
	if m := d / time.Minute; m > 0 {
		b.WriteString(itoa(int64(m)) + "M")
		d %= time.Minute
	}
	if d > 0 {
		s := d.Seconds()
		b.WriteString(strings.TrimRight(strings.TrimRight(strconvFloat(s), "0"), ".") + "S")
	}
	return b.String()
}
