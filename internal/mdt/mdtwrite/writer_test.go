package mdtwrite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/mdt/mdtwrite"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
	"github.com/hudi-go/hudi/storage/local"
)

// diesAfterMetadata is a metadata writer whose process "dies" right after the metadata
// table recorded a commit: the data instant never completes.
type diesAfterMetadata struct{ table.MetadataWriter }

var errKilled = errors.New("killed after the metadata deltacommit")

func (d diesAfterMetadata) Update(ctx context.Context, u table.MetadataUpdate) error {
	if err := d.MetadataWriter.Update(ctx, u); err != nil {
		return err
	}
	if u.Commit != nil {
		return errKilled
	}
	return nil
}

func mdtTimeline(t *testing.T, dir string) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Load(context.Background(), mdt.Storage(local.New(dir)), spec.TableVersion6, "")
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// The metadata table is written before the data instant completes; a write that dies in
// between leaves a completed metadata deltacommit of a pending data instant. Readers skip
// its block (the instant is not valid on the data table), so the metadata table still
// lists what storage holds; the next write rolls the data instant back, and with it the
// metadata deltacommit (a rollback of it at the data rollback's instant + "006", a command
// block in its log), as Java's HoodieBackedTableMetadataWriter.update(HoodieRollbackMetadata) does.
func TestWriteDiedAfterMetadataDeltaCommit(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			_, dir := tripsTable(t, typ, 2, nil)
			mw, err := mdtwrite.New(local.New(dir), mdtwrite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			meta, err := table.Open(ctx, local.New(dir))
			if err != nil {
				t.Fatal(err)
			}
			s := arrow.NewSchema([]arrow.Field{{Name: "uuid", Type: arrow.BinaryTypes.String, Nullable: true},
				{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "fare", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
				{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
			rb := array.NewRecordBuilder(memory.DefaultAllocator, s)
			rb.Field(0).(*array.StringBuilder).AppendValues([]string{"k00", "new"}, nil)
			rb.Field(1).(*array.Int64Builder).AppendValues([]int64{9, 9}, nil)
			rb.Field(2).(*array.Float64Builder).AppendValues([]float64{1, 2}, nil)
			rb.Field(3).(*array.StringBuilder).AppendValues([]string{"sf", "tokyo"}, nil)
			rec := rb.NewRecord()
			rb.Release()
			defer rec.Release()
			_, err = write.Write(ctx, meta, []arrow.Record{rec}, write.Options{Operation: write.Upsert, Metadata: diesAfterMetadata{mw}})
			if !errors.Is(err, errKilled) {
				t.Fatalf("write: %v, want the injected death", err)
			}
			tl, err := timeline.Load(ctx, local.New(dir), spec.TableVersion6, "")
			if err != nil {
				t.Fatal(err)
			}
			var failed spec.InstantTime
			for _, in := range tl.Instants {
				if !in.IsCompleted() {
					failed = in.Time
				}
			}
			if failed == "" {
				t.Fatal("no pending data instant")
			}
			if in, ok := mdtTimeline(t, dir).Get(failed, spec.ActionDeltaCommit); !ok || !in.IsCompleted() {
				t.Fatalf("the metadata table has no completed deltacommit %s", failed)
			}
			mustValidate(t, dir, "after the failed write")
			m, err := mdt.Open(ctx, local.New(dir))
			if err != nil {
				t.Fatal(err)
			}
			parts, err := m.Partitions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.Join(parts, ","), "tokyo") {
				t.Errorf("the failed write's partition is listed: %v", parts)
			}
			// The dead writer's heartbeat is gone; the next write rolls its instant back.
			os.Remove(filepath.Join(dir, ".hoodie", ".heartbeat", string(failed)))
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			upsert(t, tb, 7, nil)
			mustValidate(t, dir, "after the rollback")
			mtl := mdtTimeline(t, dir)
			if len(mtl.At(failed)) != 0 {
				t.Errorf("the metadata table still has instant %s: %v", failed, mtl.At(failed))
			}
			rollbacks := 0
			for _, in := range mtl.Instants {
				if in.Action == spec.ActionRollback && in.IsCompleted() && strings.HasSuffix(string(in.Time), "006") {
					rollbacks++
				}
			}
			if rollbacks != 1 {
				t.Errorf("%d metadata rollbacks with suffix 006, want 1", rollbacks)
			}
		})
	}
}

// Settings the metadata writer does not implement are refused before anything is written.
func TestUnsupportedMetadataSettingsRefused(t *testing.T) {
	tb, dir := tripsTable(t, "cow", 1, nil)
	for _, k := range []string{"hoodie.metadata.index.async"} {
		t.Run(k, func(t *testing.T) {
			before := mdtTimeline(t, dir).Instants
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				_, err = tb.Write(context.Background(), nil, hudi.WriteOptions{Operation: "delete_partition",
					Settings: map[string]string{k: "true", "hoodie.datasource.write.partitions.to.delete": "city=sf"}})
			}()
			if !errors.Is(err, mdtwrite.ErrUnsupported) || !strings.Contains(err.Error(), k) {
				t.Fatalf("error %v: want one naming %s", err, k)
			}
			if after := mdtTimeline(t, dir).Instants; len(after) != len(before) {
				t.Errorf("the refused write changed the metadata table")
			}
		})
	}
}
