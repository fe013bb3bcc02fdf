package jobdef

import "sked/models/problem"

// problems accumulates validation problems while a job is parsed.
type problems struct {
	list []problem.Problem
	// keep holds stored secrets that fill in secrets the input leaves out.
	keep Secrets
	// secretsOptional: see Options.SecretsOptional.
	secretsOptional bool
	// stored: see Options.Stored.
	stored bool
}

// add records one problem at path.
func (p *problems) add(path, msg string) {
	p.list = append(p.list, problem.Problem{Path: path, Message: msg})
}

// err returns the accumulated problems as a *problem.List, or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &problem.List{Problems: p.list}
}
