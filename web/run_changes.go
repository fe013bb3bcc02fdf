package web

import "encoding/json"

// RunChangesForm is the job page's "Run with changes…" form (SPEC §16.4):
// editors of an http or https job run it once with other headers or
// another body. URL is the run now target; Headers ("Name: value" lines)
// and Body are what was typed.
type RunChangesForm struct {
	URL, CSRFToken string
	Headers, Body  string
}

// RunChangesJSON writes the form's fields as the body of a run with
// changes ({"request": {"headers": {…}, "body": "…"}}, which
// jobdef.ParseRunChanges reads and checks): headers one "Name: value" per
// line (a later line of the same name wins), and the body when it is not
// empty (an empty body field keeps the job's body).
func RunChangesJSON(headers, body string) []byte {
	req := map[string]any{}
	if hs := parseHeaderLines(headers); len(hs) > 0 {
		req["headers"] = hs
	}
	if body != "" {
		req["body"] = body
	}
	out, _ := json.Marshal(map[string]any{"request": req})
	return out
}
