package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"sked/models/monitordef"
)

// exportedWorkspace is a workspace's objects in an export bundle, in the
// shape sked apply reads ({"id", "monitors": […]}).
type exportedWorkspace struct {
	ID       string            `json:"id"`
	Monitors []json.RawMessage `json:"monitors"`
}

// exportWorkspaceObjects returns the heartbeat monitors of workspaceIDs as
// the "workspaces" of an export bundle: each monitor as the API's PUT
// takes it, with its name, never its ping token (the server keeps it: the
// URL is the monitor's own). Workspaces without monitors are left out.
func (c *Catalog) exportWorkspaceObjects(ctx context.Context, workspaceIDs []string) ([]exportedWorkspace, error) {
	var out []exportedWorkspace
	for _, ws := range workspaceIDs {
		ms, err := c.store.MonitorsOf(ctx, ws)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		ew := exportedWorkspace{ID: ws}
		for i := range ms {
			def, err := monitordef.Parse(ms[i].Definition)
			if err != nil {
				return nil, fmt.Errorf("export monitor %s: %w", ms[i].Name, err)
			}
			name, _ := json.Marshal(ms[i].Name)
			body := def.Marshal()
			doc := append(append([]byte(`{"name":`), name...), ',')
			doc = append(doc, bytes.TrimPrefix(body, []byte("{"))...)
			ew.Monitors = append(ew.Monitors, doc)
		}
		if len(ew.Monitors) > 0 {
			out = append(out, ew)
		}
	}
	return out, nil
}
