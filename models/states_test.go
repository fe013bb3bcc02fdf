package models_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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
	`web/members_templ.go:"Disabled"`:       "the badge of a disabled user account",
	`web/users_templ.go:"Disabled"`:         "the badge of a disabled user account",
}

// stateTestDirs are the directories whose tests are checked too, for the
// literals they use as a state (see testStateLiterals).
var stateTestDirs = map[string]bool{"handlers": true, "web": true}

// TestNoStateLiterals checks that no product file (generated templates
// included) spells a typed state (job, collection, history status, action
// name) as a string literal outside the files that define them
// (models/states.go, models/jobdef/job.go) and constant declarations:
// code uses the typed constants, so a typo is a compile error and a
// search finds every use. The tests of stateTestDirs are held to it
// where they use a literal as a state (testStateLiterals).
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
			case "node_modules", "test-artifacts", ".git":
				return filepath.SkipDir
			}
			// Another Go module (compat/azuresdk, bench/…, clients/terraform)
			// cannot import the typed states: it speaks the wire format.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		isTest := strings.HasSuffix(rel, "_test.go")
		if !strings.HasSuffix(rel, ".go") || isTest && !stateTestDirs[filepath.ToSlash(filepath.Dir(rel))] ||
			rel == "models/states.go" || rel == "models/jobdef/job.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		if isTest {
			testStateLiterals(t, fset, f, spellings)
			return nil
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

// stateNames are the fields that hold a typed state and the state types
// (as conversions).
var stateNames = map[string]bool{
	"State": true, "Status": true, "ActionName": true, "CollectionState": true, "HistoryStatus": true,
}

// testStateLiterals reports the literals a test file uses as a state: the
// value of a State, Status or ActionName field (in a composite literal or
// an assignment), a side of a comparison with such a field, the operand of
// a conversion to a state type, and the arguments of a function named
// after states (jobStateBadge). Other literals are left alone: a test may
// expect a page's text ("Enabled").
func testStateLiterals(t *testing.T, fset *token.FileSet, f *ast.File, spellings map[string]bool) {
	t.Helper()
	named := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.Ident:
			return stateNames[e.Name]
		case *ast.SelectorExpr:
			return stateNames[e.Sel.Name]
		}
		return false
	}
	stateFunc := func(e ast.Expr) bool {
		name := ""
		switch e := e.(type) {
		case *ast.Ident:
			name = e.Name
		case *ast.SelectorExpr:
			name = e.Sel.Name
		}
		return strings.Contains(name, "State") || strings.Contains(name, "Status")
	}
	check := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		if v, err := strconv.Unquote(lit.Value); err == nil && spellings[v] {
			t.Errorf("%s: the state %s is a string literal: use its typed constant", fset.Position(lit.Pos()), lit.Value)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if named(n.Key) {
				check(n.Value)
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if named(l) && i < len(n.Rhs) {
					check(n.Rhs[i])
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if named(n.X) {
					check(n.Y)
				}
				if named(n.Y) {
					check(n.X)
				}
			}
		case *ast.CallExpr:
			if named(n.Fun) || stateFunc(n.Fun) {
				for _, a := range n.Args {
					check(a)
				}
			}
		}
		return true
	})
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
