package jobdef

import (
	"encoding/json"
	"fmt"
	"strings"
)

// actionKinds maps lowercase action types to kinds.
var actionKinds = map[string]ActionKind{
	"http": KindHTTP, "https": KindHTTPS, "storagequeue": KindStorageQueue,
	"servicebusqueue": KindServiceBusQueue, "servicebustopic": KindServiceBusTopic,
}

// parseActionObject reads one action object at path ("action" or
// "action.errorAction"). main is false for the error action, which may not
// have one of its own.
func parseActionObject(raw json.RawMessage, path string, main bool, ps *problems) *Action {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return nil
	}
	a := &Action{RetryPolicy: DefaultRetryPolicy, Timeout: DefaultTimeout}
	t, ok := stringField(o, "type", path+".type", ps)
	switch {
	case ok && strings.TrimSpace(t) != "":
		if k, known := actionKinds[strings.ToLower(strings.TrimSpace(t))]; known {
			a.Type, a.Kind = strings.TrimSpace(t), k
		} else {
			ps.add(path+".type", fmt.Sprintf("%q is not one of http, https, storageQueue, serviceBusQueue, serviceBusTopic", t))
		}
	case ok:
		ps.add(path+".type", "is required")
	default:
		if _, present := o.get("type"); !present {
			ps.add(path+".type", "is required")
		}
	}
	a.Timeout, a.TimeoutText = parseTimeout(o, path+".timeout", ps)

	switch a.Kind {
	case KindHTTP, KindHTTPS:
		if r, ok := o.get("request"); ok {
			a.Request = parseRequest(r, path+".request", a.Kind, ps)
		} else {
			ps.add(path+".request", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	case KindStorageQueue:
		if r, ok := o.get("queueMessage"); ok {
			a.QueueMessage = parseQueueMessage(r, path+".queueMessage", ps)
		} else {
			ps.add(path+".queueMessage", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	case KindServiceBusQueue:
		if r, ok := o.get("serviceBusQueueMessage"); ok {
			a.ServiceBusMessage = parseServiceBusMessage(r, path+".serviceBusQueueMessage", false, ps)
		} else {
			ps.add(path+".serviceBusQueueMessage", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	case KindServiceBusTopic:
		if r, ok := o.get("serviceBusTopicMessage"); ok {
			a.ServiceBusMessage = parseServiceBusMessage(r, path+".serviceBusTopicMessage", true, ps)
		} else {
			ps.add(path+".serviceBusTopicMessage", fmt.Sprintf("is required for an action of type %q", a.Type))
		}
	}

	if r, ok := o.get("retryPolicy"); ok {
		a.RetryPolicy, a.HasRetryPolicy = parseRetryPolicy(r, path+".retryPolicy", ps), true
	}
	if r, ok := o.get("errorAction"); ok {
		if main {
			a.ErrorAction = parseActionObject(r, path+".errorAction", false, ps)
		} else {
			ps.add(path+".errorAction", "is not allowed inside an error action")
		}
	}
	return a
}

// requiredString reads a string field that must be present and not blank.
func requiredString(o object, key, path string, ps *problems) string {
	s, ok := stringField(o, key, path, ps)
	if !ok {
		if _, present := o.get(key); !present {
			ps.add(path, "is required")
		}
		return ""
	}
	if strings.TrimSpace(s) == "" {
		ps.add(path, "is required")
		return ""
	}
	return s
}

// keyValue is one member of a JSON object.
type keyValue struct {
	key   string
	value json.RawMessage
}

// orderedObject decodes a JSON object keeping the order of its members; a
// key given twice keeps its last value at its first position.
func orderedObject(raw json.RawMessage) ([]keyValue, bool) {
	var out []keyValue
	index := map[string]int{}
	ok := eachMember(raw, func(k string, v json.RawMessage) {
		if i, dup := index[k]; dup {
			out[i].value = v
			return
		}
		index[k] = len(out)
		out = append(out, keyValue{k, v})
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// parseRetryPolicy reads retryPolicy: retryType none, fixed or exponential
// (required, SPEC §4 and §13.1), retryInterval 15 s to 18 months (ISO 8601
// or hh:mm:ss, default 30 s), retryCount 0 to 20 (default 4) and, for
// exponential only, maxRetryInterval from retryInterval to 18 months
// (default 1 h).
func parseRetryPolicy(raw json.RawMessage, path string, ps *problems) RetryPolicy {
	o, ok := decodeObject(raw)
	if !ok {
		ps.add(path, "must be an object, not "+article(kindOf(raw)))
		return DefaultRetryPolicy
	}
	p := DefaultRetryPolicy
	if s, ok := stringField(o, "retryType", path+".retryType", ps); (!ok || strings.TrimSpace(s) == "") && !ps.stored {
		if _, present := o.get("retryType"); !present || ok {
			ps.add(path+".retryType", "is required when retryPolicy is given (none, fixed or exponential)")
		}
	} else if ok {
		switch RetryType(strings.ToLower(strings.TrimSpace(s))) {
		case RetryNone:
			p.Type = RetryNone
		case RetryFixed:
		case RetryExponential:
			p.Type, p.MaxInterval = RetryExponential, DefaultMaxRetryInterval
		default:
			ps.add(path+".retryType", fmt.Sprintf("%q is not one of none, fixed, exponential", s))
		}
	}
	if s, ok := stringField(o, "retryInterval", path+".retryInterval", ps); ok {
		d, err := parseTimeSpan(s)
		switch {
		case err != nil:
			ps.add(path+".retryInterval", fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT30S)", s))
		case d < MinRetryInterval:
			ps.add(path+".retryInterval", fmt.Sprintf("%q is below the minimum of PT15S", s))
		case d > MaxRetryInterval:
			ps.add(path+".retryInterval", fmt.Sprintf("%q is over the maximum of 18 months (P548D)", s))
		default:
			p.Interval, p.IntervalText = d, s
		}
	}
	if v, ok := intField(o, "retryCount", path+".retryCount", 0, ps); ok {
		if v > MaxRetryCount {
			ps.add(path+".retryCount", fmt.Sprintf("%d is over the maximum of %d", v, MaxRetryCount))
		} else {
			p.Count = v
		}
	}
	if s, ok := stringField(o, "maxRetryInterval", path+".maxRetryInterval", ps); ok {
		d, err := parseTimeSpan(s)
		switch {
		case p.Type != RetryExponential:
			ps.add(path+".maxRetryInterval", "is only allowed with retryType exponential")
		case err != nil:
			ps.add(path+".maxRetryInterval", fmt.Sprintf("%q is not an ISO 8601 duration (e.g. PT1H)", s))
		case d < p.Interval:
			ps.add(path+".maxRetryInterval", fmt.Sprintf("%q is below retryInterval (%s)", s, FormatISODuration(p.Interval)))
		case d > MaxRetryInterval:
			ps.add(path+".maxRetryInterval", fmt.Sprintf("%q is over the maximum of 18 months (P548D)", s))
		default:
			p.MaxInterval, p.MaxIntervalText = d, s
		}
	}
	if p.Type == RetryNone {
		p.Count = 0
	}
	return p
}
