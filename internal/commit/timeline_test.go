package commit

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/commit/lock"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// TestCompleteHoldsTheTableLock: publishing an instant goes through the handle's table
// lock, whoever calls Complete (writes re-enter the lock they hold; compaction and
// clustering used to have to remember a separate CompleteUnderLock). While another
// operation holds the table's lock, Complete waits and then fails without publishing;
// once the lock is free it publishes.
func TestCompleteHoldsTheTableLock(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	short := lock.Options{Provider: lock.InProcessProvider, WaitTimeout: 20 * time.Millisecond, ClientNumRetries: 1,
		ClientRetryWait: 10 * time.Millisecond}
	mine, err := lock.NewManager(short, st)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	other, err := lock.NewManager(short, st)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	ct := NewTimeline(st, TimelineOptions{Zone: time.UTC, Lock: mine, Heartbeat: HeartbeatOptions{Interval: time.Hour, TolerableMisses: 2}})
	txn, err := ct.Begin(ctx, load(t, dir), spec.ActionCommit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}, ExtraMetadata: map[string]string{}}
	completed := filepath.Join(dir, ".hoodie", string(txn.Instant)+".commit")

	release, err := other.Lock(ctx, "another operation")
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Complete(ctx, meta); !errors.Is(err, lock.ErrNotAcquired) {
		t.Fatalf("Complete while another operation holds the lock = %v, want %v", err, lock.ErrNotAcquired)
	}
	if _, err := os.Stat(completed); !os.IsNotExist(err) {
		t.Fatalf("the instant was published without the lock (%v)", err)
	}
	release()
	if err := txn.Complete(ctx, meta); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(completed); err != nil {
		t.Fatalf("the instant was not published once the lock was free: %v", err)
	}
	if mine.Held() {
		t.Error("Complete kept the lock after publishing")
	}
}

// TestTimelineLockReenters: an operation holding the lock through its handle (a write,
// from planning to its commit) re-enters it for Complete instead of waiting for itself.
func TestTimelineLockReenters(t *testing.T) {
	ctx := context.Background()
	dir := newTable(t)
	st := local.New(dir)
	m, err := lock.NewManager(lock.Options{Provider: lock.InProcessProvider, WaitTimeout: 20 * time.Millisecond}, st)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ct := NewTimeline(st, TimelineOptions{Zone: time.UTC, Lock: m})
	release, err := ct.Lock(ctx, "write")
	if err != nil {
		t.Fatal(err)
	}
	txn, err := ct.Begin(ctx, load(t, dir), spec.ActionCommit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.Complete(ctx, &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{}}); err != nil {
		t.Fatalf("Complete under the operation's own lock: %v", err)
	}
	if !m.Held() {
		t.Error("Complete released the lock its caller holds")
	}
	release()
	if m.Held() {
		t.Error("lock still held after the outermost release")
	}
}

// TestFileWritesOfThePackageAreKnown reads the package's source: files are created only
// through writeFile, and writeFile is called only by the handle's put (every timeline
// file) and by the writers of files that are not the timeline's (markers, heartbeats,
// archive logs, rollback command blocks in partitions). A new direct write of a timeline
// file in this package (the ~19 scattered writes put replaced) has to call writeFile or
// Create somewhere else and fails here, whether or not a test runs that path; the
// storage-watching TestTimelineFilesChangeOnlyThroughTheHandle at the repository root
// catches such writes at run time anywhere in the code base.
func TestFileWritesOfThePackageAreKnown(t *testing.T) {
	allowed := map[string][]string{
		"writeFile": {"(*Timeline).put", "(*Txn).Marker", "(*Timeline).WriteArchiveLog", "startHeartbeat", "appendRollbackBlock"},
		"Create":    {"writeFile"},
		"Put":       {"startHeartbeat"}, // the heartbeat's refresh, replacing its own file
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				name := fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) == 1 {
					if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok {
							name = "(*" + id.Name + ")." + name
						}
					}
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					var callee string
					switch fn := call.Fun.(type) {
					case *ast.Ident:
						callee = fn.Name
					case *ast.SelectorExpr:
						callee = fn.Sel.Name
					}
					want, watched := allowed[callee]
					if !watched || (callee != "writeFile" && len(call.Args) < 2) {
						return true
					}
					found[callee]++
					if !slices.Contains(want, name) {
						t.Errorf("%s: %s calls %s; timeline files are written only by (*Timeline).put (allowed callers of %s: %v)",
							fset.Position(call.Pos()), name, callee, callee, want)
					}
					return true
				})
			}
		}
	}
	for callee := range allowed {
		if found[callee] == 0 {
			t.Errorf("no call of %s found: the check reads the wrong source", callee)
		}
	}
}
