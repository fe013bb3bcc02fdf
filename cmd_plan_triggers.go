package main

import (
	"strings"

	"sked/models/jobdef"
)

// The order of jobs that run after other jobs (SPEC §17.1) in a plan: the
// server refuses a trigger naming a job that does not exist yet, and the
// delete of a job another job still runs after, so sked apply creates and
// updates upstream jobs before the jobs that run after them, and deletes
// those jobs before their upstreams.

// triggerKeys are the keys (workspace/rg/jc/job, lower case) of the jobs
// that def runs after, in the workspace ws.
func triggerKeys(ws string, def *jobdef.Job) []string {
	if def == nil || def.Trigger == nil {
		return nil
	}
	keys := make([]string, len(def.Trigger.After))
	for i, p := range def.Trigger.After {
		keys[i] = strings.ToLower(ws + "/" + p.String())
	}
	return keys
}

// orderByTriggers orders, in place, the job changes of each stage of plan
// (sorted by stage) so that within stageJobs a job comes after the jobs it
// runs after, and within stageDeleteJobs before them; other changes and
// jobs unrelated by triggers keep their order.
func orderByTriggers(plan []change) {
	for start := 0; start < len(plan); {
		end := start
		for end < len(plan) && plan[end].stage == plan[start].stage {
			end++
		}
		switch plan[start].stage {
		case stageJobs:
			topoOrder(plan[start:end], false)
		case stageDeleteJobs:
			topoOrder(plan[start:end], true)
		}
		start = end
	}
}

// topoOrder orders changes so that each comes after the changes of the
// jobs it runs after (before them when reverse), keeping the given order
// where triggers do not decide. A cycle (which the server refuses anyway)
// keeps its given order.
func topoOrder(changes []change, reverse bool) {
	idx := map[string]int{}
	for i, ch := range changes {
		idx[strings.ToLower(ch.id)] = i
	}
	// deps[i]: the changes that must come before change i.
	deps := make([][]int, len(changes))
	for i, ch := range changes {
		for _, k := range ch.upstreams {
			j, ok := idx[k]
			if !ok || j == i {
				continue
			}
			if reverse {
				deps[j] = append(deps[j], i)
			} else {
				deps[i] = append(deps[i], j)
			}
		}
	}
	state := make([]int, len(changes)) // 0 new, 1 visiting, 2 placed
	out := make([]change, 0, len(changes))
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		for _, d := range deps[i] {
			visit(d)
		}
		state[i] = 2
		out = append(out, changes[i])
	}
	for i := range changes {
		visit(i)
	}
	copy(changes, out)
}
