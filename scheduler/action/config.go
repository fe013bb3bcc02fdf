package action

import "net/netip"

// Default endpoints of the Azure services (SPEC §5). The {account} and
// {namespace} placeholders are replaced per action.
const (
	DefaultOAuthAuthority     = "https://login.microsoftonline.com"
	DefaultStorageEndpoint    = "https://{account}.queue.core.windows.net"
	DefaultServiceBusEndpoint = "https://{namespace}.servicebus.windows.net"
)

// Config configures the executors. The zero value uses the defaults above
// and allows no private, loopback or link-local target.
type Config struct {
	// AllowTargets lists networks that actions may reach although they are
	// loopback, link-local, private, unique-local or unspecified addresses.
	AllowTargets []netip.Prefix
	// OAuthAuthority is the base URL of the activeDirectoryOAuth token
	// authority; empty means DefaultOAuthAuthority.
	OAuthAuthority string
	// StorageEndpoint is the base URL of Azure Storage queues, with
	// {account} for the storage account; empty means
	// DefaultStorageEndpoint. Azurite: "http://127.0.0.1:10001/{account}".
	StorageEndpoint string
	// ServiceBusEndpoint is the base URL of Service Bus, with {namespace};
	// empty means DefaultServiceBusEndpoint.
	ServiceBusEndpoint string
}
