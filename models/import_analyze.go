package models

import (
	"fmt"

	"gorm.io/gorm"
)

// importAnalyzeMin is how many jobs an import writes before it refreshes
// the planner's statistics of jobs.
const importAnalyzeMin = 1000

// analyzeAfterImport refreshes the planner's statistics of jobs and
// job_collections inside the import's transaction tx when it wrote at
// least importAnalyzeMin jobs. ANALYZE samples the transaction's own new
// rows, and its statistics take effect at the commit together with the
// rows: without it the engine's queries (the due jobs, the next wake-up,
// the pending attempts) are planned for the table as it was until
// autovacuum analyzes it, and an import that multiplies the table stalls
// them for tens of seconds. It takes a SHARE UPDATE EXCLUSIVE lock, which
// the engine's reads and writes do not conflict with.
func analyzeAfterImport(tx *gorm.DB, written int) error {
	if written < importAnalyzeMin {
		return nil
	}
	if err := tx.Exec(`ANALYZE jobs, job_results, job_collections`).Error; err != nil {
		return fmt.Errorf("analyze after import: %w", err)
	}
	return nil
}
