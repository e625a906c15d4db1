package keygen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/testutil"
)

// TestFixtureTables recomputes _hoodie_record_key and _hoodie_partition_path of every row of
// every Spark-written base file from the table's hoodie.properties and checks they match.
func TestFixtureTables(t *testing.T) {
	for _, id := range testutil.TableIDs(t) {
		t.Run(id, func(t *testing.T) {
			base := testutil.Table(t, id)
			fh, err := os.Open(filepath.Join(base, ".hoodie", "hoodie.properties"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := props.Parse(fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			get := func(k string) string { v, _ := p.Get(k); return v }
			if strings.EqualFold(get("hoodie.table.base.file.format"), "LANCE") {
				t.Skip("Lance base files")
			}
			kg := get("hoodie.table.keygenerator.class")
			if kg == "" {
				kg = get("hoodie.table.keygenerator.type")
			}
			opts := Options{
				KeyGenerator:    kg,
				RecordKeyFields: strings.Split(get("hoodie.table.recordkey.fields"), ","),
				PartitionFields: strings.Split(get("hoodie.table.partition.fields"), ","),
				HiveStyle:       get("hoodie.datasource.write.hive_style_partitioning") == "true",
				URLEncode:       get("hoodie.datasource.write.partitionpath.urlencode") == "true",
				Props:           p.Map(),
			}
			checked, files := 0, 0
			err = filepath.Walk(base, func(path string, info os.FileInfo, err error) error {
				if err != nil {
					return err
				}
				if info.IsDir() && info.Name() == ".hoodie" {
					return filepath.SkipDir
				}
				if info.IsDir() || !strings.HasSuffix(path, ".parquet") {
					return nil
				}
				files++
				checked += checkBaseFile(t, opts, path, info.Size())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): %d base files, %d rows checked", id, kg, files, checked)
			if get("hoodie.populate.meta.fields") != "false" && files > 0 && checked == 0 {
				t.Errorf("no rows with meta fields checked")
			}
		})
	}
}

func checkBaseFile(t *testing.T, opts Options, path string, size int64) int {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := parquet.Open(fh, size, path, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := New(opts, f.Schema())
	if err != nil {
		t.Fatalf("%s: New: %v", path, err)
	}
	checked := 0
	err = f.ReadBatches(context.Background(), nil, nil, func(rec arrow.Record) error {
		kIdx := rec.Schema().FieldIndices("_hoodie_record_key")
		pIdx := rec.Schema().FieldIndices("_hoodie_partition_path")
		if len(kIdx) == 0 || len(pIdx) == 0 {
			return nil
		}
		keys, _ := rec.Column(kIdx[0]).(*array.String)
		parts, _ := rec.Column(pIdx[0]).(*array.String)
		if keys == nil || parts == nil {
			t.Fatalf("%s: meta columns are not strings", path)
		}
		for row := 0; row < int(rec.NumRows()); row++ {
			if keys.IsNull(row) || keys.Value(row) == "" {
				continue // hoodie.populate.meta.fields=false
			}
			k, err := g.RecordKey(rec, row)
			if err != nil || k != keys.Value(row) {
				t.Errorf("%s row %d: RecordKey = %q, %v; stored %q", filepath.Base(path), row, k, err, keys.Value(row))
			}
			pp, err := g.PartitionPath(rec, row)
			if err != nil || pp != parts.Value(row) {
				t.Errorf("%s row %d: PartitionPath = %q, %v; stored %q", filepath.Base(path), row, pp, err, parts.Value(row))
			}
			checked++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return checked
}
