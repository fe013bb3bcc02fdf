package web

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"sked/models"
)

// TargetsPath is the Targets page of workspace ws (POST: add or change a
// limit).
func TargetsPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/targets" }

// TargetDeletePath removes the limit of host in workspace ws.
func TargetDeletePath(ws, host string) string {
	return TargetsPath(ws) + "/" + url.PathEscape(host) + "/delete"
}

// TargetsIn is what NewTargetsPanel shows.
type TargetsIn struct {
	Workspace string
	CSRFToken string
	CanEdit   bool
	Limits    []models.TargetStatus
	// Submitted is a refused form, shown again with its errors.
	Submitted *TargetForm
}

// NewTargetsPanel is the #targets panel of in.
func NewTargetsPanel(in TargetsIn) TargetsPanel {
	p := TargetsPanel{Workspace: in.Workspace, CanEdit: in.CanEdit, CSRFToken: in.CSRFToken, SaveURL: TargetsPath(in.Workspace)}
	if in.Submitted != nil {
		p.Form = *in.Submitted
	}
	for i, l := range in.Limits {
		r := TargetRow{ID: "target-" + strconv.Itoa(i+1), Host: l.Host,
			MaxConcurrent: limitText(l.MaxConcurrent), MaxPerSecond: limitText(l.MaxPerSecond),
			InFlight: FormatCount(l.InFlight), Waiting: FormatCount(l.Waiting), LongestWait: "—", Busy: l.Waiting > 0,
			DeleteURL: TargetDeletePath(in.Workspace, l.Host)}
		if l.LongestWaitMs != nil {
			r.LongestWait = SpanText(time.Duration(*l.LongestWaitMs) * time.Millisecond)
		}
		p.Rows = append(p.Rows, r)
	}
	return p
}

// limitText is a limit as the table shows it.
func limitText(n *int) string {
	if n == nil {
		return "—"
	}
	return FormatCount(int64(*n))
}

// TargetBody is the API body of the form f: a limit left empty is
// absent; a value that is not a number is sent as text, so that the
// parser names its field.
func TargetBody(f TargetForm) []byte {
	m := map[string]any{}
	for k, v := range map[string]string{"maxConcurrent": f.MaxConcurrent, "maxPerSecond": f.MaxPerSecond} {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			m[k] = n
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return b
}
