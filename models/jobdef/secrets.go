package jobdef

import "strings"

// Secrets holds the secret values of a job (SPEC §5: passwords, pfx,
// secret, sasToken, sasKey), which are stored encrypted and never written
// out. A key is the field's path, '#', and the lowercase type of the object
// that holds it, for example
// "action.request.authentication.password#basic" or
// "action.errorAction.queueMessage.sasToken#storagequeue": a kept secret
// only fills in a field of the same kind of object.
type Secrets map[string]string

// secretKey returns the Secrets key of a field.
func secretKey(path, context string) string { return path + "#" + context }

// secretField reads a secret string field. When the input leaves it out
// (absent, null or blank), the kept secret of the same key is used; when
// there is none and required is true, the field is reported as required.
func secretField(o object, key, path, context string, required bool, ps *problems) string {
	s, ok := stringField(o, key, path, ps)
	if ok && strings.TrimSpace(s) != "" {
		return s
	}
	if _, present := o.get(key); present && !ok {
		return "" // a wrong type, reported by stringField
	}
	if v, kept := ps.keep[secretKey(path, context)]; kept && v != "" {
		return v
	}
	if required && !ps.secretsOptional {
		ps.add(path, "is required")
	}
	return ""
}

// Secrets returns the job's secret values, empty when it has none.
func (j *Job) Secrets() Secrets {
	out := Secrets{}
	if j != nil && j.Action != nil {
		j.Action.collectSecrets("action", out)
		if ea := j.Action.ErrorAction; ea != nil {
			ea.collectSecrets("action.errorAction", out)
		}
	}
	return out
}

func (a *Action) collectSecrets(path string, out Secrets) {
	put := func(p, context, v string) {
		if v != "" {
			out[secretKey(p, context)] = v
		}
	}
	if r := a.Request; r != nil && r.Authentication != nil {
		au, p := r.Authentication, path+".request.authentication"
		switch au.Kind {
		case AuthBasic:
			put(p+".password", "basic", au.Password)
		case AuthClientCertificate:
			put(p+".pfx", "clientcertificate", au.Pfx)
			put(p+".password", "clientcertificate", au.Password)
		case AuthActiveDirectory:
			put(p+".secret", "activedirectoryoauth", au.Secret)
		}
	}
	if q := a.QueueMessage; q != nil {
		put(path+".queueMessage.sasToken", "storagequeue", q.SASToken)
	}
	if m := a.ServiceBusMessage; m != nil {
		if a.Kind == KindServiceBusTopic {
			put(path+".serviceBusTopicMessage.authentication.sasKey", "servicebustopic", m.SASKey)
		} else {
			put(path+".serviceBusQueueMessage.authentication.sasKey", "servicebusqueue", m.SASKey)
		}
	}
}
