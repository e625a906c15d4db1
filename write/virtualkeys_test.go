package write_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/format/props"
	"github.com/hudi-go/hudi/write"
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
		if err := tb.Meta().UpdateProperties(ctx, f, time.Now()); err != nil {
			t.Fatal(err)
		}
		re, err := hudi.Open(ctx, tb.Meta().Storage.Root())
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
		{"cow", "RECORD_INDEX", false},
		{"cow", "HBASE", false},
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

// Clustering and incremental queries stay refused on virtual-key tables.
func TestVirtualKeyServiceRefusals(t *testing.T) {
	ctx := context.Background()
	tb := vkTable(t, "cow", nil, []string{"city"})
	if _, err := tb.Write(ctx, vkRows(3), hudi.WriteOptions{Operation: "insert"}); err != nil {
		t.Fatal(err)
	}
	tb, _ = hudi.Open(ctx, tb.Meta().Storage.Root())
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
