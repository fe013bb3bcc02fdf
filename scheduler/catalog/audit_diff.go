package catalog

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"sked/models"
)

// auditValueMax caps the length of a value in the audit log's difference;
// a longer one is cut and ends with "…".
const auditValueMax = 400

// secretKeys are the object keys (lowercase) whose values the audit log
// never keeps, wherever they appear in a definition: jobs store their
// secrets apart already (models.JobWrite.Secrets), and this is the second
// line of defence.
var secretKeys = map[string]bool{
	"password": true, "pfx": true, "secret": true, "sastoken": true, "saskey": true, "signingsecret": true,
	"token": true, "clientsecret": true, "authorization": true, "apikey": true, "webhookurl": true,
}

// isSecretKey reports whether the object key k holds a secret.
func isSecretKey(k string) bool { return secretKeys[strings.ToLower(k)] }

// diffJSON returns how after differs from before, path by path: objects
// are compared key by key (paths joined with '.'), anything else
// (arrays, strings, numbers) as one value. A side that is absent (nil, or
// a key only the other has) is "" in the change. Values under secret keys
// are masked (models.AuditSecretMask).
func diffJSON(before, after json.RawMessage) []models.AuditChange {
	var out []models.AuditChange
	diffValue("", decode(before), decode(after), &out)
	return out
}

// decode reads a JSON document; nil for none or invalid JSON.
func decode(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

func diffValue(path string, a, b any, out *[]models.AuditChange) {
	ao, aObj := a.(map[string]any)
	bo, bObj := b.(map[string]any)
	if aObj && bObj || aObj && b == nil || a == nil && bObj {
		keys := map[string]bool{}
		for k := range ao {
			keys[k] = true
		}
		for k := range bo {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			av, aok := ao[k]
			bv, bok := bo[k]
			if isSecretKey(k) {
				if aok != bok || !sameJSON(av, bv) {
					*out = append(*out, models.AuditChange{Path: p, Old: maskIf(aok), New: maskIf(bok)})
				}
				continue
			}
			switch {
			case aok && bok:
				diffValue(p, av, bv, out)
			case aok:
				diffValue(p, av, nil, out)
			default:
				diffValue(p, nil, bv, out)
			}
		}
		return
	}
	if a == nil && b == nil || sameJSON(a, b) {
		return
	}
	*out = append(*out, models.AuditChange{Path: path, Old: valueText(a), New: valueText(b)})
}

// maskIf is the mask when a secret is present, "" when absent.
func maskIf(present bool) string {
	if present {
		return models.AuditSecretMask
	}
	return ""
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(masked(a))
	y, _ := json.Marshal(masked(b))
	return bytes.Equal(x, y)
}

// valueText is v as JSON text with secrets masked, cut to auditValueMax;
// "" for nil.
func valueText(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(masked(v))
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > auditValueMax {
		cut := auditValueMax
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// masked is v with the values of secret keys replaced by the mask, at
// any depth.
func masked(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if isSecretKey(k) {
				out[k] = "•••"
			} else {
				out[k] = masked(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = masked(x)
		}
		return out
	}
	return v
}

// secretChanges are the audit log's changes of the secrets at paths: both
// sides masked.
func secretChanges(paths []string) []models.AuditChange {
	out := make([]models.AuditChange, 0, len(paths))
	for _, p := range paths {
		out = append(out, models.AuditChange{Path: p, Old: models.AuditSecretMask, New: models.AuditSecretMask})
	}
	return out
}

// changedSecrets returns the paths (without the "#type" of the keys) of
// the secrets that differ between before and after, sorted.
func changedSecrets(before, after map[string]string) []string {
	seen := map[string]bool{}
	for k, v := range before {
		if after[k] != v {
			seen[secretPath(k)] = true
		}
	}
	for k, v := range after {
		if before[k] != v {
			seen[secretPath(k)] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// secretPath is a jobdef.Secrets key without its "#type".
func secretPath(k string) string {
	if i := strings.IndexByte(k, '#'); i >= 0 {
		return k[:i]
	}
	return k
}
