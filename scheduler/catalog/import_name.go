package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// derivedJobName names a job that its file does not name: its action URL's
// host and path as a slug and the first 6 hex digits of the SHA-256 of its
// JSON ("example-com-hooks-nightly-3fa2c1"), so that nameless jobs of two
// different files do not take each other's names ("job-1" did), while the
// same job imported twice gets the same name. A job without a readable URL
// is "job-" and the hash.
func derivedJobName(body json.RawMessage) string {
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])[:6]
	var doc struct {
		Action *struct {
			Request *struct {
				URI string `json:"uri"`
			} `json:"request"`
		} `json:"action"`
		Properties *struct {
			Action *struct {
				Request *struct {
					URI string `json:"uri"`
				} `json:"request"`
			} `json:"action"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(body, &doc)
	uri := ""
	switch {
	case doc.Action != nil && doc.Action.Request != nil:
		uri = doc.Action.Request.URI
	case doc.Properties != nil && doc.Properties.Action != nil && doc.Properties.Action.Request != nil:
		uri = doc.Properties.Action.Request.URI
	}
	slug := ""
	if u, err := url.Parse(uri); err == nil && u.Host != "" {
		slug = slugOf(u.Hostname() + "/" + u.Path)
	}
	if slug == "" {
		return "job-" + hash
	}
	return slug + "-" + hash
}

// slugOf keeps the lowercase letters and digits of s, one '-' for each run
// of anything else, at most 40 characters, without '-' at either end.
func slugOf(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// uniqueIn returns name, or name with "-2", "-3"… when a job of jobs has
// it already (the same nameless job twice in one file).
func uniqueIn(name string, jobs []FileJob) string {
	taken := func(n string) bool {
		for _, j := range jobs {
			if strings.EqualFold(j.Name, n) {
				return true
			}
		}
		return false
	}
	out := name
	for i := 2; taken(out); i++ {
		out = name + "-" + strconv.Itoa(i)
	}
	return out
}
