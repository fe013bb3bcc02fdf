package web

import (
	"time"

	"sked/models"
)

// The pages' view of jobs that run after other jobs (SPEC §17.1): the
// chain on the job page, both ways, and what triggered an execution and
// what it triggered on its page.

// TriggerChainView is the job page's "Runs after" and "Triggers" lists:
// the jobs this job runs after and the jobs that run after it, as links
// named rg/jc/job. The zero value shows nothing.
type TriggerChainView struct {
	RunsAfter []LinkView
	Triggers  []LinkView
}

// Empty reports whether the job is in no chain.
func (v TriggerChainView) Empty() bool { return len(v.RunsAfter) == 0 && len(v.Triggers) == 0 }

// NewTriggerChainView links the job's upstream and downstream jobs.
func NewTriggerChainView(upstream, downstream []models.TriggerJob) TriggerChainView {
	var v TriggerChainView
	for _, j := range upstream {
		v.RunsAfter = append(v.RunsAfter, triggerJobLink(j))
	}
	for _, j := range downstream {
		v.Triggers = append(v.Triggers, triggerJobLink(j))
	}
	return v
}

// triggerJobLink is a link to a job's page named by its path.
func triggerJobLink(j models.TriggerJob) LinkView {
	return LinkView{Text: j.Path(), URL: JobPath(j.WorkspaceID, j.ResourceGroup, j.Collection, j.Name)}
}

// ExecutionTriggersView is an execution page's "Triggered by" (the
// upstream executions whose ends started this run) and "Triggered" (the
// runs of other jobs this execution's end started). The zero value shows
// nothing.
type ExecutionTriggersView struct {
	TriggeredBy []LinkView
	Triggered   []LinkView
}

// NewExecutionTriggersView links the causes of an execution's run and the
// runs its end triggered; times are shown in zone.
func NewExecutionTriggersView(causes []models.TriggerCause, runs []models.TriggeredRun, zone *time.Location) ExecutionTriggersView {
	var v ExecutionTriggersView
	for _, c := range causes {
		text := "a deleted job's run, ended " + c.EndedAt.In(zone).Format("2006-01-02 15:04:05")
		l := LinkView{Text: text}
		if c.Upstream.Name != "" {
			u := c.Upstream
			l = LinkView{Text: u.Path() + ", ended " + c.EndedAt.In(zone).Format("2006-01-02 15:04:05"),
				URL: ExecutionPath(u.WorkspaceID, u.ResourceGroup, u.Collection, u.Name, c.HistoryID)}
		}
		v.TriggeredBy = append(v.TriggeredBy, l)
	}
	for _, r := range runs {
		d := r.Downstream
		v.Triggered = append(v.Triggered, LinkView{Text: d.Path() + ", run of " + r.ExpectedTime.In(zone).Format("2006-01-02 15:04:05"),
			URL: JobHistoryPath(d.WorkspaceID, d.ResourceGroup, d.Collection, d.Name)})
	}
	return v
}
