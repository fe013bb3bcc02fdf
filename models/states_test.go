package models_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sked/models"
	"sked/models/jobdef"
)

// stateSpellings are the canonical spellings of every typed state.
func stateSpellings() map[string]bool {
	out := map[string]bool{}
	for _, s := range models.JobStates {
		out[string(s)] = true
		out[s.Label()] = true
	}
	for _, s := range models.CollectionStates {
		out[string(s)] = true
	}
	for _, s := range models.HistoryStatuses {
		out[string(s)] = true
	}
	for _, a := range models.ActionNames {
		out[string(a)] = true
	}
	return out
}

// stateLiteralAllowed are the literals that spell a state's word without
// being that state: "<file>:<literal>", each with its reason.
var stateLiteralAllowed = map[string]string{
	`handlers/users.go:"disabled"`:          "a log key for a user's disabled flag",
	`models/users.go:"disabled"`:            "the users.disabled column",
	`models/notifydef/event.go:"completed"`: "a word of an event's sentence",
}

// TestNoStateLiterals checks that no product file spells a typed state
// (job, collection, history status, action name) as a string literal
// outside the files that define them (models/states.go,
// models/jobdef/job.go) and constant declarations: code uses the typed
// constants, so a typo is a compile error and a search finds every use.
func TestNoStateLiterals(t *testing.T) {
	spellings := stateSpellings()
	root := ".."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch rel {
			case "compat", "bench", "node_modules", "test-artifacts", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(rel, "_templ.go") ||
			rel == "models/states.go" || rel == "models/jobdef/job.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				return n.Tok != token.CONST // constants name values once
			case *ast.Field:
				return n.Tag == nil // a tag names JSON keys and columns
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				v, err := strconv.Unquote(n.Value)
				if err != nil || !spellings[v] {
					return true
				}
				if _, ok := stateLiteralAllowed[rel+":"+n.Value]; ok {
					return true
				}
				t.Errorf("%s: the state %s is a string literal: use its typed constant", fset.Position(n.Pos()), n.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestStateParsing(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"ENABLED", "enabled", true},
		{"Faulted", "faulted", true},
		{"paused", "", false},
	}
	for _, tt := range tests {
		t.Run("job/"+tt.in, func(t *testing.T) {
			got, err := models.ParseJobState(tt.in)
			if (err == nil) != tt.ok || string(got) != tt.want {
				t.Errorf("ParseJobState(%q) = %q, %v", tt.in, got, err)
			}
		})
	}
	if s, err := models.ParseCollectionState("disabled"); err != nil || s != models.CollectionDisabled {
		t.Errorf("ParseCollectionState(disabled) = %q, %v", s, err)
	}
	if s, err := models.ParseHistoryStatus("postponed"); err != nil || s != models.StatusPostponed {
		t.Errorf("ParseHistoryStatus(postponed) = %q, %v", s, err)
	}
	if a, err := models.ParseActionName("erroraction"); err != nil || a != models.ErrorAction {
		t.Errorf("ParseActionName(erroraction) = %q, %v", a, err)
	}
	for _, bad := range []func() error{
		func() error { _, err := models.ParseCollectionState("On"); return err },
		func() error { _, err := models.ParseHistoryStatus("Skipped"); return err },
		func() error { _, err := models.ParseActionName("Callback"); return err },
	} {
		if bad() == nil {
			t.Error("an unknown spelling parsed")
		}
	}
	if jobdef.Faulted.Label() != "Faulted" || jobdef.State("").Label() != "" {
		t.Errorf("Label: %q", jobdef.Faulted.Label())
	}
}
