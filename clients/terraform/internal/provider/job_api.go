package provider

import (
	"context"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The ARM job JSON, as Sked reads and writes it.
type armJob struct {
	ID         string      `json:"id,omitempty"`
	Name       string      `json:"name,omitempty"`
	Properties armJobProps `json:"properties"`
}

type armJobProps struct {
	StartTime     string         `json:"startTime,omitempty"`
	Action        *armAction     `json:"action,omitempty"`
	Recurrence    *armRecurrence `json:"recurrence,omitempty"`
	Trigger       *armTrigger    `json:"trigger,omitempty"`
	State         string         `json:"state,omitempty"`
	StateNote     string         `json:"stateNote,omitempty"`
	MisfirePolicy string         `json:"misfirePolicy,omitempty"`
	Concurrency   string         `json:"concurrency,omitempty"`
	Deadline      *armDeadline   `json:"deadline,omitempty"`
}

type armAction struct {
	Type                   string           `json:"type"`
	Request                *armRequest      `json:"request,omitempty"`
	QueueMessage           *armQueueMessage `json:"queueMessage,omitempty"`
	ServiceBusQueueMessage *armServiceBus   `json:"serviceBusQueueMessage,omitempty"`
	ServiceBusTopicMessage *armServiceBus   `json:"serviceBusTopicMessage,omitempty"`
	RetryPolicy            *armRetryPolicy  `json:"retryPolicy,omitempty"`
	Timeout                string           `json:"timeout,omitempty"`
	ErrorAction            *armAction       `json:"errorAction,omitempty"`
}

type armRequest struct {
	URI            string            `json:"uri"`
	Method         string            `json:"method"`
	Headers        map[string]string `json:"headers,omitempty"`
	Body           string            `json:"body,omitempty"`
	Authentication *armAuth          `json:"authentication,omitempty"`
}

type armAuth struct {
	Type                      string `json:"type"`
	Username                  string `json:"username,omitempty"`
	Password                  string `json:"password,omitempty"`
	Pfx                       string `json:"pfx,omitempty"`
	CertificateThumbprint     string `json:"certificateThumbprint,omitempty"`
	CertificateSubjectName    string `json:"certificateSubjectName,omitempty"`
	CertificateExpirationDate string `json:"certificateExpirationDate,omitempty"`
	Tenant                    string `json:"tenant,omitempty"`
	Audience                  string `json:"audience,omitempty"`
	ClientID                  string `json:"clientId,omitempty"`
	Secret                    string `json:"secret,omitempty"`
}

type armQueueMessage struct {
	StorageAccount string `json:"storageAccount"`
	QueueName      string `json:"queueName"`
	SasToken       string `json:"sasToken,omitempty"`
	Message        string `json:"message"`
}

type armServiceBus struct {
	Namespace      string `json:"namespace"`
	QueueName      string `json:"queueName,omitempty"`
	TopicPath      string `json:"topicPath,omitempty"`
	Message        string `json:"message,omitempty"`
	TransportType  string `json:"transportType,omitempty"`
	Authentication struct {
		Type       string `json:"type"`
		SasKeyName string `json:"sasKeyName"`
		SasKey     string `json:"sasKey,omitempty"`
	} `json:"authentication"`
	CustomMessageProperties   map[string]string `json:"customMessageProperties,omitempty"`
	BrokeredMessageProperties *armBrokered      `json:"brokeredMessageProperties,omitempty"`
}

// armBrokered is brokeredMessageProperties as Sked takes and answers it
// (values stored as given).
type armBrokered struct {
	ContentType             string `json:"contentType,omitempty"`
	CorrelationID           string `json:"correlationId,omitempty"`
	ForcePersistence        *bool  `json:"forcePersistence,omitempty"`
	Label                   string `json:"label,omitempty"`
	MessageID               string `json:"messageId,omitempty"`
	PartitionKey            string `json:"partitionKey,omitempty"`
	ReplyTo                 string `json:"replyTo,omitempty"`
	ReplyToSessionID        string `json:"replyToSessionId,omitempty"`
	ScheduledEnqueueTimeUTC string `json:"scheduledEnqueueTimeUtc,omitempty"`
	SessionID               string `json:"sessionId,omitempty"`
	TimeToLive              string `json:"timeToLive,omitempty"`
	To                      string `json:"to,omitempty"`
	ViaPartitionKey         string `json:"viaPartitionKey,omitempty"`
}

// brokeredToAPI is a brokered_message_properties block as the API's object;
// nil without a block.
func brokeredToAPI(bs []brokeredModel) *armBrokered {
	if len(bs) == 0 {
		return nil
	}
	b := bs[0]
	out := &armBrokered{ContentType: b.ContentType.ValueString(), CorrelationID: b.CorrelationID.ValueString(),
		Label: b.Label.ValueString(), MessageID: b.MessageID.ValueString(), PartitionKey: b.PartitionKey.ValueString(),
		ReplyTo: b.ReplyTo.ValueString(), ReplyToSessionID: b.ReplyToSessionID.ValueString(),
		ScheduledEnqueueTimeUTC: b.ScheduledEnqueueTimeUTC.ValueString(), SessionID: b.SessionID.ValueString(),
		TimeToLive: b.TimeToLive.ValueString(), To: b.To.ValueString(), ViaPartitionKey: b.ViaPartitionKey.ValueString()}
	if known(b.ForcePersistence) {
		v := b.ForcePersistence.ValueBool()
		out.ForcePersistence = &v
	}
	return out
}

// brokeredFromAPI is the API's brokeredMessageProperties as a block; an empty
// object from Sked is a block only when the configuration had one.
func brokeredFromAPI(prior []brokeredModel, b *armBrokered) []brokeredModel {
	if b == nil || (*b == armBrokered{}) {
		if len(prior) > 0 && (brokeredToAPI(prior) == nil || *brokeredToAPI(prior) == armBrokered{}) {
			return prior
		}
		return nil
	}
	m := brokeredModel{ContentType: optString(b.ContentType), CorrelationID: optString(b.CorrelationID),
		Label: optString(b.Label), MessageID: optString(b.MessageID), PartitionKey: optString(b.PartitionKey),
		ReplyTo: optString(b.ReplyTo), ReplyToSessionID: optString(b.ReplyToSessionID),
		ScheduledEnqueueTimeUTC: optString(b.ScheduledEnqueueTimeUTC), SessionID: optString(b.SessionID),
		TimeToLive: optString(b.TimeToLive), To: optString(b.To), ViaPartitionKey: optString(b.ViaPartitionKey),
		ForcePersistence: types.BoolNull()}
	if b.ForcePersistence != nil {
		m.ForcePersistence = types.BoolValue(*b.ForcePersistence)
	}
	return []brokeredModel{m}
}

type armRetryPolicy struct {
	RetryType        string `json:"retryType"`
	RetryInterval    string `json:"retryInterval,omitempty"`
	RetryCount       *int64 `json:"retryCount,omitempty"`
	MaxRetryInterval string `json:"maxRetryInterval,omitempty"`
}

type armRecurrence struct {
	Frequency string        `json:"frequency"`
	Interval  int64         `json:"interval,omitempty"`
	Count     int64         `json:"count,omitempty"`
	EndTime   string        `json:"endTime,omitempty"`
	Schedule  *armSchedule  `json:"schedule,omitempty"`
	TimeZone  string        `json:"timeZone,omitempty"`
	Window    string        `json:"window,omitempty"`
	Calendars *armCalendars `json:"calendars,omitempty"`
}

type armSchedule struct {
	Minutes            []int64         `json:"minutes,omitempty"`
	Hours              []int64         `json:"hours,omitempty"`
	WeekDays           []string        `json:"weekDays,omitempty"`
	MonthDays          []int64         `json:"monthDays,omitempty"`
	MonthlyOccurrences []armMonthlyOcc `json:"monthlyOccurrences,omitempty"`
}

type armMonthlyOcc struct {
	Day        string `json:"day"`
	Occurrence int64  `json:"occurrence"`
}

type armCalendars struct {
	Exclude    []string `json:"exclude"`
	OnExcluded string   `json:"onExcluded,omitempty"`
}

// ---- value helpers ----

func known(v interface {
	IsNull() bool
	IsUnknown() bool
}) bool {
	return !v.IsNull() && !v.IsUnknown()
}

func stringMap(m types.Map) map[string]string {
	if !known(m) {
		return nil
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

func int64s(s types.Set) []int64 {
	if !known(s) {
		return nil
	}
	var out []int64
	for _, v := range s.Elements() {
		if i, ok := v.(types.Int64); ok {
			out = append(out, i.ValueInt64())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func strs(elems []attr.Value) []string {
	var out []string
	for _, v := range elems {
		if s, ok := v.(types.String); ok {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// mapFromAPI keeps prior's null-ness when Sked has nothing.
func mapFromAPI(prior types.Map, api map[string]string) types.Map {
	if len(api) == 0 {
		if known(prior) && len(prior.Elements()) == 0 {
			return prior
		}
		return types.MapNull(types.StringType)
	}
	m, _ := types.MapValueFrom(context.Background(), types.StringType, api)
	return m
}

// intSetFromAPI is an int set; empty from Sked is null unless prior was an
// empty set.
func intSetFromAPI(prior types.Set, api []int64) types.Set {
	if len(api) == 0 {
		if known(prior) && len(prior.Elements()) == 0 {
			return prior
		}
		return types.SetNull(types.Int64Type)
	}
	s, _ := types.SetValueFrom(context.Background(), types.Int64Type, api)
	return s
}

// foldSetFromAPI is a string set compared ignoring case: the prior set is
// kept when it holds the same names.
func foldSetFromAPI(prior types.Set, api []string) types.Set {
	if len(api) == 0 {
		if known(prior) && len(prior.Elements()) == 0 {
			return prior
		}
		return types.SetNull(types.StringType)
	}
	if known(prior) && sameFoldSet(strs(prior.Elements()), api) {
		return prior
	}
	s, _ := types.SetValueFrom(context.Background(), types.StringType, api)
	return s
}

// titleDay writes "sunday" as azurerm's constants spell it ("Sunday").
func titleDay(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}
