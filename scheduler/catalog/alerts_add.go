package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"sked/models"
	"sked/models/notifydef"
	"sked/models/problem"
)

// WatchEvents are the events of the job page's bell, "tell me when this
// job fails": a faulted occurrence, and the first success after it.
var WatchEvents = []notifydef.EventType{notifydef.OccurrenceFaulted, notifydef.Recovered}

// DefaultChannel is the channel the job page's bell sends to: the
// workspace's first channel in name order (channels as ChannelsOf returns
// them), or nil when it has none.
func DefaultChannel(channels []models.Channel) *models.Channel {
	if len(channels) == 0 {
		return nil
	}
	return &channels[0]
}

// AddAlertRule creates an alert rule of workspaceID from body (the rule
// JSON of notifydef), for actor (owner), under a new name made of its
// scope and its channel ("nightly-ops-slack", then "nightly-ops-slack-2"
// …): the pages' "add an alert" forms, which ask for no name. Errors are
// PutAlertRule's.
func (c *Catalog) AddAlertRule(ctx context.Context, actor Actor, workspaceID string, body []byte) (*models.AlertRule, error) {
	if err := c.allow(ctx, actor, Change{Op: OpPutAlertRule, WorkspaceID: workspaceID}); err != nil {
		return nil, err
	}
	r, err := notifydef.ParseRule(body)
	if err != nil {
		return nil, err
	}
	name, err := c.freeRuleName(ctx, workspaceID, ruleBaseName(r.Scope, r.Channel))
	if err != nil {
		return nil, err
	}
	row, _, err := c.PutAlertRule(ctx, actor, workspaceID, name, body)
	return row, err
}

// WatchJob is the job page's bell: a rule sending WatchEvents of job (of
// coll) to the workspace's DefaultChannel, for actor (owner). A rule for
// the job that already sends occurrenceFaulted to that channel is
// returned as it is. A workspace without channels is a problem at
// "channel".
func (c *Catalog) WatchJob(ctx context.Context, actor Actor, coll *models.CollectionRow, job string) (*models.AlertRule, error) {
	ws := coll.WorkspaceID
	if err := c.allow(ctx, actor, Change{Op: OpPutAlertRule, WorkspaceID: ws, ResourceGroup: coll.ResourceGroup,
		Collection: coll.Name, Job: job}); err != nil {
		return nil, err
	}
	channels, err := c.store.ChannelsOf(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("catalog: watch job: %w", err)
	}
	ch := DefaultChannel(channels)
	if ch == nil {
		return nil, problem.New("channel", "the workspace has no channel yet: add one on the Channels page first")
	}
	rules, err := c.store.AlertRulesOf(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("catalog: watch job: %w", err)
	}
	scope := notifydef.Scope{ResourceGroup: coll.ResourceGroup, Collection: coll.Name, Job: job}
	for i := range rules {
		r := &rules[i]
		if r.ChannelID == ch.ID && ruleScope(r) == scope && ruleHas(r, notifydef.OccurrenceFaulted) {
			return r, nil
		}
	}
	body, err := json.Marshal(map[string]any{"channel": ch.Name, "scope": scope, "events": WatchEvents})
	if err != nil {
		return nil, fmt.Errorf("catalog: watch job: %w", err)
	}
	return c.AddAlertRule(ctx, actor, ws, body)
}

// ruleScope is the scope of a stored rule, with the spelling of the job's
// names as stored.
func ruleScope(r *models.AlertRule) notifydef.Scope {
	return notifydef.Scope{ResourceGroup: r.ScopeResourceGroup, Collection: r.ScopeCollection, Job: r.ScopeJob, Monitor: r.ScopeMonitor}
}

// ruleHas reports whether the stored rule r sends events of type t.
func ruleHas(r *models.AlertRule, t notifydef.EventType) bool {
	var events []notifydef.EventType
	if json.Unmarshal(r.Events, &events) != nil {
		return false
	}
	for _, e := range events {
		if e == t {
			return true
		}
	}
	return false
}

// ruleBaseName is the name AddAlertRule starts from: the narrowest name
// of the scope ("workspace" for the whole workspace), a dash and the
// channel, with characters a rule name cannot hold replaced by '-'.
func ruleBaseName(s notifydef.Scope, channel string) string {
	what := "workspace"
	switch {
	case s.Job != "":
		what = s.Job
	case s.Collection != "":
		what = s.Collection
	case s.ResourceGroup != "":
		what = s.ResourceGroup
	}
	name := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, what+"-"+channel)
	name = strings.TrimLeft(name, "-_.")
	if len(name) > 58 {
		name = name[:58]
	}
	if name == "" {
		name = "alert"
	}
	return name
}

// freeRuleName is base, or base with "-2", "-3" … when a rule of
// workspaceID has that name already.
func (c *Catalog) freeRuleName(ctx context.Context, workspaceID, base string) (string, error) {
	rules, err := c.store.AlertRulesOf(ctx, workspaceID)
	if err != nil {
		return "", fmt.Errorf("catalog: add alert rule: %w", err)
	}
	taken := make(map[string]bool, len(rules))
	for _, r := range rules {
		taken[strings.ToLower(r.Name)] = true
	}
	name := base
	for n := 2; taken[strings.ToLower(name)]; n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	return name, nil
}
