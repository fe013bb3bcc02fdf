package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// jobModel is sked_job: azurerm_scheduler_job's attributes plus Sked's
// extensions.
type jobModel struct {
	ID                         types.String           `tfsdk:"id"`
	Name                       types.String           `tfsdk:"name"`
	ResourceGroupName          types.String           `tfsdk:"resource_group_name"`
	JobCollectionName          types.String           `tfsdk:"job_collection_name"`
	ActionWeb                  []webActionModel       `tfsdk:"action_web"`
	ActionStorageQueue         []storageQueueModel    `tfsdk:"action_storage_queue"`
	ActionServiceBusQueue      []serviceBusQueueModel `tfsdk:"action_service_bus_queue"`
	ActionServiceBusTopic      []serviceBusTopicModel `tfsdk:"action_service_bus_topic"`
	ErrorActionWeb             []webActionModel       `tfsdk:"error_action_web"`
	ErrorActionStorageQueue    []storageQueueModel    `tfsdk:"error_action_storage_queue"`
	ErrorActionServiceBusQueue []serviceBusQueueModel `tfsdk:"error_action_service_bus_queue"`
	ErrorActionServiceBusTopic []serviceBusTopicModel `tfsdk:"error_action_service_bus_topic"`
	Retry                      []retryModel           `tfsdk:"retry"`
	Recurrence                 []recurrenceModel      `tfsdk:"recurrence"`
	Trigger                    []triggerModel         `tfsdk:"trigger"`
	StartTime                  types.String           `tfsdk:"start_time"`
	State                      types.String           `tfsdk:"state"`
	StateNote                  types.String           `tfsdk:"state_note"`
	MisfirePolicy              types.String           `tfsdk:"misfire_policy"`
	Concurrency                types.String           `tfsdk:"concurrency"`
	Timeout                    types.String           `tfsdk:"timeout"`
	Deadline                   []deadlineModel        `tfsdk:"deadline"`
	Timeouts                   *timeoutsModel         `tfsdk:"timeouts"`
}

type webActionModel struct {
	URL                           types.String     `tfsdk:"url"`
	Method                        types.String     `tfsdk:"method"`
	Body                          types.String     `tfsdk:"body"`
	Headers                       types.Map        `tfsdk:"headers"`
	AuthenticationBasic           []basicAuthModel `tfsdk:"authentication_basic"`
	AuthenticationCertificate     []certAuthModel  `tfsdk:"authentication_certificate"`
	AuthenticationActiveDirectory []adAuthModel    `tfsdk:"authentication_active_directory"`
}

type basicAuthModel struct {
	Username types.String `tfsdk:"username"`
	Password types.String `tfsdk:"password"`
}

type certAuthModel struct {
	Pfx         types.String `tfsdk:"pfx"`
	Password    types.String `tfsdk:"password"`
	Thumbprint  types.String `tfsdk:"thumbprint"`
	Expiration  types.String `tfsdk:"expiration"`
	SubjectName types.String `tfsdk:"subject_name"`
}

type adAuthModel struct {
	TenantID     types.String `tfsdk:"tenant_id"`
	ClientID     types.String `tfsdk:"client_id"`
	ClientSecret types.String `tfsdk:"secret"`
	Audience     types.String `tfsdk:"audience"`
}

type storageQueueModel struct {
	StorageAccountName types.String `tfsdk:"storage_account_name"`
	StorageQueueName   types.String `tfsdk:"storage_queue_name"`
	SasToken           types.String `tfsdk:"sas_token"`
	Message            types.String `tfsdk:"message"`
}

// serviceBusQueueModel is a Service Bus queue action block.
type serviceBusQueueModel struct {
	Namespace                 types.String    `tfsdk:"namespace"`
	QueueName                 types.String    `tfsdk:"queue_name"`
	Message                   types.String    `tfsdk:"message"`
	SasKeyName                types.String    `tfsdk:"sas_key_name"`
	SasKey                    types.String    `tfsdk:"sas_key"`
	TransportType             types.String    `tfsdk:"transport_type"`
	CustomMessageProperties   types.Map       `tfsdk:"custom_message_properties"`
	BrokeredMessageProperties []brokeredModel `tfsdk:"brokered_message_properties"`
}

// serviceBusTopicModel is a Service Bus topic action block.
type serviceBusTopicModel struct {
	Namespace                 types.String    `tfsdk:"namespace"`
	TopicPath                 types.String    `tfsdk:"topic_path"`
	Message                   types.String    `tfsdk:"message"`
	SasKeyName                types.String    `tfsdk:"sas_key_name"`
	SasKey                    types.String    `tfsdk:"sas_key"`
	TransportType             types.String    `tfsdk:"transport_type"`
	CustomMessageProperties   types.Map       `tfsdk:"custom_message_properties"`
	BrokeredMessageProperties []brokeredModel `tfsdk:"brokered_message_properties"`
}

type retryModel struct {
	Interval    types.String `tfsdk:"interval"`
	Count       types.Int64  `tfsdk:"count"`
	Type        types.String `tfsdk:"type"`
	MaxInterval types.String `tfsdk:"max_interval"`
}

type recurrenceModel struct {
	Frequency          types.String      `tfsdk:"frequency"`
	Interval           types.Int64       `tfsdk:"interval"`
	Count              types.Int64       `tfsdk:"count"`
	EndTime            types.String      `tfsdk:"end_time"`
	Minutes            types.Set         `tfsdk:"minutes"`
	Hours              types.Set         `tfsdk:"hours"`
	WeekDays           types.Set         `tfsdk:"week_days"`
	MonthDays          types.Set         `tfsdk:"month_days"`
	MonthlyOccurrences []monthlyOccModel `tfsdk:"monthly_occurrences"`
	TimeZone           types.String      `tfsdk:"time_zone"`
	Window             types.String      `tfsdk:"window"`
	Calendars          []calendarsModel  `tfsdk:"calendars"`
}

type monthlyOccModel struct {
	Day        types.String `tfsdk:"day"`
	Occurrence types.Int64  `tfsdk:"occurrence"`
}

type calendarsModel struct {
	Exclude    types.List   `tfsdk:"exclude"`
	OnExcluded types.String `tfsdk:"on_excluded"`
}

// brokeredModel is a brokered_message_properties block: a Service Bus
// message's system properties, each null when not given.
type brokeredModel struct {
	ContentType             types.String `tfsdk:"content_type"`
	CorrelationID           types.String `tfsdk:"correlation_id"`
	ForcePersistence        types.Bool   `tfsdk:"force_persistence"`
	Label                   types.String `tfsdk:"label"`
	MessageID               types.String `tfsdk:"message_id"`
	PartitionKey            types.String `tfsdk:"partition_key"`
	ReplyTo                 types.String `tfsdk:"reply_to"`
	ReplyToSessionID        types.String `tfsdk:"reply_to_session_id"`
	ScheduledEnqueueTimeUTC types.String `tfsdk:"scheduled_enqueue_time_utc"`
	SessionID               types.String `tfsdk:"session_id"`
	TimeToLive              types.String `tfsdk:"time_to_live"`
	To                      types.String `tfsdk:"to"`
	ViaPartitionKey         types.String `tfsdk:"via_partition_key"`
}
