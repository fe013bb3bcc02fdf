package catalog

import (
	"bytes"
	"encoding/json"
	"strings"
)

// mergePatch applies an RFC 7386 JSON merge patch: members of patch
// replace those of target, null removes them, objects merge recursively.
// Keys match case-insensitively (as the job JSON is read), keeping the
// target's spelling.
func mergePatch(target, patch json.RawMessage) json.RawMessage {
	var po map[string]json.RawMessage
	if json.Unmarshal(patch, &po) != nil || !isObject(patch) {
		return patch
	}
	var to map[string]json.RawMessage
	if json.Unmarshal(target, &to) != nil || !isObject(target) {
		to = map[string]json.RawMessage{}
	}
	for k, v := range po {
		tk := k
		for existing := range to {
			if strings.EqualFold(existing, k) {
				tk = existing
				break
			}
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(to, tk)
			continue
		}
		if cur, ok := to[tk]; ok && isObject(v) && isObject(cur) {
			to[tk] = mergePatch(cur, v)
			continue
		}
		to[tk] = v
	}
	out, _ := json.Marshal(to)
	return out
}

func isObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}
