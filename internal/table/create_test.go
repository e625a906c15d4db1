package table

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/storage/local"
)

func propKeys(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := props.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	keys := p.Keys()
	sort.Strings(keys)
	return keys
}

// A table we create has the same hoodie.properties keys as the one Spark created with
// the same settings (cow/v6_simplekeygen_nonhivestyle), and a valid checksum.
func TestCreateMatchesSparkKeys(t *testing.T) {
	ctx := context.Background()
	spark := testutil.Table(t, "cow/v6_simplekeygen_nonhivestyle")
	dir := t.TempDir()
	tb, err := Create(ctx, local.New(dir), CreateOptions{
		Name: "v6_simplekeygen_nonhivestyle", Database: "default", Type: spec.CopyOnWrite,
		RecordKeyFields: []string{"id"}, PartitionFields: []string{"byteField"}, PrecombineField: "longField",
		KeyGeneratorClass: "org.apache.hudi.keygen.SimpleKeyGenerator", CreateSchema: `{"type":"record","name":"x","fields":[]}`,
		Now: time.Date(2024, 4, 18, 22, 27, 38, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := propKeys(t, filepath.Join(dir, PropertiesFile))
	want := propKeys(t, filepath.Join(spark, PropertiesFile))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("keys differ:\n got %v\nwant %v", got, want)
	}
	sparkCfg, _ := LoadConfig(ctx, local.New(spark))
	for _, k := range want {
		if k == KeyCreateSchema {
			continue
		}
		g, _ := tb.Config.Props.Get(k)
		w, _ := sparkCfg.Props.Get(k)
		if g != w {
			t.Errorf("%s = %q, Spark wrote %q", k, g, w)
		}
	}
	for _, d := range []string{".hoodie/archived", ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids", ".hoodie/.schema", ".hoodie/.temp"} {
		if st, err := os.Stat(filepath.Join(dir, d)); err != nil || !st.IsDir() {
			t.Errorf("missing %s", d)
		}
	}
	if _, err := Create(ctx, local.New(dir), CreateOptions{Name: "again", RecordKeyFields: []string{"id"}}); !errors.Is(err, ErrTableExists) {
		t.Errorf("create over an existing table: %v", err)
	}
}

func TestCreateMORRecordsPayload(t *testing.T) {
	spark := testutil.Table(t, "trips-mor-avro/v6_trips_8i1u")
	dir := t.TempDir()
	_, err := Create(context.Background(), local.New(dir), CreateOptions{Name: "v6_trips_8i1u", Database: "default", Type: spec.MergeOnRead,
		RecordKeyFields: []string{"uuid"}, PartitionFields: []string{"city"}, PrecombineField: "ts", HiveStyle: true,
		KeyGeneratorClass: "org.apache.hudi.keygen.SimpleKeyGenerator", CreateSchema: "{}"})
	if err != nil {
		t.Fatal(err)
	}
	got, want := propKeys(t, filepath.Join(dir, PropertiesFile)), propKeys(t, filepath.Join(spark, PropertiesFile))
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("keys differ:\n got %v\nwant %v", got, want)
	}
}

func TestDisableMetadataTable(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Table(t, "cow/v9_txns_simple_meta")
	tb, err := Open(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Config.MetadataPartitions()) == 0 {
		t.Fatal("fixture should have metadata partitions")
	}
	had, err := tb.DisableMetadataTable(ctx, time.Now())
	if err != nil || !had {
		t.Fatalf("disable = %v, %v", had, err)
	}
	re, err := Open(ctx, local.New(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(re.Config.MetadataPartitions()) != 0 {
		t.Errorf("metadata partitions still listed: %v", re.Config.MetadataPartitions())
	}
	if _, err := os.Stat(filepath.Join(dir, MetadataTableDir)); !os.IsNotExist(err) {
		t.Error(".hoodie/metadata still exists")
	}
	if _, err := os.Stat(filepath.Join(dir, backupPropertiesFile)); !os.IsNotExist(err) {
		t.Error("backup properties file left behind")
	}
	if had, err := re.DisableMetadataTable(ctx, time.Now()); had || err != nil {
		t.Errorf("second disable = %v, %v", had, err)
	}
}

// A version 8 or 9 table we create has the hoodie.properties Spark (Hudi 1.0, 1.1) wrote
// for the same settings: the same keys (hoodie.table.initial.version, the merge mode, v8's
// strategy id and payload class, v9's ordering fields and table format, timeline layout 2
// and its folders, the key generator type instead of its class) with the same values,
// checksum included, and the timeline and history folders.
func TestCreateVersionsMatchSpark(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		fixture string
		o       CreateOptions
	}{
		{"cow/v8_simplekeygen_nonhivestyle", CreateOptions{Version: spec.TableVersion8, Name: "v8_simplekeygen_nonhivestyle",
			RecordKeyFields: []string{"id"}, PartitionFields: []string{"byteField"}, PrecombineField: "longField"}},
		{"cow/v8_nonpartitioned", CreateOptions{Version: spec.TableVersion8, Name: "v8_nonpartitioned",
			RecordKeyFields: []string{"id"}, PrecombineField: "longField", HiveStyle: true, KeyGeneratorType: "NON_PARTITION"}},
		{"cow/v9_txns_simple_nometa", CreateOptions{Version: spec.TableVersion9, Name: "v9_txns_cow_simple_nometa",
			RecordKeyFields: []string{"txn_id"}, PartitionFields: []string{"region"}, PrecombineField: "txn_ts", HiveStyle: true}},
		{"mor-avro/v9_txns_nonpart_nometa", CreateOptions{Version: spec.TableVersion9, Name: "v9_txns_mor_nonpart_nometa", Type: spec.MergeOnRead,
			RecordKeyFields: []string{"txn_id"}, PrecombineField: "txn_ts", HiveStyle: true, KeyGeneratorType: "NON_PARTITION"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			spark := testutil.Table(t, tc.fixture)
			dir := t.TempDir()
			o := tc.o
			o.Database = "default"
			o.CreateSchema = `{"type":"record","name":"x","fields":[]}`
			if o.KeyGeneratorType == "" {
				o.KeyGeneratorType = "SIMPLE"
			}
			tb, err := Create(ctx, local.New(dir), o)
			if err != nil {
				t.Fatal(err)
			}
			got := propKeys(t, filepath.Join(dir, PropertiesFile))
			want := propKeys(t, filepath.Join(spark, PropertiesFile))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("keys differ:\n got %v\nwant %v", got, want)
			}
			sparkCfg, _ := LoadConfig(ctx, local.New(spark))
			for _, k := range want {
				if k == KeyCreateSchema {
					continue
				}
				g, _ := tb.Config.Props.Get(k)
				w, _ := sparkCfg.Props.Get(k)
				if g != w {
					t.Errorf("%s = %q, Spark wrote %q", k, g, w)
				}
			}
			for _, d := range []string{".hoodie/timeline", ".hoodie/timeline/history", ".hoodie/.temp"} {
				if st, err := os.Stat(filepath.Join(dir, d)); err != nil || !st.IsDir() {
					t.Errorf("missing %s", d)
				}
			}
			if tb.Timeline.Layout.Version() != 2 || tb.Version != o.Version {
				t.Errorf("opened as version %d, %s", tb.Version, tb.Timeline.Layout)
			}
		})
	}
}

// The merge mode a version 8/9 table records (Java's inferMergingConfigsForPreV9Table):
// event time with a precombine field, commit time without; a payload class must agree;
// CUSTOM and unknown payload classes are refused by name, and a version 6 table has none.
func TestCreateMergeMode(t *testing.T) {
	ctx := context.Background()
	const dflt = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
	const latest = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
	for _, tc := range []struct {
		name                          string
		o                             CreateOptions
		mode, strategy, payload, fail string
	}{
		{"v9 precombine", CreateOptions{Version: 9, PrecombineField: "ts"}, "EVENT_TIME_ORDERING", "", "", ""},
		{"v9 no precombine", CreateOptions{Version: 9}, "COMMIT_TIME_ORDERING", "", "", ""},
		{"v9 commit time asked", CreateOptions{Version: 9, PrecombineField: "ts", MergeMode: "commit_time_ordering"}, "COMMIT_TIME_ORDERING", "", "", ""},
		{"v8 precombine", CreateOptions{Version: 8, PrecombineField: "ts"}, "EVENT_TIME_ORDERING", "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5", dflt, ""},
		{"v8 no precombine", CreateOptions{Version: 8}, "COMMIT_TIME_ORDERING", "ce9acb64-bde0-424c-9b91-f6ebba25356d", latest, ""},
		{"v8 payload", CreateOptions{Version: 8, PrecombineField: "ts", PayloadClass: latest}, "COMMIT_TIME_ORDERING", "ce9acb64-bde0-424c-9b91-f6ebba25356d", latest, ""},
		{"custom", CreateOptions{Version: 9, MergeMode: "CUSTOM"}, "", "", "", "hoodie.record.merge.mode=CUSTOM"},
		{"custom payload", CreateOptions{Version: 9, PayloadClass: "com.example.MyPayload"}, "", "", "", "com.example.MyPayload means merge mode CUSTOM"},
		{"contradiction", CreateOptions{Version: 8, MergeMode: "EVENT_TIME_ORDERING", PayloadClass: latest}, "", "", "", "contradicts payload class"},
		{"v6", CreateOptions{MergeMode: "EVENT_TIME_ORDERING"}, "", "", "", "is a table version 8/9 setting"},
		{"v7", CreateOptions{Version: 7}, "", "", "", "table version 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Name, o.RecordKeyFields = "t", []string{"id"}
			tb, err := Create(ctx, local.New(t.TempDir()), o)
			if tc.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fail) {
					t.Fatalf("err = %v, want one containing %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]string{KeyMergeMode: tc.mode, KeyMergeStrategyID: tc.strategy, KeyPayloadClass: tc.payload} {
				if got, _ := tb.Config.Props.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}
