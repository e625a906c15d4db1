package hudi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/hudi-go/hudi"
)

const modulePath = "github.com/hudi-go/hudi"

// publicPackage reports whether a program outside the module can import
// path once the implementation packages live under internal/ (issue 18): only
// hudi, config, and storage with its backends.
func publicPackage(path string) bool {
	rel, ok := strings.CutPrefix(path, modulePath)
	if !ok {
		return true // the standard library, arrow-go, …: not ours to hide
	}
	rel = strings.TrimPrefix(rel, "/")
	switch {
	case rel == "", rel == "config", rel == "storage":
		return true
	case strings.HasPrefix(rel, "storage/"):
		return true
	}
	return false
}

// TestPublicAPINameable walks everything package hudi's exported API hands
// out — exported functions, variables, types, their exported fields and
// methods, transitively — and fails if it reaches an exported type of an
// implementation package that package hudi gives no name to. Such a type
// compiles for callers but cannot be written down by them once its package is
// under internal/: a variable of it cannot be declared, a struct field cannot
// hold it. Every such type needs a hudi alias (types.go) or a hudi type of its own.
func TestPublicAPINameable(t *testing.T) {
	pkg := loadHudi(t)

	named := map[*types.TypeName]bool{} // implementation types hudi names
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		if nt, ok := types.Unalias(tn.Type()).(*types.Named); ok {
			named[nt.Origin().Obj()] = true
		}
	}

	w := walker{named: named, seen: map[types.Type]bool{}, missing: map[string]string{}, reached: map[string]string{}}
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if !obj.Exported() {
			continue
		}
		w.walk(obj.Type(), "hudi."+n)
	}
	// Types that must not be reachable at all, named or not: the mutable state and
	// machinery behind a read-only accessor (hudi.TableConfig has getters only).
	for _, leak := range []string{"table.Config", "format/props.Properties", "keygen.Generator"} {
		if via, ok := w.reached[leak]; ok {
			t.Errorf("hudi's API hands out %s (via %s): give hudi a read-only type of its own", leak, via)
		}
	}
	if len(w.missing) > 0 {
		var lines []string
		for typ, via := range w.missing {
			lines = append(lines, fmt.Sprintf("  %-45s reached via %s", typ, via))
		}
		sort.Strings(lines)
		t.Errorf("hudi's API hands out %d types of implementation packages that package hudi does not name "+
			"(add an alias in types.go or a hudi type of its own):\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

type walker struct {
	named   map[*types.TypeName]bool
	seen    map[types.Type]bool
	missing map[string]string // unnamed type → first path that reached it
	reached map[string]string // every type of the module → first path that reached it
}

func (w *walker) walk(t types.Type, via string) {
	if w.seen[t] {
		return
	}
	w.seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		w.walk(types.Unalias(t), via)
	case *types.Named:
		obj := t.Origin().Obj()
		if obj.Pkg() == nil || !strings.HasPrefix(obj.Pkg().Path(), modulePath) {
			return // predeclared, standard library, third-party: nameable, and not ours to walk
		}
		name := obj.Pkg().Path()[len(modulePath):] + "." + obj.Name()
		name = strings.TrimPrefix(name, "/")
		if strings.HasPrefix(name, ".") {
			name = "hudi" + name
		}
		if _, ok := w.reached[name]; !ok {
			w.reached[name] = via
		}
		if obj.Exported() && !publicPackage(obj.Pkg().Path()) && !w.named[obj] {
			if _, ok := w.missing[name]; !ok {
				w.missing[name] = via
			}
		}
		for i := 0; i < t.TypeArgs().Len(); i++ {
			w.walk(t.TypeArgs().At(i), via)
		}
		w.walkMembers(t, name)
	case *types.Pointer:
		w.walk(t.Elem(), via)
	case *types.Slice:
		w.walk(t.Elem(), via)
	case *types.Array:
		w.walk(t.Elem(), via)
	case *types.Map:
		w.walk(t.Key(), via)
		w.walk(t.Elem(), via)
	case *types.Chan:
		w.walk(t.Elem(), via)
	case *types.Signature:
		for i := 0; i < t.Params().Len(); i++ {
			w.walk(t.Params().At(i).Type(), via)
		}
		for i := 0; i < t.Results().Len(); i++ {
			w.walk(t.Results().At(i).Type(), via)
		}
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			if f.Exported() || f.Embedded() { // an embedded field's exported members are promoted
				w.walk(f.Type(), via+"."+f.Name())
			}
		}
	case *types.Interface:
		for i := 0; i < t.NumMethods(); i++ {
			if m := t.Method(i); m.Exported() {
				w.walk(m.Type(), via+"."+m.Name())
			}
		}
	}
}

// walkMembers follows a named type's exported fields and the exported
// methods of its pointer's method set (which includes the value's).
func (w *walker) walkMembers(t *types.Named, name string) {
	w.walk(t.Underlying(), name)
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := 0; i < ms.Len(); i++ {
		if m := ms.At(i).Obj(); m.Exported() {
			w.walk(m.Type(), name+"."+m.Name())
		}
	}
}

// loadHudi type-checks package hudi from the compiler's export data, which
// `go test` has just built, so the test costs a `go list` and no compile.
func loadHudi(t *testing.T) *types.Package {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", modulePath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %s: %v\n%s", modulePath, err, stderr.String())
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, ok := strings.Cut(sc.Text(), "\t")
		if ok && file != "" {
			exports[path] = file
		}
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	pkg, err := imp.Import(modulePath)
	if err != nil {
		t.Fatalf("import %s from export data: %v", modulePath, err)
	}
	return pkg
}

// Every name of types.go, spelled through package hudi only: this file must
// compile with no import of an implementation package.
var _ = []any{
	(*hudi.InstantTime)(nil), (*hudi.Action)(nil), (*hudi.State)(nil), (*hudi.Instant)(nil),
	(*hudi.ArchivedInstant)(nil), (*hudi.InstantFileName)(nil), (*hudi.Timeline)(nil),
	(*hudi.TimelineLayout)(nil), (*hudi.TimelineOperation)(nil), (*hudi.AvroRecord)(nil),
	(*hudi.TableType)(nil), (*hudi.TableVersion)(nil), (*hudi.TableConfig)(nil),
	(*hudi.FileSystemView)(nil), (*hudi.Listing)(nil), (*hudi.PartitionFiles)(nil), (*hudi.FileGroup)(nil),
	(*hudi.FileSlice)(nil), (*hudi.BaseFile)(nil), (*hudi.LogFile)(nil), (*hudi.FileID)(nil),
	(*hudi.WriteToken)(nil), (*hudi.BaseFileName)(nil), (*hudi.LogFileName)(nil),
	(*hudi.CommitMetadata)(nil), (*hudi.WriteStat)(nil), (*hudi.RuntimeStats)(nil),
	(*hudi.InternalSchema)(nil), (*hudi.SchemaField)(nil), (*hudi.SchemaType)(nil), (*hudi.SchemaKind)(nil),
	(*hudi.AddColumn)(nil), (*hudi.UpdateColumn)(nil), (*hudi.ColumnPosition)(nil),
	(*hudi.ColumnPositionKind)(nil),
	(*hudi.WritePhase)(nil), (*hudi.ArchivedEntry)(nil), (*hudi.ClusteringPlan)(nil),
	(*hudi.ClusteringGroup)(nil), (*hudi.RollbackStep)(nil),
	hudi.CopyOnWrite, hudi.MergeOnRead, hudi.TableVersion6, hudi.TableVersion8, hudi.TableVersion9,
	hudi.ActionCommit, hudi.StateCompleted, hudi.KindString, hudi.PositionAfter, hudi.PhaseCommit,
	hudi.PrimitiveType(hudi.KindLong), hudi.DecimalType(10, 2),
}
