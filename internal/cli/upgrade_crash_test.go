package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/internal/upgrade"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/local"
)

var errInjectedCrash = errors.New("injected crash")

// crashingStorage lets the first budget changes (file publications, replacements,
// deletions, directory creations) through and fails every later one, as if the process
// had died there: nothing after the crash point reaches storage.
type crashingStorage struct {
	storage.Storage
	budget int
}

func (c *crashingStorage) spend() error {
	if c.budget <= 0 {
		return errInjectedCrash
	}
	c.budget--
	return nil
}

func (c *crashingStorage) Put(ctx context.Context, path string, data []byte) error {
	if err := c.spend(); err != nil {
		return err
	}
	return c.Storage.Put(ctx, path, data)
}

func (c *crashingStorage) Delete(ctx context.Context, path string) error {
	if err := c.spend(); err != nil {
		return err
	}
	return c.Storage.Delete(ctx, path)
}

func (c *crashingStorage) MkdirAll(ctx context.Context, dir string) error {
	if err := c.spend(); err != nil {
		return err
	}
	return c.Storage.MkdirAll(ctx, dir)
}

func (c *crashingStorage) Create(ctx context.Context, path string) (storage.Writer, error) {
	w, err := c.Storage.Create(ctx, path)
	if err != nil {
		return nil, err
	}
	return &crashingWriter{Writer: w, c: c}, nil
}

type crashingWriter struct {
	storage.Writer
	c *crashingStorage
}

func (w *crashingWriter) Close() error {
	if err := w.c.spend(); err != nil {
		_ = w.Writer.Abort()
		return err
	}
	return w.Writer.Close()
}

// runVersionChange runs upgrade.Run on the table at dir through st.
func runVersionChange(t *testing.T, st storage.Storage, to spec.TableVersion) error {
	t.Helper()
	tb, err := table.Open(context.Background(), st)
	if err != nil {
		return err
	}
	_, err = upgrade.Run(context.Background(), tb, upgrade.Options{To: to})
	return err
}

// TestVersionChangeCrashAnywhere crashes an upgrade (6 → 9) and a downgrade (9 → 6) of
// Spark tables at every change it makes to storage, one run per crash point. After each
// crash the table is whole at one of the two versions — its hoodie.properties (or Java's
// hoodie.properties.backup) names the version, and it reads back equal to the fixture's
// expected snapshot — and a re-run of the same change finishes it: the table is at the
// target version, reads back equal, and has no timeline file of the other layout left.
// The crash points are every third one in CI, all of them with HUDI_SOAK=1 (and a
// merge-on-read table too).
// Java's handlers guarantee only the second (a re-run finishes an interrupted upgrade:
// UpgradeDowngrade.run, "this has to be idempotent"); hudi-go's order (new layout first,
// hoodie.properties through the backup protocol, old layout deleted last) gives both.
func TestVersionChangeCrashAnywhere(t *testing.T) {
	fx := testutil.FixturesDir(t)
	// CI: one table, every third crash point (~2 s); HUDI_SOAK=1: every point of both.
	ids, stride := []string{"cow/v6_simplekeygen_nonhivestyle_overwritetable"}, 3
	if os.Getenv("HUDI_SOAK") == "1" {
		ids, stride = append(ids, "mor-parquet/v6_nonpartitioned_rollback"), 1
	}
	for _, id := range ids {
		want, err := os.ReadFile(filepath.Join(fx, "expected", id, "snapshot.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range []struct {
			name     string
			from, to spec.TableVersion
		}{{"upgrade", 6, 9}, {"downgrade", 9, 6}} {
			t.Run(id+"/"+dir.name, func(t *testing.T) {
				points := 0
				for budget := 0; ; budget += stride {
					path := testutil.Table(t, id)
					if dir.from == 9 {
						if err := runVersionChange(t, local.New(path), 9); err != nil {
							t.Fatal(err)
						}
					}
					err := runVersionChange(t, &crashingStorage{Storage: local.New(path), budget: budget}, dir.to)
					if err == nil {
						break // no change left to crash in
					}
					if !errors.Is(err, errInjectedCrash) {
						t.Fatalf("crash point %d: %v", budget, err)
					}
					points++
					propsPath := filepath.Join(path, ".hoodie", "hoodie.properties")
					if _, err := os.Stat(propsPath); err != nil {
						// Between the backup and the new file: readers take the backup.
						propsPath += ".backup"
					}
					data, err := os.ReadFile(propsPath)
					if err != nil {
						t.Fatalf("crash point %d: neither hoodie.properties nor its backup: %v", budget, err)
					}
					p, err := props.Parse(bytes.NewReader(data))
					if err != nil {
						t.Fatal(err)
					}
					ver, _ := p.Get("hoodie.table.version")
					if ver != "6" && ver != "9" {
						t.Fatalf("crash point %d: version %q", budget, ver)
					}
					checkSnapshot(t, "after the crash", path, string(want))
					if err := runVersionChange(t, local.New(path), dir.to); err != nil {
						t.Fatalf("crash point %d: re-run: %v", budget, err)
					}
					if got, _ := readProps(t, path).Get("hoodie.table.version"); got != itoa(int(dir.to)) {
						t.Fatalf("crash point %d: version %s after the re-run", budget, got)
					}
					checkSnapshot(t, "after the re-run", path, string(want))
					if dir.to == 9 {
						if left := instantFiles(t, filepath.Join(path, ".hoodie")); len(left) > 0 {
							t.Fatalf("crash point %d: layout-1 files left: %v", budget, left)
						}
					} else if _, err := os.Stat(filepath.Join(path, ".hoodie", "timeline")); !os.IsNotExist(err) {
						t.Fatalf("crash point %d: .hoodie/timeline left (%v)", budget, err)
					}
				}
				if points < 25/stride {
					t.Fatalf("only %d crash points", points)
				}
				t.Logf("%d crash points", points)
			})
		}
	}
}

func itoa(i int) string {
	return string(rune('0' + i))
}
