package write

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/table"
)

// checkFilesReadable refuses a schema change that would leave a file of the table
// unreadable: before the instant is created, every base file and every data log block of
// the file-system view (all slices, since incremental reads still reach older ones) must
// hold the changed columns in types the new schema reads (schema.CheckReadable), judged
// by the file's own schema — the Parquet footer of a base file, the SCHEMA header of a log
// block. Only the columns whose type changed are checked: the others read as before.
// Java refuses such a writer schema in HoodieSparkSqlWriter.deduceWriterSchema
// (AvroSchemaUtils.isSchemaCompatible against the table schema); hudi-go checks the files
// themselves, because its reader converts per file.
func checkFilesReadable(ctx context.Context, t *table.Table, old, evolved *arrow.Schema) error {
	changed := changedColumns(old, evolved)
	if len(changed) == 0 {
		return nil
	}
	target := arrow.NewSchema(changed, nil)
	listing, err := t.Files(ctx, table.FilesOptions{})
	if err != nil {
		return err
	}
	view, err := t.View(ctx, listing, "")
	if err != nil {
		return err
	}
	for _, g := range view.Groups {
		for _, sl := range g.Slices {
			if sl.Base != nil {
				if err := checkBaseReadable(ctx, t, sl.Base.Path, target); err != nil {
					return err
				}
			}
			for _, lf := range sl.Logs {
				if err := checkLogReadable(ctx, t, lf.Path, target); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// changedColumns are the columns of evolved whose type differs from old's.
func changedColumns(old, evolved *arrow.Schema) []arrow.Field {
	if old == nil {
		return nil
	}
	var out []arrow.Field
	for _, f := range evolved.Fields() {
		if i := schema.FieldIndex(old, f.Name); i >= 0 && !arrow.TypeEqual(old.Field(i).Type, f.Type) {
			out = append(out, f)
		}
	}
	return out
}

func checkBaseReadable(ctx context.Context, t *table.Table, path string, target *arrow.Schema) error {
	f, err := t.Storage.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("check base file %s against the new schema: %w", path, err)
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), path, memory.DefaultAllocator, 1)
	if err != nil {
		return fmt.Errorf("check base file %s against the new schema: %w", path, err)
	}
	defer pf.Close()
	if err := schema.CheckReadable(pf.Schema(), target); err != nil {
		return fmt.Errorf("the new table schema cannot read base file %s: %w", path, err)
	}
	return nil
}

func checkLogReadable(ctx context.Context, t *table.Table, path string, target *arrow.Schema) error {
	f, err := t.Storage.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("check log file %s against the new schema: %w", path, err)
	}
	defer f.Close()
	lr := logfile.NewReader(f, f.Size(), path)
	seen := map[string]bool{}
	for {
		b, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check log file %s against the new schema: %w", path, err)
		}
		sc := b.Header[logfile.Schema]
		if (b.Type != logfile.AvroDataBlock && b.Type != logfile.ParquetDataBlock) || sc == "" || seen[sc] {
			continue
		}
		seen[sc] = true
		fileSchema, err := schema.FromAvro(sc)
		if err == nil {
			err = schema.CheckReadable(fileSchema, target)
		}
		if err == nil && b.Type == logfile.AvroDataBlock {
			// Avro blocks are decoded straight into the table schema; compiling that
			// decoder is the exact test.
			_, err = schema.NewRecordAppender(sc, target)
		}
		if err != nil {
			return fmt.Errorf("the new table schema cannot read the block at offset %d of log file %s: %w", b.Offset, path, err)
		}
	}
}
