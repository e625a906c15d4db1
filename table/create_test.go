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

	"github.com/hudi-go/hudi/format/props"
	"github.com/hudi-go/hudi/internal/testutil"
	"github.com/hudi-go/hudi/spec"
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
