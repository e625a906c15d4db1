// Package layering enforces the import layers of docs/architecture.md: imports point
// downward only, and within a layer only between the siblings named here.
package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
)

const module = "github.com/hudi-go/hudi"

// layer of each package (path relative to the module root). Deeper layers import only
// shallower ones. A package missing here fails the test, so a new package must be placed.
var layer = map[string]int{
	"storage": 0, "storage/local": 0, "storage/mem": 0, "storage/storagetest": 0,
	// Object-store backends (cloud SDKs): only cmd/hudi, tests and the benchmark link them.
	"internal/blobstore": 0, "storage/s3": 0, "internal/objstore/s3test": 0, "storage/gcs": 0, "internal/objstore/gcstest": 0,
	"storage/azure": 0, "internal/objstore/azuretest": 0,
	"internal/objstoretest": 9,
	"internal/avro":         0, "internal/format/avroschema": 0, "internal/javastr": 0, "internal/parallel": 0, "internal/testutil": 0, "internal/benchdata": 0,
	"internal/sparktype": 0, // Spark SQL type names, shared by sql and the CLI
	"internal/spec":      1, "config": 1, "internal/schema/internalschema": 1,
	"internal/format/props": 1, "internal/format/commitmeta": 1, "internal/format/logfile": 1, "internal/format/hfile": 1,
	"internal/format/parquet": 1, "internal/format/bloom": 1, "internal/format/jsonl": 1, "internal/format/cdc": 1,
	"internal/timeline": 2, "internal/fsview": 2, "internal/schema": 2, "internal/keygen": 2, "internal/merge": 2, "internal/expr": 2,
	"internal/filegroup": 3, "internal/mdt": 3,
	"internal/table":  4,
	"internal/commit": 5, "internal/commit/lock": 5, "internal/upgrade": 5, "internal/write/index": 5, // write/index: the indexes a write chooses from
	"internal/read": 6, "internal/write": 6, "internal/mdt/mdtwrite": 6, "internal/services/compaction": 6, "internal/services/clean": 6,
	"internal/services/archive":  6,
	"internal/services/rollback": 6, "internal/services/savepoint": 6, "internal/services/clustering": 6,
	"hudi": 7, "internal/sql": 7,
	"internal/sql/parser": 7, // pure Go: imports only the standard library
	"internal/cli":        8, "cmd/hudi": 8,
	"internal/layering": 9, "internal/crashtest": 9, "internal/crosscheck": 9, "internal/concurrencytest": 9,
	"bench": 9, // the benchmark command: links DuckDB (cgo) like internal/crosscheck
}

// sameLayer lists the allowed imports between packages of one layer.
var sameLayer = map[string][]string{
	"storage/local":                {"storage"},
	"storage/mem":                  {"storage"},
	"storage/storagetest":          {"storage"},
	"internal/blobstore":           {"storage"},
	"storage/s3":                   {"storage", "internal/blobstore"},
	"internal/objstore/s3test":     {"storage/s3"},
	"storage/gcs":                  {"storage", "internal/blobstore"},
	"internal/objstore/gcstest":    {"storage/gcs"},
	"storage/azure":                {"storage", "internal/blobstore"},
	"internal/objstore/azuretest":  {"storage/azure"},
	"internal/format/hfile":        {"internal/spec"}, // spec.ErrUnsupported, the one "unsupported" sentinel (docs/architecture.md)
	"internal/fsview":              {"internal/timeline"},
	"internal/commit":              {"internal/commit/lock"},
	"internal/services/compaction": {"internal/write"},
	"internal/services/clustering": {"internal/write"},
	"internal/cli":                 {},
	// The metadata table's writer runs the clean, compaction-plan and archival code on the
	// metadata table itself, and reads the data table's snapshot (read) for the record
	// index's keys.
	"internal/mdt/mdtwrite": {"internal/services/clean", "internal/services/archive", "internal/services/compaction", "internal/read"},
	"cmd/hudi":              {"internal/cli"},
	"internal/sql":          {"internal/sql/parser", "hudi"}, // the engine runs over the facade
}

// onlyImportedBy lists packages only the named packages may import: the SQL engine links
// DuckDB through cgo, so only the CLI (behind the !nosql build tag) and the benchmark
// command may pull it in, and the core stays pure Go.
var onlyImportedBy = map[string][]string{
	"internal/sql": {"internal/cli", "bench"}, // bench: W8 times the engine; it links DuckDB already
	// The cloud backends: the core stays free of cloud SDKs (cmd/hudi links them).
	"internal/blobstore": {"storage/s3", "storage/gcs", "storage/azure", "bench"},
	"storage/s3":         {"cmd/hudi", "internal/objstore/s3test", "internal/objstoretest", "bench"},
	"storage/gcs":        {"cmd/hudi", "internal/objstore/gcstest", "internal/objstoretest"},
	"storage/azure":      {"cmd/hudi", "internal/objstore/azuretest", "internal/objstoretest"},
}

// cloudSDKs are import path prefixes of cloud SDKs, which only the backends above import.
var cloudSDKs = []string{"gocloud.dev", "github.com/aws/", "cloud.google.com/", "github.com/Azure/", "google.golang.org/api"}

// cloudSDKUser reports whether pkg may import a cloud SDK: the storage backends, their
// shared blob-store code and test servers, the object-store tests and the benchmark.
func cloudSDKUser(pkg string) bool {
	return strings.HasPrefix(pkg, "storage/") || strings.HasPrefix(pkg, "internal/objstore/") ||
		pkg == "internal/blobstore" || pkg == "internal/objstoretest" || pkg == "bench"
}

func TestLayering(t *testing.T) {
	root := testutil.RepoRoot(t)
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = "hudi"
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			for _, sdk := range cloudSDKs {
				if strings.HasPrefix(path, sdk) && !cloudSDKUser(pkg) {
					t.Errorf("%s imports the cloud SDK %s: only the storage backends may", pkg, path)
				}
			}
			if path == module {
				imports[pkg]["hudi"] = true
			} else if strings.HasPrefix(path, module+"/") {
				imports[pkg][strings.TrimPrefix(path, module+"/")] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		lp, ok := layer[p]
		if !ok {
			t.Errorf("package %s has no layer: add it to the layering test and docs/architecture.md", p)
			continue
		}
		for dep := range imports[p] {
			if allowed, ok := onlyImportedBy[dep]; ok && !contains(allowed, p) {
				t.Errorf("%s must not import %s (only %s may)", p, dep, strings.Join(allowed, ", "))
			}
			ld, ok := layer[dep]
			if !ok {
				continue // reported as its own package
			}
			switch {
			case ld < lp:
			case ld == lp && contains(sameLayer[p], dep):
			default:
				t.Errorf("%s (layer %d) must not import %s (layer %d)", p, lp, dep, ld)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
