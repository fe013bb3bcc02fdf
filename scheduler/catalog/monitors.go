package catalog

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"sked/models"
	"sked/models/monitordef"
	"sked/models/problem"
	"sked/scheduler/plan"
)

// reservedMonitorNames are path segments of the monitor pages.
var reservedMonitorNames = map[string]bool{"new": true}

// NewMonitorToken returns a new ping token: "hb_" and 43 characters of
// base64url (256 random bits). It is a capability: whoever holds it may
// ping the monitor.
func NewMonitorToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("catalog: new monitor token: %w", err)
	}
	return "hb_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// ParseMonitor validates the monitor JSON body for the monitor name of
// workspaceID: the name's shape ("name"), the document
// (monitordef.Parse, problems named such as "schedule.interval" or
// "grace") and that the calendars its schedule excludes exist. Errors
// are a *problem.List (400).
func (c *Catalog) ParseMonitor(ctx context.Context, workspaceID, name string, body []byte) (*monitordef.Monitor, error) {
	switch {
	case !monitordef.ValidName(name):
		return nil, problem.New("name", fmt.Sprintf("%q is not a monitor name (1–64 letters, digits, '-', '_' or '.', starting with a letter or digit)", name))
	case reservedMonitorNames[strings.ToLower(name)]:
		return nil, problem.New("name", fmt.Sprintf("%q is reserved for the monitor pages: choose another name", name))
	}
	m, err := monitordef.Parse(body)
	if err != nil {
		return nil, err
	}
	if m.Recurrence.Calendars != nil && len(m.Recurrence.Calendars.Exclude) > 0 {
		cals, err := c.WorkspaceCalendars(ctx, workspaceID)
		if err != nil {
			return nil, err
		}
		if _, err := plan.MonitorRule(m, c.now(), cals); err != nil {
			return nil, err
		}
	} else if _, err := plan.MonitorRule(m, c.now(), nil); err != nil {
		return nil, err
	}
	return m, nil
}

// PutMonitor creates or replaces the heartbeat monitor name of
// workspaceID with body (the monitor JSON), for actor (an editor). A new
// monitor gets a ping token; a replaced one keeps it, and starts its
// evaluation again from now when its schedule or grace changed or it is
// resumed. It reports whether the monitor was created. Errors: a
// *problem.List (400), models.ErrNotFound for an unknown workspace, a
// *ForbiddenError.
func (c *Catalog) PutMonitor(ctx context.Context, actor Actor, workspaceID, name string, body []byte) (*models.Monitor, bool, error) {
	rec := &record{Change: Change{Op: OpPutMonitor, WorkspaceID: workspaceID, Monitor: name}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, false, err
	}
	m, err := c.ParseMonitor(ctx, workspaceID, name, body)
	if err != nil {
		return nil, false, err
	}
	token, err := NewMonitorToken()
	if err != nil {
		return nil, false, err
	}
	var row *models.Monitor
	var created bool
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		restart := false
		if cur, err := tc.store.MonitorByName(ctx, workspaceID, name); err == nil {
			rec.Monitor, rec.Before = cur.Name, cur.Definition
			old, err := monitordef.Parse(cur.Definition)
			restart = err != nil || !monitordef.ScheduleEqual(old, m) || (old.Paused && !m.Paused)
		}
		rec.After = m.Marshal()
		var err error
		created, err = tc.store.PutMonitor(ctx, models.MonitorWrite{WorkspaceID: workspaceID, Name: name, Definition: m.Marshal(),
			Token: token, Restart: restart, Now: c.now(), UserID: actor.UserID})
		if err != nil {
			return fmt.Errorf("catalog: put monitor: %w", err)
		}
		rec.Detail = createdDetail(created)
		row, err = tc.store.MonitorByName(ctx, workspaceID, name)
		if err != nil {
			return fmt.Errorf("catalog: put monitor: %w", err)
		}
		rec.Monitor = row.Name
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	c.wake()
	return row, created, nil
}

// DeleteMonitor deletes the monitor name of workspaceID with its pings and
// occurrences, for actor (an editor). models.ErrNotFound when there is
// none.
func (c *Catalog) DeleteMonitor(ctx context.Context, actor Actor, workspaceID, name string) error {
	rec := &record{Change: Change{Op: OpDeleteMonitor, WorkspaceID: workspaceID, Monitor: name}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return err
	}
	err := c.audited(ctx, actor, rec, func(tc *Catalog) error {
		cur, err := tc.store.MonitorByName(ctx, workspaceID, name)
		if err != nil {
			return fmt.Errorf("catalog: delete monitor: %w", err)
		}
		rec.Monitor, rec.Before = cur.Name, cur.Definition
		if err := tc.store.DeleteMonitor(ctx, workspaceID, name); err != nil {
			return fmt.Errorf("catalog: delete monitor: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.wake()
	return nil
}

// RotateMonitorToken gives the monitor name of workspaceID a new ping
// token, for actor (an editor): the old one stops working at once. It
// returns the monitor with its new token. models.ErrNotFound when there
// is none.
func (c *Catalog) RotateMonitorToken(ctx context.Context, actor Actor, workspaceID, name string) (*models.Monitor, error) {
	rec := &record{Change: Change{Op: OpRotateMonitor, WorkspaceID: workspaceID, Monitor: name}}
	if err := c.allow(ctx, actor, rec.Change); err != nil {
		return nil, err
	}
	token, err := NewMonitorToken()
	if err != nil {
		return nil, err
	}
	var row *models.Monitor
	err = c.audited(ctx, actor, rec, func(tc *Catalog) error {
		if err := tc.store.RotateMonitorToken(ctx, workspaceID, name, token, c.now(), actor.UserID); err != nil {
			return fmt.Errorf("catalog: rotate monitor token: %w", err)
		}
		var err error
		row, err = tc.store.MonitorByName(ctx, workspaceID, name)
		if err != nil {
			return fmt.Errorf("catalog: rotate monitor token: %w", err)
		}
		rec.Monitor, rec.Secrets = row.Name, []string{"token"}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return row, nil
}

// MonitorDocument is the JSON of a stored monitor as the API answers it:
// its definition with name, version, createdAt and updatedAt (its state
// and times are the handler's to add).
func MonitorDocument(row *models.Monitor) (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(row.Definition, &doc); err != nil {
		return nil, fmt.Errorf("catalog: monitor document: %w", err)
	}
	doc["name"] = row.Name
	doc["version"] = row.Version
	doc["createdAt"] = row.CreatedAt.UTC()
	doc["updatedAt"] = row.UpdatedAt.UTC()
	return doc, nil
}
