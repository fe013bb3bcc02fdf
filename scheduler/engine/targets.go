package engine

import (
	"encoding/json"
	"strings"

	"sked/models"
	"sked/models/jobdef"
	"sked/scheduler/action"
)

// targetOf is the claim's models.ClaimRequest.Target: the host that an
// attempt of act of job jobID sends to, the key of its workspace's target
// limits (SPEC §16.2), "" when the definition cannot be read.
func (e *Engine) targetOf(jobID int64, def json.RawMessage, secrets jobdef.Secrets, act models.ActionName) string {
	cj, err := e.cache.get(jobID, def, secrets, nil, jobCalendars{})
	if err != nil {
		return ""
	}
	spec, _ := specsFor(cj, act)
	return TargetHost(spec, e.cfg.Action)
}

// TargetHost returns the host (models.NormalizeTargetHost's form) that
// action a sends to with the executors' configuration cfg: the request
// URI's host for http and https, the storage endpoint's host of the
// queue's account for storageQueue, the Service Bus endpoint's host of
// the namespace for serviceBusQueue and serviceBusTopic; "" for none.
func TargetHost(a *jobdef.Action, cfg action.Config) string {
	if a == nil {
		return ""
	}
	cfg = cfg.WithDefaults()
	switch {
	case a.Request != nil:
		return models.TargetHostOfURL(a.Request.URI)
	case a.QueueMessage != nil:
		return models.TargetHostOfURL(strings.ReplaceAll(cfg.StorageEndpoint, "{account}", a.QueueMessage.StorageAccount))
	case a.ServiceBusMessage != nil:
		return models.TargetHostOfURL(strings.ReplaceAll(cfg.ServiceBusEndpoint, "{namespace}", a.ServiceBusMessage.Namespace))
	}
	return ""
}
