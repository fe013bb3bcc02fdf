package handlers_test

import "sked/models"

// The roles of the "Why is it paused?" forms of the job and collection
// pages, added to roleMatrix: those of disabling.
func init() {
	const (
		coll = "/c/:ws/:rg/:jc"
		job  = coll + "/jobs/:job"
	)
	roleMatrix["POST "+coll+"/note"] = models.RoleOperator
	roleMatrix["POST "+job+"/note"] = models.RoleOperator
}
