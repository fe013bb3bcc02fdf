package handlers_test

import (
	"net/http"
	"testing"
)

// TestImportPageSkipsByDefault checks that a name clash skips the job
// unless the user chooses to replace it.
func TestImportPageSkipsByDefault(t *testing.T) {
	a := newApp(t, false)
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	r := a.get("/import")
	wantStatus(t, r, http.StatusOK)
	if v, _ := r.doc.Find(`#import_conflict option[selected]`).Attr("value"); v != "skip" {
		t.Errorf("default for jobs that exist: %q, want skip", v)
	}
}
