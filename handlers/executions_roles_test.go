package handlers_test

import "sked/models"

// The roles of the execution pages, the re-run and the running-now page
// (issue 16), added to roleMatrix.
func init() {
	const (
		armJob = "/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Scheduler/jobCollections/:jc/jobs/:job"
		job    = "/c/:ws/:rg/:jc/jobs/:job"
	)
	roleMatrix["POST "+armJob+"/history/:id/rerun"] = models.RoleOperator
	roleMatrix["GET "+job+"/history/:id"] = models.RoleReader
	roleMatrix["POST "+job+"/history/:id/rerun"] = models.RoleOperator
	roleMatrix["GET /w/:ws/running"] = models.RoleReader
}
