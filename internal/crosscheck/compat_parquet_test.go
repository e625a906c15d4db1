package crosscheck_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/format/bloom"
	"github.com/hudi-go/hudi/internal/format/parquet"
)

// rowWriterDecimal is how Spark's row writer stores a DECIMAL of precision <= 18.
var rowWriterDecimal = regexp.MustCompile(`INT(32|64) (Decimal\(precision=(\d+), scale=\d+\) \[DECIMAL\])`)

func compareParquetSchema(t *testing.T, r *replica, c compatCase) {
	for _, p := range correspondingFiles(t, r) {
		if !c.rowWriter {
			// Spark's Avro write path (parquet-avro, old list structure): the footer schema
			// elements as stored must be the same, 2-level lists and MAP_KEY_VALUE included.
			ours, spark := footerSchema(t, p[0]), footerSchema(t, p[1])
			if ours != spark {
				t.Errorf("Parquet footer schema of %s differs from Spark's %s:\n%s", filepath.Base(p[0]), filepath.Base(p[1]),
					lineDiff(strings.Split(ours, "\n"), strings.Split(spark, "\n")))
			}
			continue
		}
		ours, spark := schemaTree(t, p[0]), schemaTree(t, p[1])
		if c.rowWriter {
			// Accepted: parquet-avro's FIXED_LEN_BYTE_ARRAY(n) for the row writer's INT32/64.
			for i, l := range spark {
				if m := rowWriterDecimal.FindStringSubmatch(l); m != nil {
					prec, _ := strconv.Atoi(m[3])
					spark[i] = strings.Replace(l, m[0], fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d) %s", decimalBytes(prec), m[2]), 1)
				}
			}
		}
		if !reflect.DeepEqual(ours, spark) {
			t.Errorf("Parquet schema of %s differs from Spark's %s:\n%s", filepath.Base(p[0]), filepath.Base(p[1]), lineDiff(ours, spark))
		}
	}
}

// footerSchema renders the schema elements of a Parquet file's footer as stored.
func footerSchema(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	els, err := parquet.ReadSchemaElements(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return parquet.FormatSchema(els)
}

// lineDiff shows two line lists side by side where they differ.
func lineDiff(ours, spark []string) string {
	var b strings.Builder
	n := max(len(ours), len(spark))
	for i := 0; i < n; i++ {
		var o, s string
		if i < len(ours) {
			o = ours[i]
		}
		if i < len(spark) {
			s = spark[i]
		}
		mark := "  "
		if o != s {
			mark = "! "
		}
		b.WriteString(mark + "ours:  " + o + "\n" + mark + "spark: " + s + "\n")
	}
	return b.String()
}

// Footer keys Spark's Hudi 0.14 base files carry.
const (
	kAvroSchema = "parquet.avro.schema"
	kModel      = "writer.model.name"
	kBloom      = "org.apache.hudi.bloomfilter"
	kBloomType  = "hoodie_bloom_filter_type_code"
	kMinKey     = "hoodie_min_record_key"
	kMaxKey     = "hoodie_max_record_key"
)

// decimalBytes is the FIXED size parquet-avro (and Hudi's Avro schema) gives a precision.
func decimalBytes(prec int) int {
	n := 1
	for {
		// largest value of n bytes, two's complement: 2^(8n-1)-1 must hold 10^prec-1
		if float64(8*n-1)*0.30102999566398120 >= float64(prec) {
			return n
		}
		n++
	}
}

func compareFooters(t *testing.T, r *replica, c compatCase) {
	for _, p := range correspondingFiles(t, r) {
		om, okeys, ocb := footer(t, p[0])
		sm, skeys, scb := footer(t, p[1])
		name := filepath.Base(p[0])
		t.Logf("%s: created_by ours %q, Spark %q; keys ours %v, Spark %v", name, ocb, scb, okeys, skeys)
		if c.rowWriter {
			// Accepted: Spark's row writer records its own schema instead of the Avro one.
			want := []string{kMaxKey, kMinKey, kBloomType, kBloom, kAvroSchema, kModel}
			sort.Strings(want)
			if !reflect.DeepEqual(sortedKeys(om), want) {
				t.Errorf("%s footer keys %v, want %v", name, sortedKeys(om), want)
			}
			for _, k := range []string{kMaxKey, kMinKey, kBloomType, kBloom, "org.apache.spark.version", "org.apache.spark.sql.parquet.row.metadata"} {
				if _, ok := sm[k]; !ok {
					t.Errorf("Spark footer of %s has no %s (test assumption)", filepath.Base(p[1]), k)
				}
			}
			if om[kModel] != "avro" {
				t.Errorf("%s writer.model.name %q, want avro", name, om[kModel])
			}
		} else {
			if !reflect.DeepEqual(sortedKeys(om), sortedKeys(sm)) {
				t.Errorf("%s footer keys %v, Spark %v", name, sortedKeys(om), sortedKeys(sm))
			}
			if om[kAvroSchema] != sm[kAvroSchema] {
				t.Errorf("%s parquet.avro.schema differs:\n ours  %s\n spark %s", name, om[kAvroSchema], sm[kAvroSchema])
			}
			if om[kModel] != "avro" || sm[kModel] != "avro" {
				t.Errorf("%s writer.model.name ours %q, Spark %q, want avro", name, om[kModel], sm[kModel])
			}
		}
		if om[kBloomType] != "DYNAMIC_V0" || sm[kBloomType] != om[kBloomType] {
			t.Errorf("%s bloom type code ours %q, Spark %q", name, om[kBloomType], sm[kBloomType])
		}
		for _, k := range []string{kMinKey, kMaxKey} {
			if om[k] != sm[k] {
				t.Errorf("%s %s = %q, Spark %q", name, k, om[k], sm[k])
			}
		}
		// Requirement 2, end to end: the same keys give the same filter bytes.
		if om[kBloom] != sm[kBloom] {
			t.Errorf("%s bloom filter differs from Spark's %s (same keys %s..%s)", name, filepath.Base(p[1]), sm[kMinKey], sm[kMaxKey])
		}
		for _, m := range []map[string]string{om, sm} {
			f, err := bloom.Deserialize(m[kBloom], m[kBloomType])
			if err != nil {
				t.Errorf("%s: bloom: %v", name, err)
				continue
			}
			for _, k := range []string{m[kMinKey], m[kMaxKey]} {
				if !f.MightContain(k) {
					t.Errorf("%s: bloom filter does not contain %q", name, k)
				}
			}
		}
	}
}

// partitionDirs maps each partition (relative dir, "." for the root) to its
// .hoodie_partition_metadata properties.
func partitionDirs(t *testing.T, table string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	err := filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".hoodie" {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == ".hoodie_partition_metadata" {
			rel, _ := filepath.Rel(table, filepath.Dir(p))
			out[filepath.ToSlash(rel)] = readProps(t, p).Map()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func comparePartitionMetadata(t *testing.T, r *replica) {
	ours, spark := partitionDirs(t, r.ours), partitionDirs(t, r.fx)
	if !reflect.DeepEqual(sortedKeys(ours), sortedKeys(spark)) {
		t.Errorf("partitions with metadata: ours %v, Spark %v", sortedKeys(ours), sortedKeys(spark))
	}
	pos := func(list []string, s string) int {
		for i, x := range list {
			if x == s {
				return i
			}
		}
		return -1
	}
	for p, sm := range spark {
		om, ok := ours[p]
		if !ok {
			continue
		}
		if !reflect.DeepEqual(sortedKeys(om), sortedKeys(sm)) {
			t.Errorf("%s: keys %v, Spark %v", p, sortedKeys(om), sortedKeys(sm))
		}
		if om["partitionDepth"] != sm["partitionDepth"] {
			t.Errorf("%s: partitionDepth %s, Spark %s", p, om["partitionDepth"], sm["partitionDepth"])
		}
		// commitTime is the instant that created the partition: the same commit in both.
		if a, b := pos(r.ourInst, om["commitTime"]), pos(r.fxInst, sm["commitTime"]); a != b || a < 0 {
			t.Errorf("%s: commitTime %s (commit #%d), Spark %s (commit #%d)", p, om["commitTime"], a, sm["commitTime"], b)
		}
	}
}
