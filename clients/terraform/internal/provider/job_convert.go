package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// toAPI is the job as Sked's PUT takes it.
func (m *jobModel) toAPI() armJob {
	var j armJob
	p := &j.Properties
	if known(m.StartTime) {
		p.StartTime = m.StartTime.ValueString()
	}
	if known(m.State) {
		p.State = m.State.ValueString()
	}
	p.StateNote = m.StateNote.ValueString()
	p.MisfirePolicy = m.MisfirePolicy.ValueString()
	p.Concurrency = m.Concurrency.ValueString()
	p.Deadline = deadlineToAPI(m.Deadline)
	p.Action = actionToAPI(m.ActionWeb, m.ActionStorageQueue, m.ActionServiceBusQueue, m.ActionServiceBusTopic)
	if p.Action != nil {
		p.Action.ErrorAction = actionToAPI(m.ErrorActionWeb, m.ErrorActionStorageQueue, m.ErrorActionServiceBusQueue, m.ErrorActionServiceBusTopic)
		if len(m.Retry) > 0 {
			r := m.Retry[0]
			rp := &armRetryPolicy{RetryType: r.Type.ValueString()}
			if !strings.EqualFold(rp.RetryType, "none") {
				rp.RetryInterval = r.Interval.ValueString()
				if known(r.Count) {
					c := r.Count.ValueInt64()
					rp.RetryCount = &c
				}
				if strings.EqualFold(rp.RetryType, "exponential") && known(r.MaxInterval) {
					rp.MaxRetryInterval = r.MaxInterval.ValueString()
				}
			}
			p.Action.RetryPolicy = rp
		}
		p.Action.Timeout = m.Timeout.ValueString()
	}
	if len(m.Recurrence) > 0 {
		p.Recurrence = recurrenceToAPI(m.Recurrence[0])
	}
	if len(m.Trigger) > 0 {
		p.Trigger = triggerToAPI(m.Trigger[0])
	}
	return j
}

// actionToAPI is the one action block that is set, or nil.
func actionToAPI(web []webActionModel, queue []storageQueueModel, sbq []serviceBusQueueModel, sbt []serviceBusTopicModel) *armAction {
	switch {
	case len(web) > 0:
		w := web[0]
		u := w.URL.ValueString()
		a := &armAction{Type: "http"}
		if strings.HasPrefix(strings.ToLower(u), "https:") {
			a.Type = "https"
		}
		req := &armRequest{URI: u, Method: w.Method.ValueString(), Headers: stringMap(w.Headers), Body: w.Body.ValueString()}
		switch {
		case len(w.AuthenticationBasic) > 0:
			b := w.AuthenticationBasic[0]
			req.Authentication = &armAuth{Type: "Basic", Username: b.Username.ValueString(), Password: b.Password.ValueString()}
		case len(w.AuthenticationCertificate) > 0:
			c := w.AuthenticationCertificate[0]
			req.Authentication = &armAuth{Type: "ClientCertificate", Pfx: c.Pfx.ValueString(), Password: c.Password.ValueString()}
		case len(w.AuthenticationActiveDirectory) > 0:
			d := w.AuthenticationActiveDirectory[0]
			aud := d.Audience.ValueString()
			if aud == "" {
				aud = defaultAudience
			}
			req.Authentication = &armAuth{Type: "ActiveDirectoryOAuth", Tenant: d.TenantID.ValueString(),
				ClientID: d.ClientID.ValueString(), Secret: d.ClientSecret.ValueString(), Audience: aud}
		}
		a.Request = req
		return a
	case len(queue) > 0:
		q := queue[0]
		return &armAction{Type: "storageQueue", QueueMessage: &armQueueMessage{
			StorageAccount: q.StorageAccountName.ValueString(), QueueName: q.StorageQueueName.ValueString(),
			SasToken: q.SasToken.ValueString(), Message: q.Message.ValueString()}}
	case len(sbq) > 0:
		s := sbq[0]
		m := &armServiceBus{Namespace: s.Namespace.ValueString(), QueueName: s.QueueName.ValueString(),
			Message: s.Message.ValueString(), TransportType: s.TransportType.ValueString(),
			CustomMessageProperties: stringMap(s.CustomMessageProperties), BrokeredMessageProperties: brokeredToAPI(s.BrokeredMessageProperties)}
		m.Authentication.Type, m.Authentication.SasKeyName, m.Authentication.SasKey = "SharedAccessKey", s.SasKeyName.ValueString(), s.SasKey.ValueString()
		return &armAction{Type: "serviceBusQueue", ServiceBusQueueMessage: m}
	case len(sbt) > 0:
		s := sbt[0]
		m := &armServiceBus{Namespace: s.Namespace.ValueString(), TopicPath: s.TopicPath.ValueString(),
			Message: s.Message.ValueString(), TransportType: s.TransportType.ValueString(),
			CustomMessageProperties: stringMap(s.CustomMessageProperties), BrokeredMessageProperties: brokeredToAPI(s.BrokeredMessageProperties)}
		m.Authentication.Type, m.Authentication.SasKeyName, m.Authentication.SasKey = "SharedAccessKey", s.SasKeyName.ValueString(), s.SasKey.ValueString()
		return &armAction{Type: "serviceBusTopic", ServiceBusTopicMessage: m}
	}
	return nil
}

// fromAPI fills the model from Sked's answer. Values Sked stores in another
// spelling (case, time offset) keep the prior spelling; secrets, which Sked
// never returns, keep the prior value (null after an import).
func (m *jobModel) fromAPI(a armJob, id armID) {
	prior := *m
	p := a.Properties
	m.ID = types.StringValue(id.String())
	m.Name = spelling(prior.Name, id.Job)
	m.ResourceGroupName = spelling(prior.ResourceGroupName, id.ResourceGroup)
	m.JobCollectionName = spelling(prior.JobCollectionName, id.Collection)
	m.StartTime = sameInstant(prior.StartTime, p.StartTime)
	m.State = spelling(prior.State, p.State)
	m.StateNote = optString(p.StateNote)
	misfire, conc := p.MisfirePolicy, p.Concurrency
	if misfire == "" {
		misfire = "skip"
	}
	if conc == "" {
		conc = "allow"
	}
	m.MisfirePolicy = spelling(prior.MisfirePolicy, misfire)
	m.Concurrency = spelling(prior.Concurrency, conc)
	m.Deadline = deadlineFromAPI(p.Deadline, prior.Deadline)

	m.ActionWeb, m.ActionStorageQueue, m.ActionServiceBusQueue, m.ActionServiceBusTopic = nil, nil, nil, nil
	m.ErrorActionWeb, m.ErrorActionStorageQueue, m.ErrorActionServiceBusQueue, m.ErrorActionServiceBusTopic = nil, nil, nil, nil
	m.Retry = nil
	m.Timeout = types.StringNull()
	if act := p.Action; act != nil {
		m.ActionWeb, m.ActionStorageQueue, m.ActionServiceBusQueue, m.ActionServiceBusTopic =
			actionFromAPI(act, prior.ActionWeb, prior.ActionStorageQueue, prior.ActionServiceBusQueue, prior.ActionServiceBusTopic)
		if e := act.ErrorAction; e != nil {
			m.ErrorActionWeb, m.ErrorActionStorageQueue, m.ErrorActionServiceBusQueue, m.ErrorActionServiceBusTopic =
				actionFromAPI(e, prior.ErrorActionWeb, prior.ErrorActionStorageQueue, prior.ErrorActionServiceBusQueue, prior.ErrorActionServiceBusTopic)
		}
		if act.Timeout != "" {
			m.Timeout = spelling(prior.Timeout, act.Timeout)
		}
		if rp := act.RetryPolicy; rp != nil {
			var pr retryModel
			if len(prior.Retry) > 0 {
				pr = prior.Retry[0]
			}
			r := retryModel{Type: spelling(pr.Type, rp.RetryType)}
			if rp.RetryInterval != "" {
				r.Interval = spelling(pr.Interval, rp.RetryInterval)
			} else if known(pr.Interval) {
				r.Interval = pr.Interval
			} else {
				r.Interval = types.StringValue("00:00:30")
			}
			if rp.RetryCount != nil && !strings.EqualFold(rp.RetryType, "none") {
				r.Count = types.Int64Value(*rp.RetryCount)
			} else if known(pr.Count) {
				r.Count = pr.Count
			} else {
				r.Count = types.Int64Value(4)
			}
			switch {
			case rp.MaxRetryInterval != "":
				r.MaxInterval = spelling(pr.MaxInterval, rp.MaxRetryInterval)
			case known(pr.MaxInterval):
				r.MaxInterval = pr.MaxInterval
			default:
				r.MaxInterval = types.StringNull()
			}
			m.Retry = []retryModel{r}
		}
	}

	m.Trigger = triggerFromAPI(p.Trigger, prior.Trigger)
	m.Recurrence = nil
	if ar := p.Recurrence; ar != nil {
		var pr recurrenceModel
		if len(prior.Recurrence) > 0 {
			pr = prior.Recurrence[0]
		}
		m.Recurrence = []recurrenceModel{recurrenceFromAPI(pr, ar)}
	}
}

// monthlyFromAPI keeps the prior occurrences when they are the same ones
// (days compared ignoring case).
func monthlyFromAPI(prior []monthlyOccModel, api []armMonthlyOcc) []monthlyOccModel {
	key := func(day string, occ int64) string { return fmt.Sprintf("%s/%d", strings.ToLower(day), occ) }
	if len(prior) == len(api) && len(api) > 0 {
		seen := map[string]int{}
		for _, o := range prior {
			if !known(o.Day) || !known(o.Occurrence) {
				seen["?"]++
				continue
			}
			seen[key(o.Day.ValueString(), o.Occurrence.ValueInt64())]++
		}
		for _, o := range api {
			seen[key(o.Day, o.Occurrence)]--
		}
		same := true
		for _, n := range seen {
			same = same && n == 0
		}
		if same {
			return prior
		}
	}
	var out []monthlyOccModel
	for _, o := range api {
		out = append(out, monthlyOccModel{Day: types.StringValue(titleDay(o.Day)), Occurrence: types.Int64Value(o.Occurrence)})
	}
	return out
}

// actionFromAPI fills the one block of the action's kind.
func actionFromAPI(a *armAction, pWeb []webActionModel, pQueue []storageQueueModel, pSBQ []serviceBusQueueModel, pSBT []serviceBusTopicModel) (
	web []webActionModel, queue []storageQueueModel, sbq []serviceBusQueueModel, sbt []serviceBusTopicModel) {
	switch {
	case a.Request != nil:
		var pw webActionModel
		if len(pWeb) > 0 {
			pw = pWeb[0]
		}
		r := a.Request
		w := webActionModel{
			URL:     spelling(pw.URL, r.URI),
			Method:  spelling(pw.Method, r.Method),
			Body:    optString(r.Body),
			Headers: mapFromAPI(pw.Headers, r.Headers),
		}
		if !known(pw.Method) && r.Method != "" {
			w.Method = types.StringValue(titleDay(r.Method))
		}
		if au := r.Authentication; au != nil {
			switch strings.ToLower(au.Type) {
			case "basic":
				b := basicAuthModel{Username: types.StringValue(au.Username), Password: types.StringNull()}
				if len(pw.AuthenticationBasic) > 0 {
					b.Password = pw.AuthenticationBasic[0].Password
				}
				w.AuthenticationBasic = []basicAuthModel{b}
			case "clientcertificate":
				c := certAuthModel{Pfx: types.StringNull(), Password: types.StringNull(),
					Thumbprint: optString(au.CertificateThumbprint), Expiration: optString(au.CertificateExpirationDate),
					SubjectName: optString(au.CertificateSubjectName)}
				if len(pw.AuthenticationCertificate) > 0 {
					c.Pfx, c.Password = pw.AuthenticationCertificate[0].Pfx, pw.AuthenticationCertificate[0].Password
				}
				w.AuthenticationCertificate = []certAuthModel{c}
			case "activedirectoryoauth":
				var pd adAuthModel
				if len(pw.AuthenticationActiveDirectory) > 0 {
					pd = pw.AuthenticationActiveDirectory[0]
				}
				d := adAuthModel{TenantID: spelling(pd.TenantID, au.Tenant), ClientID: spelling(pd.ClientID, au.ClientID),
					ClientSecret: pd.ClientSecret, Audience: spelling(pd.Audience, au.Audience)}
				if d.ClientSecret.IsUnknown() || d.ClientSecret.IsNull() {
					d.ClientSecret = types.StringNull()
				}
				w.AuthenticationActiveDirectory = []adAuthModel{d}
			}
		}
		web = []webActionModel{w}
	case a.QueueMessage != nil:
		var pq storageQueueModel
		if len(pQueue) > 0 {
			pq = pQueue[0]
		}
		q := a.QueueMessage
		sas := pq.SasToken
		if !known(sas) {
			sas = types.StringNull()
		}
		queue = []storageQueueModel{{StorageAccountName: spelling(pq.StorageAccountName, q.StorageAccount),
			StorageQueueName: spelling(pq.StorageQueueName, q.QueueName), SasToken: sas, Message: types.StringValue(q.Message)}}
	case a.ServiceBusQueueMessage != nil:
		var ps serviceBusQueueModel
		if len(pSBQ) > 0 {
			ps = pSBQ[0]
		}
		s := a.ServiceBusQueueMessage
		key := ps.SasKey
		if !known(key) {
			key = types.StringNull()
		}
		sbq = []serviceBusQueueModel{{Namespace: spelling(ps.Namespace, s.Namespace), QueueName: spelling(ps.QueueName, s.QueueName),
			Message: optString(s.Message), SasKeyName: types.StringValue(s.Authentication.SasKeyName), SasKey: key,
			TransportType: optSpelling(ps.TransportType, s.TransportType), CustomMessageProperties: mapFromAPI(ps.CustomMessageProperties, s.CustomMessageProperties),
			BrokeredMessageProperties: brokeredFromAPI(ps.BrokeredMessageProperties, s.BrokeredMessageProperties)}}
	case a.ServiceBusTopicMessage != nil:
		var ps serviceBusTopicModel
		if len(pSBT) > 0 {
			ps = pSBT[0]
		}
		s := a.ServiceBusTopicMessage
		key := ps.SasKey
		if !known(key) {
			key = types.StringNull()
		}
		sbt = []serviceBusTopicModel{{Namespace: spelling(ps.Namespace, s.Namespace), TopicPath: spelling(ps.TopicPath, s.TopicPath),
			Message: optString(s.Message), SasKeyName: types.StringValue(s.Authentication.SasKeyName), SasKey: key,
			TransportType: optSpelling(ps.TransportType, s.TransportType), CustomMessageProperties: mapFromAPI(ps.CustomMessageProperties, s.CustomMessageProperties),
			BrokeredMessageProperties: brokeredFromAPI(ps.BrokeredMessageProperties, s.BrokeredMessageProperties)}}
	}
	return
}

// recurrenceToAPI is a recurrence block as Sked's recurrence JSON (a job's
// recurrence, a monitor's schedule).
func recurrenceToAPI(r recurrenceModel) *armRecurrence {
	ar := &armRecurrence{Frequency: r.Frequency.ValueString(), TimeZone: r.TimeZone.ValueString(), Window: r.Window.ValueString()}
	if known(r.Interval) {
		ar.Interval = r.Interval.ValueInt64()
	}
	if known(r.Count) {
		ar.Count = r.Count.ValueInt64()
	}
	if known(r.EndTime) {
		ar.EndTime = r.EndTime.ValueString()
	}
	s := &armSchedule{
		Minutes:   int64s(r.Minutes),
		Hours:     int64s(r.Hours),
		MonthDays: int64s(r.MonthDays),
	}
	if known(r.WeekDays) {
		s.WeekDays = strs(r.WeekDays.Elements())
	}
	for _, o := range r.MonthlyOccurrences {
		s.MonthlyOccurrences = append(s.MonthlyOccurrences, armMonthlyOcc{Day: o.Day.ValueString(), Occurrence: o.Occurrence.ValueInt64()})
	}
	if len(s.Minutes)+len(s.Hours)+len(s.MonthDays)+len(s.WeekDays)+len(s.MonthlyOccurrences) > 0 {
		ar.Schedule = s
	}
	if len(r.Calendars) > 0 {
		c := r.Calendars[0]
		ar.Calendars = &armCalendars{Exclude: strs(c.Exclude.Elements()), OnExcluded: c.OnExcluded.ValueString()}
		if ar.Calendars.Exclude == nil {
			ar.Calendars.Exclude = []string{}
		}
	}
	return ar
}

// recurrenceFromAPI is Sked's recurrence ar as a block, keeping the
// spelling of pr (the prior block, zero when none) where Sked holds the
// same value.
func recurrenceFromAPI(pr recurrenceModel, ar *armRecurrence) recurrenceModel {
	r := recurrenceModel{
		Frequency: spelling(pr.Frequency, ar.Frequency),
		Interval:  types.Int64Value(max(ar.Interval, 1)),
		Count:     types.Int64Null(),
		EndTime:   sameInstant(pr.EndTime, ar.EndTime),
		TimeZone:  optSpelling(pr.TimeZone, ar.TimeZone),
		Window:    optSpelling(pr.Window, ar.Window),
	}
	if ar.Count > 0 {
		r.Count = types.Int64Value(ar.Count)
	}
	s := ar.Schedule
	if s == nil {
		s = &armSchedule{}
	}
	r.Minutes = intSetFromAPI(pr.Minutes, s.Minutes)
	r.Hours = intSetFromAPI(pr.Hours, s.Hours)
	r.MonthDays = intSetFromAPI(pr.MonthDays, s.MonthDays)
	days := make([]string, len(s.WeekDays))
	for i, d := range s.WeekDays {
		days[i] = titleDay(d)
	}
	r.WeekDays = foldSetFromAPI(pr.WeekDays, days)
	r.MonthlyOccurrences = monthlyFromAPI(pr.MonthlyOccurrences, s.MonthlyOccurrences)
	if c := ar.Calendars; c != nil {
		var pc calendarsModel
		if len(pr.Calendars) > 0 {
			pc = pr.Calendars[0]
		}
		ex, _ := types.ListValueFrom(context.Background(), types.StringType, c.Exclude)
		if known(pc.Exclude) && len(pc.Exclude.Elements()) == len(c.Exclude) {
			same := true
			for i, v := range strs(pc.Exclude.Elements()) {
				same = same && strings.EqualFold(v, c.Exclude[i])
			}
			if same {
				ex = pc.Exclude
			}
		}
		on := c.OnExcluded
		if on == "" {
			on = "skip"
		}
		r.Calendars = []calendarsModel{{Exclude: ex, OnExcluded: spelling(pc.OnExcluded, on)}}
	}
	return r
}
