package handlers

import (
	"sked/scheduler/catalog"
	"sked/web"
)

// progressThreshold is how many jobs make the import page check a file in
// the background (catalog.Imports) and show its progress.
const progressThreshold = 500

// importProgressView is a background import's progress as the page shows
// it.
func importProgressView(run *catalog.ImportRun) web.ImportProgress {
	done, total := run.Progress()
	return web.ImportProgress{ID: run.ID(), Done: run.Finished(), Checked: done, Total: total}
}
