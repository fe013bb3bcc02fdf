package action

import (
	"context"
	"fmt"
	"time"

	"sked/models/jobdef"
)

// Dispatcher is the Executor that hands each attempt to the executor of
// its action type. All its executors share one Guard and one transport.
type Dispatcher struct {
	// HTTP runs http and https actions (set its Observe for metrics).
	HTTP *HTTPExecutor
	// StorageQueue runs storageQueue actions.
	StorageQueue *StorageQueueExecutor
	// ServiceBus runs serviceBusQueue and serviceBusTopic actions.
	ServiceBus *ServiceBusExecutor

	byKind map[jobdef.ActionKind]Executor
}

// NewDispatcher returns a Dispatcher with an executor for every action
// type, configured by cfg (empty endpoints take their defaults; see
// Config). It fails when an endpoint is not a usable URL.
func NewDispatcher(cfg Config) (*Dispatcher, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	guard := NewGuard(cfg.AllowTargets)
	client := newClient(newTransport(guard, cfg.RootCAs, nil))
	d := &Dispatcher{
		HTTP: &HTTPExecutor{client: client, certs: newCertClients(guard, cfg.RootCAs),
			tokens: newTokenSource(cfg.OAuthAuthority, client, time.Now)},
		StorageQueue: &StorageQueueExecutor{client: client, endpoint: cfg.StorageEndpoint},
		ServiceBus:   &ServiceBusExecutor{client: client, endpoint: cfg.ServiceBusEndpoint, now: time.Now},
	}
	d.byKind = map[jobdef.ActionKind]Executor{
		jobdef.KindHTTP: d.HTTP, jobdef.KindHTTPS: d.HTTP, jobdef.KindStorageQueue: d.StorageQueue,
		jobdef.KindServiceBusQueue: d.ServiceBus, jobdef.KindServiceBusTopic: d.ServiceBus,
	}
	return d, nil
}

// Execute runs a with the executor of its type.
func (d *Dispatcher) Execute(ctx context.Context, a *Attempt) Result {
	if a.Spec == nil {
		return Result{Message: "no action to run"}
	}
	ex, ok := d.byKind[a.Spec.Kind]
	if !ok {
		return Result{Message: fmt.Sprintf("action type %q is not supported by this version of Sked", a.Spec.Type)}
	}
	return ex.Execute(ctx, a)
}

// CloseIdleConnections closes the idle connections of every executor.
func (d *Dispatcher) CloseIdleConnections() { d.HTTP.CloseIdleConnections() }
