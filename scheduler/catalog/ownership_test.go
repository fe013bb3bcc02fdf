package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// catalogOwnedWrites are the methods of models.Store that write what the
// catalog owns: the store writes it calls for jobs and collections, job
// state and run now, calendars, notification channels and alert rules,
// collection signing secrets, workspaces and members, accounts and
// tokens, imports, and the audited transaction itself. Only the catalog
// (and the store) may call them: anything else that changes these goes
// through the catalog, with an actor, its role checked and its audit
// entry written. The engine's own writes (claims, results, retention,
// SetJobEnabled) are not in the list.
//
// To extend it: when the catalog calls a new store method that writes,
// add the method's name here. The list is the catalog's store calls that
// write (grep 'store\.[A-Z]' scheduler/catalog/*.go, reads left out),
// and SaveJobs, SaveJob for many jobs at once.
var catalogOwnedWrites = []string{
	// The audit log's transaction.
	"Audited", "AuditedThen",
	// Jobs, collections, job state, run now, imports.
	"SaveJob", "SaveJobs", "DeleteJob", "DeleteJobNamed", "DeleteJobs", "PutCollection", "DeleteCollection",
	"SetCollectionStateNote", "SetJobState", "SetJobsState", "RunNow", "RunNowWith", "RunJobsNow", "Rerun", "CreateBackfill", "CancelBackfill",
	"ReplanJob", "ApplyImport", "SetFirstRuns",
	// Calendars.
	"PutCalendar", "PutCalendarVersion", "DeleteCalendar",
	// Notification channels and alert rules; collection signing secrets.
	"PutChannel", "DeleteChannel", "LogDelivery", "PutAlertRule", "DeleteAlertRule",
	"PutSigning", "DeleteSigning",
	// Target limits.
	"PutTargetLimit", "DeleteTargetLimit",
	// Heartbeat monitors.
	"PutMonitor", "DeleteMonitor", "RotateMonitorToken",
	// Workspaces and members.
	"CreateWorkspace", "RenameWorkspace", "DeleteWorkspace", "AddMember", "SetMemberRole", "RemoveMember",
	// Accounts and tokens.
	"CreateUser", "SetUserDisabled", "ChangePassword", "ResetPassword", "CreateScopedToken", "RevokeToken",
}

// ownedWriteExceptions are the functions outside the catalog that may
// still call a catalog-owned write, as "Receiver.Method" or "Func", each
// with why. Keep it empty: an entry is a debt.
var ownedWriteExceptions = map[string]string{}

// owners are the packages that may call catalogOwnedWrites: the store
// and the catalog, with the packages below them.
var owners = []string{"sked/models", "sked/scheduler/catalog"}

// TestOnlyTheCatalogWritesWhatItOwns type-checks the production code
// (non-test files) of every package of the module but the owners and
// fails for each call of a catalogOwnedWrites method of models.Store, or
// of an interface method of the same name and signature (a store held
// through a small interface).
func TestOnlyTheCatalogWritesWhatItOwns(t *testing.T) {
	root, pkgs := listModule(t)
	fset := token.NewFileSet()
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f := exports[path]; f != "" {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %q", path)
	})
	owned := ownedSignatures(t, imp)
	var found []string
	checked := 0
	for _, p := range pkgs {
		if p.Module == nil || p.Module.Path != "sked" || isOwner(p.ImportPath) || len(p.GoFiles) == 0 {
			continue
		}
		checked++
		found = append(found, ownedWriteCalls(t, fset, imp, root, p, owned)...)
	}
	if checked == 0 {
		t.Fatal("no package of the module was checked")
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: write through scheduler/catalog (with an actor) instead", f)
	}
}

// goPackage is what go list tells of a package.
type goPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Module     *struct{ Path string }
}

// listModule returns the module's root directory, and its packages and
// their dependencies with the compiler's export data of each (go list
// -export builds them).
func listModule(t *testing.T) (string, []goPackage) {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,Export,GoFiles,Module", "./...")
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return root, pkgs
}

// ownedSignatures returns the signature of each catalogOwnedWrites method
// of *models.Store; it fails t for a name the store no longer has.
func ownedSignatures(t *testing.T, imp types.Importer) map[string]*types.Signature {
	t.Helper()
	models, err := imp.Import("sked/models")
	if err != nil {
		t.Fatalf("import sked/models: %v", err)
	}
	store := types.NewPointer(models.Scope().Lookup("Store").Type())
	owned := map[string]*types.Signature{}
	for _, name := range catalogOwnedWrites {
		sel := types.NewMethodSet(store).Lookup(models, name)
		if sel == nil {
			t.Errorf("models.Store has no method %s: update catalogOwnedWrites", name)
			continue
		}
		owned[name] = sel.Obj().Type().(*types.Signature)
	}
	return owned
}

// ownedWriteCalls type-checks the non-test files of p and returns, as
// "file:line (package): function calls call", file relative to root,
// each call of an owned method of models.Store (or of
// an interface method with its name and signature) outside
// ownedWriteExceptions.
func ownedWriteCalls(t *testing.T, fset *token.FileSet, imp types.Importer, root string, p goPackage, owned map[string]*types.Signature) []string {
	t.Helper()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", p.ImportPath, err)
	}
	var found []string
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || ownedWriteExceptions[funcName(fn)] != "" {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				s := info.Selections[sel]
				if s == nil || s.Kind() == types.FieldVal {
					return true
				}
				sig := owned[sel.Sel.Name]
				if sig == nil {
					return true
				}
				isStore := isModelsStore(s.Recv())
				viaInterface := types.IsInterface(s.Recv()) && types.Identical(s.Obj().Type(), sig)
				if isStore || viaInterface {
					pos := fset.Position(sel.Pos())
					rel, err := filepath.Rel(root, pos.Filename)
					if err != nil {
						rel = pos.Filename
					}
					found = append(found, fmt.Sprintf("%s:%d (%s): %s calls %s", rel, pos.Line, p.ImportPath, funcName(fn), types.ExprString(sel)))
				}
				return true
			})
		}
	}
	return found
}

// isModelsStore reports whether t is models.Store or a pointer to it.
func isModelsStore(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Store" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sked/models"
}

// isOwner reports whether the package path is an owner or below one.
func isOwner(path string) bool {
	for _, o := range owners {
		if path == o || strings.HasPrefix(path, o+"/") {
			return true
		}
	}
	return false
}

// funcName is fn's name as ownedWriteExceptions spells it.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
