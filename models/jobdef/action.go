package jobdef

import "time"

// ActionKind is an action type in canonical lowercase form.
type ActionKind string

// The action types of SPEC §5 (action.type is matched case-insensitively;
// Action.Type keeps the spelling the user sent).
const (
	KindHTTP            ActionKind = "http"
	KindHTTPS           ActionKind = "https"
	KindStorageQueue    ActionKind = "storagequeue"
	KindServiceBusQueue ActionKind = "servicebusqueue"
	KindServiceBusTopic ActionKind = "servicebustopic"
)

// Limits of an HTTP request (SPEC §1).
const (
	MaxURILength   = 2048
	MaxHeaders     = 50
	MaxHeaderChars = 4096
	MaxBodyChars   = 8192
)

// Retry policy limits and defaults (SPEC §4 and the original service).
const (
	DefaultRetryInterval = 30 * time.Second
	DefaultRetryCount    = 4
	MinRetryInterval     = 15 * time.Second
	MaxRetryInterval     = 548 * 24 * time.Hour // 18 months
	MaxRetryCount        = 20
	// DefaultMaxRetryInterval caps the waits of an exponential policy
	// without maxRetryInterval (SPEC §13.1).
	DefaultMaxRetryInterval = time.Hour
)

// Action is a parsed and validated action object: the job's action or its
// error action. Exactly one of Request, QueueMessage and ServiceBusMessage
// is set, as Kind says.
type Action struct {
	// Type is action.type as the user sent it (case preserved).
	Type string
	// Kind is the canonical lowercase type.
	Kind ActionKind
	// Request is set for http and https actions.
	Request *HTTPRequest
	// QueueMessage is set for storageQueue actions.
	QueueMessage *QueueMessage
	// ServiceBusMessage is set for serviceBusQueue (QueueName set) and
	// serviceBusTopic (TopicPath set) actions.
	ServiceBusMessage *ServiceBusMessage
	// RetryPolicy is the retry policy; DefaultRetryPolicy when absent.
	RetryPolicy RetryPolicy
	// HasRetryPolicy reports whether retryPolicy was given (it is then
	// written out again; an absent one stays absent).
	HasRetryPolicy bool
	// Timeout bounds one attempt; DefaultTimeout when absent.
	Timeout time.Duration
	// TimeoutText is action.timeout as given, "" when absent.
	TimeoutText string
	// ErrorAction is the main action's error action, or nil.
	ErrorAction *Action
}

// Header is one request header, in the order given.
type Header struct {
	Name, Value string
}

// HTTPRequest is action.request.
type HTTPRequest struct {
	// URI is the absolute http or https URL.
	URI string
	// Method is uppercase: GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS.
	Method string
	// Headers are sent as given (Sked adds its own, SPEC §5).
	Headers []Header
	// Body is sent as given; "" sends none.
	Body string
	// Authentication is nil when absent, null or of type notSpecified.
	Authentication *Authentication
}

// AuthKind is an outbound authentication type in its canonical spelling
// (the one the 2016-03-01 API uses).
type AuthKind string

// The outbound authentication types; input is matched case-insensitively.
const (
	AuthBasic             AuthKind = "Basic"
	AuthClientCertificate AuthKind = "ClientCertificate"
	AuthActiveDirectory   AuthKind = "ActiveDirectoryOAuth"
)

// Authentication is action.request.authentication. Only the fields of its
// Kind are set. Password, Pfx and Secret are secrets: they are never written
// out by MarshalProperties.
type Authentication struct {
	Kind AuthKind
	// Basic: Username and Password. ClientCertificate: Password unlocks Pfx.
	Username, Password string
	// Pfx is the base64 PKCS#12 archive of a ClientCertificate.
	Pfx string
	// The certificate's SHA-1 thumbprint (uppercase hex), subject and expiry,
	// read from Pfx when the job is parsed; shown instead of the secret.
	CertificateThumbprint  string
	CertificateSubjectName string
	CertificateExpiration  time.Time
	// ActiveDirectoryOAuth: the client-credentials grant.
	Tenant, Audience, ClientID, Secret string
}

// QueueMessage is action.queueMessage (Azure Storage Queue "Put Message").
// SASToken is a secret.
type QueueMessage struct {
	StorageAccount, QueueName, SASToken, Message string
}

// ServiceBusMessage is action.serviceBusQueueMessage or
// action.serviceBusTopicMessage. SASKey is a secret.
type ServiceBusMessage struct {
	Namespace string
	// QueueName is set for a serviceBusQueue action, TopicPath for a topic.
	QueueName, TopicPath string
	Message              string
	// SASKeyName and SASKey sign the request (authentication.type
	// sharedAccessKey).
	SASKeyName, SASKey string
	// TransportType is "", NetMessaging or AMQP; informational (Sked always
	// uses the REST API).
	TransportType string
	// BrokeredProperties are brokeredMessageProperties; nil when absent.
	BrokeredProperties *BrokeredProperties
	// CustomProperties are customMessageProperties, sent as headers.
	CustomProperties []Header
}

// BrokeredProperties are a Service Bus message's system properties. Empty
// strings and a nil ForcePersistence mean "not given".
type BrokeredProperties struct {
	ContentType, CorrelationID, Label, MessageID, PartitionKey string
	ReplyTo, ReplyToSessionID, SessionID, To, ViaPartitionKey  string
	ForcePersistence                                           *bool
	// ScheduledEnqueueTimeUTC is a date-time as given, "" when absent.
	ScheduledEnqueueTimeUTC string
	// TimeToLive is an ISO 8601 duration as given; TimeToLiveDuration its
	// value.
	TimeToLive         string
	TimeToLiveDuration time.Duration
}

// RetryType is none, fixed or exponential.
type RetryType string

// The retry types, lowercase on output. RetryExponential is an extension
// (SPEC §13.1): each wait doubles the one before, up to MaxInterval.
const (
	RetryNone        RetryType = "none"
	RetryFixed       RetryType = "fixed"
	RetryExponential RetryType = "exponential"
)

// RetryPolicy is action.retryPolicy.
type RetryPolicy struct {
	Type RetryType
	// Interval is the wait between a failed attempt and the next.
	Interval time.Duration
	// IntervalText is retryInterval as given ("PT30S" or "00:00:30"), ""
	// when absent.
	IntervalText string
	// Count is the number of retries after the first attempt.
	Count int
	// MaxInterval caps the waits of an exponential policy
	// (DefaultMaxRetryInterval when absent); zero for the other types.
	MaxInterval time.Duration
	// MaxIntervalText is maxRetryInterval as given, "" when absent.
	MaxIntervalText string
}

// DefaultRetryPolicy applies to an action without retryPolicy: fixed, every
// 30 s, 4 retries.
var DefaultRetryPolicy = RetryPolicy{Type: RetryFixed, Interval: DefaultRetryInterval, Count: DefaultRetryCount}

// MaxAttempts returns how many attempts one occurrence may make: 1 plus
// the retries of a fixed or exponential policy.
func (p RetryPolicy) MaxAttempts() int {
	if p.Type != RetryFixed && p.Type != RetryExponential {
		return 1
	}
	return 1 + p.Count
}

// UsesAuthentication reports whether the action or its error action uses
// outbound HTTP authentication (which Free collections refuse).
func (a *Action) UsesAuthentication() bool {
	if a == nil {
		return false
	}
	if a.Request != nil && a.Request.Authentication != nil {
		return true
	}
	return a.ErrorAction.UsesAuthentication()
}
