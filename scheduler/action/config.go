package action

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

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
	// RootCAs, when not nil, replaces the system's certificate authorities
	// for every https connection (targets, authority, storage, Service
	// Bus). Default nil: the system's.
	RootCAs *x509.CertPool
}

// WithDefaults returns c with every empty endpoint set to its default.
func (c Config) WithDefaults() Config {
	if c.OAuthAuthority == "" {
		c.OAuthAuthority = DefaultOAuthAuthority
	}
	if c.StorageEndpoint == "" {
		c.StorageEndpoint = DefaultStorageEndpoint
	}
	if c.ServiceBusEndpoint == "" {
		c.ServiceBusEndpoint = DefaultServiceBusEndpoint
	}
	return c
}

// Validate reports every endpoint of c (after WithDefaults) that is not an
// absolute http or https URL, joined.
func (c Config) Validate() error {
	var errs []error
	check := func(name, v, placeholder string) {
		probe := v
		if placeholder != "" {
			probe = strings.ReplaceAll(v, placeholder, "x")
		}
		u, err := url.Parse(probe)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("action: %s %q is not an absolute http or https URL without query", name, v))
		}
	}
	check("OAuth authority", c.OAuthAuthority, "")
	check("storage endpoint", c.StorageEndpoint, "{account}")
	check("Service Bus endpoint", c.ServiceBusEndpoint, "{namespace}")
	return errors.Join(errs...)
}

// endpoint returns template with placeholder replaced by name and no
// trailing slash.
func endpoint(template, placeholder, name string) string {
	return strings.TrimRight(strings.ReplaceAll(template, placeholder, name), "/")
}
