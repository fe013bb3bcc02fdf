package catalog

import (
	"context"
	"fmt"

	"sked/models"
	"sked/models/problem"
)

// CreateJob creates the job name in coll from body (either shape of SPEC
// §1) and never replaces one: when coll already holds a job of that name
// (case-insensitive) it writes nothing and returns a *problem.List naming
// jobName (nameTaken), the error the job form shows under the name. The
// store decides it under the collection's lock in the write's
// transaction, so that of concurrent creations of one name exactly one
// succeeds. Other errors are PutJob's. actor makes the change.
func (c *Catalog) CreateJob(ctx context.Context, actor Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, error) {
	j, _, err := c.putJob(ctx, actor, coll, name, body, saveCreate)
	return j, err
}

// nameTaken is CreateJob's refusal of the name of an existing job.
func nameTaken(name string) *problem.List {
	return &problem.List{Problems: []problem.Problem{{Path: "jobName",
		Message: fmt.Sprintf("a job named %q already exists in this collection: edit it instead", name)}}}
}
