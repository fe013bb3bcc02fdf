package web

import "fmt"

// RunNowMessage is what the job page says after Run now, for a job that
// has run executions times so far: only what is known (the engine's
// attempt id is not a count of the job's runs).
func RunNowMessage(executions int64) string {
	switch executions {
	case 0:
		return "The job runs now, for the first time. Its entry appears in the history when the run ends."
	case 1:
		return "The job runs now. It ran once before; this run's entry appears in the history when it ends."
	}
	return fmt.Sprintf("The job runs now. It ran %d times before; this run's entry appears in the history when it ends.", executions)
}
