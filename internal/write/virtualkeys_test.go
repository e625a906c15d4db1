package write_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/write"
)

// vkTable creates a table for the virtual-key tests with modelSchema (id, city, ts, val).
func vkTable(t *testing.T, typ string, settings map[string]string, partition []string, keys ...string) *hudi.Table {
	t.Helper()
	if len(keys) == 0 {
		keys = []string{"id"}
	}
	s := map[string]string{"hoodie.populate.meta.fields": "false"}
	for k, v := range settings {
		s[k] = v
	}
	tb, err := hudi.Create(context.Background(), t.TempDir(), hudi.CreateOptions{Name: "vk", Type: typ, RecordKeyFields: keys,
		PartitionFields: partition, PrecombineField: "ts", Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN",
		Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func vkRows(n int) []arrow.Record {
	var rows []mrow
	for i := 0; i < n; i++ {
		rows = append(rows, mrow{id: string(rune('a' + i)), city: modelCities[i%len(modelCities)], ts: int64(i), val: int64(i)})
	}
	return []arrow.Record{buildBatch(rows, false)}
}

// Every refusal around virtual keys names its reason; Java's text is kept where Java has
// one (HoodieTableMetaClient.validateTableProperties, AutoRecordKeyGenerationUtils).
func TestVirtualKeyRefusals(t *testing.T) {
	ctx := context.Background()
	setProps := func(t *testing.T, tb *hudi.Table, f func(*props.Properties)) *hudi.Table {
		t.Helper()
		if err := openMeta(t, tb).UpdateProperties(ctx, f, time.Now()); err != nil {
			t.Fatal(err)
		}
		re, err := hudi.Open(ctx, tb.Storage().Root())
		if err != nil {
			t.Fatal(err)
		}
		return re
	}
	for _, tc := range []struct {
		name        string
		table       func(t *testing.T) *hudi.Table
		settings    map[string]string
		want        string
		unsupported bool // the error wraps write.ErrUnsupported
	}{
		{name: "re-enable meta fields",
			table:    func(t *testing.T) *hudi.Table { return vkTable(t, "cow", nil, []string{"city"}) },
			settings: map[string]string{"hoodie.populate.meta.fields": "true"},
			want:     "hoodie.populate.meta.fields already disabled for the table. Can't be re-enabled back"},
		{name: "disable meta fields on a table that stores them",
			table: func(t *testing.T) *hudi.Table {
				tb, err := hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{Name: "on", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
					Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"})
				if err != nil {
					t.Fatal(err)
				}
				return tb
			},
			settings:    map[string]string{"hoodie.populate.meta.fields": "false"},
			want:        "populates meta fields: writing it with hoodie.populate.meta.fields=false is",
			unsupported: true},
		{name: "custom key generator",
			table: func(t *testing.T) *hudi.Table {
				return vkTable(t, "cow", map[string]string{"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator"}, []string{"city:SIMPLE"})
			},
			want: "Only simple, non-partitioned or complex key generator are supported when meta-fields are disabled. Used: org.apache.hudi.keygen.CustomKeyGenerator"},
		{name: "avro key generator class",
			table: func(t *testing.T) *hudi.Table {
				return setProps(t, vkTable(t, "cow", nil, []string{"city"}), func(p *props.Properties) {
					p.Set("hoodie.table.keygenerator.class", "org.apache.hudi.keygen.SimpleAvroKeyGenerator")
				})
			},
			want: "Used: org.apache.hudi.keygen.SimpleAvroKeyGenerator"},
		{name: "auto-generated keys",
			table: func(t *testing.T) *hudi.Table {
				return setProps(t, vkTable(t, "cow", nil, []string{"city"}), func(p *props.Properties) { p.Delete("hoodie.table.recordkey.fields") })
			},
			want: "Disabling hoodie.populate.meta.fields is not supported with auto generation of record keys"},
		{name: "drop partition columns",
			table: func(t *testing.T) *hudi.Table {
				return vkTable(t, "cow", map[string]string{"hoodie.datasource.write.drop.partition.columns": "true"}, []string{"city"})
			},
			want:        "has hoodie.populate.meta.fields=false and hoodie.datasource.write.drop.partition.columns=true: stored keys cannot be rebuilt without the partition columns",
			unsupported: true},
		{name: "merge-on-read complex key generator",
			table: func(t *testing.T) *hudi.Table {
				return vkTable(t, "mor", map[string]string{"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator"}, []string{"city"})
			},
			want:        "merge-on-read with hoodie.populate.meta.fields=false needs a single record key field and SimpleKeyGenerator or NonpartitionedKeyGenerator (got org.apache.hudi.keygen.ComplexKeyGenerator on [id])",
			unsupported: true},
		{name: "merge-on-read two key fields",
			table:       func(t *testing.T) *hudi.Table { return vkTable(t, "mor", nil, nil, "id", "city") },
			want:        "needs a single record key field and SimpleKeyGenerator or NonpartitionedKeyGenerator (got org.apache.hudi.keygen.NonpartitionedKeyGenerator on [id city])",
			unsupported: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := tc.table(t)
			_, err := tb.Write(ctx, vkRows(3), hudi.WriteOptions{Operation: "upsert", Settings: tc.settings})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if errors.Is(err, write.ErrUnsupported) != tc.unsupported {
				t.Errorf("errors.Is(ErrUnsupported) = %v, want %v", !tc.unsupported, tc.unsupported)
			}
		})
	}
}

// A merge-on-read virtual key on a date column is refused: Java's log reader would key
// log records by the raw day number, its key generator by the date's text.
func TestVirtualKeyMergeOnReadKeyType(t *testing.T) {
	ctx := context.Background()
	tb, err := hudi.Create(ctx, t.TempDir(), hudi.CreateOptions{Name: "vkdate", Type: "mor", RecordKeyFields: []string{"d"},
		PrecombineField: "ts", Schema: "d DATE, ts BIGINT", Settings: map[string]string{"hoodie.populate.meta.fields": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true}, {Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	b.Field(0).(*array.Date32Builder).Append(19448)
	b.Field(1).(*array.Int64Builder).Append(1)
	rec := b.NewRecord()
	defer rec.Release()
	_, err = tb.Write(ctx, []arrow.Record{rec}, hudi.WriteOptions{Operation: "insert"})
	if want := "keys log records by the raw value of d, which for type date32 differs"; err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, write.ErrUnsupported) {
		t.Fatalf("error %v, want ErrUnsupported containing %q", err, want)
	}
}

// Indexes that need keys stored in the files are refused on virtual-key tables, naming
// hoodie.index.type; the others write.
func TestVirtualKeyIndexTypes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		typ, index string
		ok         bool
	}{
		{"cow", "BLOOM", false},
		{"cow", "GLOBAL_BLOOM", false},
		{"mor", "BLOOM", false},
		{"cow", "SIMPLE", true},
		{"cow", "GLOBAL_SIMPLE", true},
		{"cow", "INMEMORY", true},
		{"cow", "BUCKET", true},
		{"mor", "SIMPLE", true},
		{"mor", "GLOBAL_SIMPLE", true},
		{"mor", "BUCKET", true},
	} {
		t.Run(tc.typ+"/"+tc.index, func(t *testing.T) {
			tb := vkTable(t, tc.typ, nil, []string{"city"})
			settings := map[string]string{"hoodie.index.type": tc.index}
			for i := 0; i < 2; i++ { // the second write looks the first's keys up
				_, err := tb.Write(ctx, vkRows(4), hudi.WriteOptions{Operation: "upsert", Settings: settings})
				if tc.ok {
					if err != nil {
						t.Fatal(err)
					}
					continue
				}
				want := "hoodie.index.type=" + tc.index + " needs record keys stored in the files"
				if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, write.ErrUnsupported) {
					t.Fatalf("error %v, want ErrUnsupported containing %q", err, want)
				}
				return
			}
			res, err := tb.Write(ctx, vkRows(4), hudi.WriteOptions{Operation: "upsert", Settings: settings})
			if err != nil {
				t.Fatal(err)
			}
			if res.Records.Updated != 4 || res.Records.Inserted != 0 {
				t.Errorf("third upsert of the same keys: %+v, want 4 updates", res.Records)
			}
		})
	}
}

// TestUnsupportedIndexTypes: HBASE and FLINK_STATE keep record locations outside the
// table's files (HBase, Flink's state). A write with one of them is refused before it
// starts, on tables with and without meta fields, and commits nothing. Before, such a
// write looked keys up as SIMPLE and committed: the setting was accepted and ignored.
// (RECORD_INDEX is served by the metadata table's record_index partition: mdt/mdtwrite's
// TestRecordIndexTagsWrites and TestRecordIndexRefusedWithoutTheIndex.)
func TestUnsupportedIndexTypes(t *testing.T) {
	ctx := context.Background()
	for _, index := range []string{"HBASE", "FLINK_STATE", "flink_state"} {
		for _, tc := range []struct {
			name     string
			settings map[string]string
		}{
			{"cow", map[string]string{"hoodie.populate.meta.fields": "true"}},
			{"mor", map[string]string{"hoodie.populate.meta.fields": "true"}},
			{"cow-virtual-keys", nil},
		} {
			t.Run(index+"/"+tc.name, func(t *testing.T) {
				typ, _, _ := strings.Cut(tc.name, "-")
				tb := vkTable(t, typ, tc.settings, []string{"city"})
				if _, err := tb.Write(ctx, vkRows(4), hudi.WriteOptions{Operation: "insert"}); err != nil {
					t.Fatal(err)
				}
				before := len(tb.Timeline().Instants)
				_, err := tb.Write(ctx, vkRows(4), hudi.WriteOptions{Operation: "upsert", Settings: map[string]string{"hoodie.index.type": index}})
				want := "hoodie.index.type=" + strings.ToUpper(index) + ": the " + strings.ToUpper(index) + " index keeps record locations that hudi-go does not maintain"
				if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, hudi.ErrUnsupported) {
					t.Fatalf("error %v, want ErrUnsupported containing %q", err, want)
				}
				if after := len(tb.Timeline().Instants); after != before {
					t.Errorf("the refused write changed the timeline: %d instants, was %d", after, before)
				}
			})
		}
	}
}

// Clustering and incremental queries stay refused on virtual-key tables.
func TestVirtualKeyServiceRefusals(t *testing.T) {
	ctx := context.Background()
	tb := vkTable(t, "cow", nil, []string{"city"})
	if _, err := tb.Write(ctx, vkRows(3), hudi.WriteOptions{Operation: "insert"}); err != nil {
		t.Fatal(err)
	}
	tb, _ = hudi.Open(ctx, tb.Storage().Root())
	_, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true})
	if want := "does not populate meta fields: clustering is"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("cluster: %v, want %q", err, want)
	}
	_, err = tb.Scan(ctx, hudi.ScanOptions{Incremental: true})
	if want := "incremental queries need _hoodie_commit_time"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("incremental scan: %v, want %q", err, want)
	}
	mor := vkTable(t, "mor", map[string]string{"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator"}, []string{"city"})
	_, err = mor.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true})
	if want := "merge-on-read with hoodie.populate.meta.fields=false needs a single record key field"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("compaction: %v, want %q", err, want)
	}
}

// TestVirtualKeyMergeOnReadFiles writes a virtual-key merge-on-read table (updates to log
// data blocks in both block formats, a delete block) and compacts it, checking the files
// as Java 0.14 writes them: log records with all five meta fields null, delete records
// keyed by the key generator, and compacted base files with four null meta columns, their
// own name in _hoodie_file_name and no bloom filter or key range in the footer. The
// snapshot reads the merged values before and after compaction.
func TestVirtualKeyMergeOnReadFiles(t *testing.T) {
	ctx := context.Background()
	for _, format := range []string{"avro", "parquet"} {
		t.Run(format, func(t *testing.T) {
			tb := vkTable(t, "mor", nil, []string{"city"})
			root := tb.Storage().Root()
			settings := map[string]string{"hoodie.logfile.data.block.format": format}
			write := func(op string, rows []mrow) {
				t.Helper()
				tb, _ := hudi.Open(ctx, root)
				if _, err := tb.Write(ctx, []arrow.Record{buildBatch(rows, false)}, hudi.WriteOptions{Operation: op, Settings: settings}); err != nil {
					t.Fatalf("%s: %v", op, err)
				}
			}
			write("insert", []mrow{{id: "a", city: "sf", ts: 1, val: 1}, {id: "b", city: "sf", ts: 1, val: 2}, {id: "c", city: "la", ts: 1, val: 3}})
			write("upsert", []mrow{{id: "a", city: "sf", ts: 2, val: 10}, {id: "c", city: "la", ts: 2, val: 30}})
			write("delete", []mrow{{id: "b", city: "sf"}})
			want := []string{"-|-|-|id=a|city=sf|ts=2|val=10|del=false", "-|-|-|id=c|city=la|ts=2|val=30|del=false"}

			var dataRecs, deletes int
			for _, p := range globFiles(t, root, "*/.*.log.*") {
				for _, b := range readLog(t, p) {
					switch b.Type {
					case logfile.AvroDataBlock, logfile.ParquetDataBlock:
						for _, r := range decodeDataBlock(t, b) {
							dataRecs++
							for _, f := range schema.MetaFields[:5] {
								if r[f] != nil {
									t.Errorf("%s: log record %v has %s = %v, want null", p, r["id"], f, r[f])
								}
							}
						}
					case logfile.DeleteBlock:
						dels, err := logfile.DecodeDeleteBlock(b.Content)
						if err != nil {
							t.Fatal(err)
						}
						for _, d := range dels {
							deletes++
							if d.RecordKey != "b" || d.PartitionPath != "sf" {
								t.Errorf("delete record %+v, want key b in sf", d)
							}
						}
					}
				}
			}
			if dataRecs != 2 || deletes != 1 {
				t.Errorf("log data records %d, delete records %d; want 2 and 1", dataRecs, deletes)
			}
			tb, _ = hudi.Open(ctx, root)
			compare(t, nil, "snapshot before compaction", scanRows(t, ctx, tb, hudi.ScanOptions{}), want)

			res, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true})
			if err != nil || !res.Completed {
				t.Fatalf("compaction: %+v, %v", res, err)
			}
			compacted := globFiles(t, root, "*/*_"+res.Instant+".parquet")
			if len(compacted) != 2 {
				t.Fatalf("compacted files %v, want one per partition", compacted)
			}
			for _, p := range compacted {
				checkVirtualKeyBaseFile(t, p)
			}
			tb, _ = hudi.Open(ctx, root)
			compare(t, nil, "snapshot after compaction", scanRows(t, ctx, tb, hudi.ScanOptions{}), want)
			compare(t, nil, "read-optimized after compaction", scanRows(t, ctx, tb, hudi.ScanOptions{ReadOptimized: true}), want)
		})
	}
}

// globFiles are the table's files matching pattern (relative to root).
func globFiles(t *testing.T, root, pattern string) []string {
	t.Helper()
	out, err := filepath.Glob(filepath.Join(root, pattern))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeDataBlock decodes a data block's records (Avro with its SCHEMA header, or Parquet)
// into field maps of the top-level columns.
func decodeDataBlock(t *testing.T, b *logfile.Block) []map[string]any {
	t.Helper()
	var out []map[string]any
	if b.Type == logfile.AvroDataBlock {
		s, err := avro.Parse(b.Header[logfile.Schema])
		if err != nil {
			t.Fatal(err)
		}
		recs, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			v, _, err := s.Decode(r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v.(map[string]any))
		}
		return out
	}
	pf, err := parquet.OpenBytes(b.Content, "parquet block", memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	err = pf.ReadBatches(context.Background(), nil, nil, func(rec arrow.Record) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			m := map[string]any{}
			for c, f := range rec.Schema().Fields() {
				if col := rec.Column(c); col.IsValid(i) {
					m[f.Name] = col.ValueStr(i)
				} else {
					m[f.Name] = nil
				}
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkVirtualKeyBaseFile checks a base file of a virtual-key table: footer key/values
// exactly parquet.avro.schema and writer.model.name=avro (no bloom filter, no min/max
// record key), commit time, seqno, key and partition null on every row and
// _hoodie_file_name the file's own name.
func checkVirtualKeyBaseFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.Open(f, fi.Size(), path, memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	keys := pf.MetadataKeys()
	sort.Strings(keys)
	if want := []string{parquet.KeyAvroSchema, "writer.model.name"}; !slices.Equal(keys, want) {
		t.Errorf("%s: footer keys %v, want %v", path, keys, want)
	}
	name := filepath.Base(path)
	err = pf.ReadBatches(context.Background(), nil, nil, func(rec arrow.Record) error {
		for c, meta := range schema.MetaFields[:5] {
			col := rec.Column(c).(*array.String)
			if rec.Schema().Field(c).Name != meta {
				t.Fatalf("%s: column %d is %s, want %s", path, c, rec.Schema().Field(c).Name, meta)
			}
			for i := 0; i < col.Len(); i++ {
				switch {
				case c < 4 && col.IsValid(i):
					t.Errorf("%s: row %d %s = %q, want null", path, i, meta, col.Value(i))
				case c == 4 && (!col.IsValid(i) || col.Value(i) != name):
					t.Errorf("%s: row %d %s = %q, want %q", path, i, meta, col.Value(i), name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
