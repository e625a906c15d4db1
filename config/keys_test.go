package config

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/testutil"
)

// Every default must be valid for its own kind and already in the form Set
// stores, otherwise a getter would silently fall back to a zero value.
func TestEveryDefaultParsesAsItsKind(t *testing.T) {
	keys := Keys()
	if len(keys) < 200 {
		t.Fatalf("only %d keys registered", len(keys))
	}
	for _, k := range keys {
		t.Run(k.Name, func(t *testing.T) {
			if k.Kind == Enum && len(k.Enum) == 0 {
				t.Fatalf("%s is an Enum without values", k.Name)
			}
			if k.Kind != Enum && len(k.Enum) != 0 {
				t.Fatalf("%s has Enum values but kind %v", k.Name, k.Kind)
			}
			if k.Doc == "" {
				t.Errorf("%s has no Doc", k.Name)
			}
			if !k.HasDefault {
				if k.Default != "" {
					t.Errorf("%s has Default %q but HasDefault=false", k.Name, k.Default)
				}
				return
			}
			got, err := normalize(k, k.Default)
			if err != nil {
				t.Fatalf("default of %s does not parse: %v", k.Name, err)
			}
			if got != k.Default {
				t.Errorf("default of %s is %q, normalized %q: write it in normalized form", k.Name, k.Default, got)
			}
		})
	}
}

func TestRegistryIsSortedAndUnique(t *testing.T) {
	keys := Keys()
	if !sort.SliceIsSorted(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name }) {
		t.Error("Keys() is not sorted by name")
	}
	seen := map[string]string{}
	for _, k := range keys {
		for _, n := range append([]string{k.Name}, k.Aliases...) {
			if prev, dup := seen[n]; dup {
				t.Errorf("%s is used by %s and %s", n, prev, k.Name)
			}
			seen[n] = k.Name
		}
	}
}

// Every exported Key variable in keys.go must be in registered(); a key missing
// there would be treated as unknown by Set.
func TestEveryKeyVariableIsRegistered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "keys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var vars []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if n.IsExported() {
					vars = append(vars, n.Name)
				}
			}
		}
	}
	if got := len(registered()); got != len(vars) {
		t.Errorf("keys.go declares %d exported keys but registered() lists %d", len(vars), got)
	}
}

func TestKeysReturnsCopies(t *testing.T) {
	k, _ := Lookup(IndexType.Name)
	k.Enum[0] = "MUTATED"
	k.Aliases = append(k.Aliases, "x")
	again, _ := Lookup(IndexType.Name)
	if again.Enum[0] == "MUTATED" {
		t.Error("Lookup exposes the registry's Enum slice")
	}
}

func TestKeysIn(t *testing.T) {
	table := KeysIn(Table)
	names := map[string]bool{}
	for _, k := range table {
		if k.Scope != Table {
			t.Errorf("%s in KeysIn(Table) has scope %v", k.Name, k.Scope)
		}
		names[k.Name] = true
	}
	for _, want := range []string{"hoodie.table.name", "hoodie.table.type", "hoodie.table.version",
		"hoodie.datasource.write.hive_style_partitioning", "hoodie.datasource.write.partitionpath.urlencode",
		"hoodie.datasource.write.drop.partition.columns", "hoodie.compaction.payload.class",
		"hoodie.table.base.file.format", "hoodie.timeline.layout.version", "hoodie.archivelog.folder"} {
		if !names[want] {
			t.Errorf("%s is not a Table key", want)
		}
	}
}

// Pinned 0.14.1 defaults, several of which differ from 0.8.0: a regression to
// the older values would change the tables we write.
func TestPinnedDefaults(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		k    Key
		want string
	}{
		{IndexType, "SIMPLE"},
		{ParquetCompressionCodec, "gzip"},
		{BloomFilterType, "DYNAMIC_V0"},
		{PayloadClass, "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"},
		{CompactionPayloadClass, "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"},
		{CleanerCommitsRetained, "10"},
		{KeepMinCommits, "20"},
		{KeepMaxCommits, "30"},
		{ParquetMaxFileSize, "125829120"},
		{ParquetSmallFileLimit, "104857600"},
		{ParquetBlockSize, "125829120"},
		{ParquetPageSize, "1048576"},
		{ParquetCompressionRatio, "0.1"},
		{LogFileMaxSize, "1073741824"},
		{LogFileDataBlockMaxSize, "268435456"},
		{LogFileToParquetCompressionRatio, "0.35"},
		{CopyOnWriteInsertSplitSize, "500000"},
		{CopyOnWriteRecordSizeEstimate, "1024"},
		{BloomNumEntries, "60000"},
		{BloomFPP, "0.000000001"},
		{BloomDynamicMaxEntries, "100000"},
		{BucketIndexNumBuckets, "256"},
		{CombineBeforeInsert, "false"},
		{CombineBeforeUpsert, "true"},
		{CombineBeforeDelete, "true"},
		{PrecombineField, "ts"},
		{KeyGeneratorClass, "org.apache.hudi.keygen.SimpleKeyGenerator"},
		{KeyGeneratorType, "SIMPLE"},
		{HiveStylePartitioning, "false"},
		{URLEncodePartitioning, "false"},
		{DropPartitionColumns, "false"},
		{CleanerPolicy, "KEEP_LATEST_COMMITS"},
		{FailedWritesCleanerPolicy, "EAGER"},
		{BulkInsertSortMode, "NONE"},
		{RowWriterEnable, "true"},
		{UpsertParallelism, "0"},
		{InlineCompactNumDeltaCommits, "5"},
		{TargetIOPerCompactionInMB, "512000"},
		{MetadataEnable, "true"},
		{MetadataCompactDeltaCommits, "10"},
		{RollbackUsingMarkers, "true"},
		{BloomIndexUpdatePartitionPath, "true"},
		{LockAcquireNumRetries, "15"},
		{ClusteringPlanSmallFileLimit, "314572800"},
		{MarkersType, "TIMELINE_SERVER_BASED"},
		{WriteConcurrencyMode, "SINGLE_WRITER"},
		{TimelineLayoutVersion, "1"},
		{TableVersion, "6"},
		{TableType, "COPY_ON_WRITE"},
		{QueryType, "snapshot"},
		{RecordMergerStrategy, "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"},
	} {
		if got := c.String(tc.k); got != tc.want {
			t.Errorf("%s default = %q, want %q", tc.k.Name, got, tc.want)
		}
	}
	for _, k := range []Key{RecordKeyField, PartitionPathField, BucketIndexHashField, TableName, TimestampType} {
		if k.HasDefault {
			t.Errorf("%s has default %q; 0.14.1 gives none", k.Name, k.Default)
		}
	}
	if got := c.Long(ParquetMaxFileSize); got != 120<<20 {
		t.Errorf("Long(ParquetMaxFileSize) = %d", got)
	}
	if got := c.Double(BloomFPP); got != 1e-9 {
		t.Errorf("Double(BloomFPP) = %v", got)
	}
	if got := c.Int(KeepMaxCommits); got != 30 {
		t.Errorf("Int(KeepMaxCommits) = %d", got)
	}
	if !c.Bool(CombineBeforeUpsert) || c.Bool(CombineBeforeInsert) {
		t.Error("combine defaults wrong")
	}
	if got := c.List(RecordMergerImpls); len(got) != 1 || got[0] != "org.apache.hudi.common.model.HoodieAvroRecordMerger" {
		t.Errorf("List(RecordMergerImpls) = %q", got)
	}
	if got := c.List(RecordKeyField); got != nil {
		t.Errorf("List(RecordKeyField) = %q, want nil", got)
	}
}

// TestDefaultsDoc cross-checks the registry against the tables of
// docs/defaults-0.14.md: every plain key row must be registered, and where the
// row's default is a plain value, it must be ours.
func TestDefaultsDoc(t *testing.T) {
	path := filepath.Join(testutil.RepoRoot(t), "..", "shared", "docs", "defaults-0.14.md")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("defaults doc not available: %v", err)
	}
	defer f.Close()
	plainKey := regexp.MustCompile(`^(hoodie\.[A-Za-z0-9_.]+|as\.of\.instant)$`)
	plainValue := regexp.MustCompile(`^[A-Za-z0-9_.\-]*$`)
	rows := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 4 {
			continue
		}
		name, def := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		if !plainKey.MatchString(name) {
			continue
		}
		rows++
		k, ok := Lookup(name)
		if !ok {
			t.Errorf("%s (defaults-0.14.md) is not registered", name)
			continue
		}
		def = strings.Trim(def, `"`)
		if strings.HasPrefix(def, "(N/A)") {
			if k.HasDefault && name != "hoodie.index.type" {
				t.Errorf("%s: doc gives no default, registry has %q", name, k.Default)
			}
			continue
		}
		if !plainValue.MatchString(def) {
			continue // prose, "not in 0.14.1 docs", or several values in one cell
		}
		if !k.HasDefault {
			t.Errorf("%s: doc default %q, registry has none", name, def)
			continue
		}
		if k.Kind == Double {
			a, _ := strconv.ParseFloat(def, 64)
			b, _ := strconv.ParseFloat(k.Default, 64)
			if math.Abs(a-b) > 1e-15 {
				t.Errorf("%s: doc default %s, registry %s", name, def, k.Default)
			}
			continue
		}
		if k.Default != def {
			t.Errorf("%s: doc default %q, registry %q", name, def, k.Default)
		}
	}
	if rows < 150 {
		t.Errorf("parsed only %d key rows from %s", rows, path)
	}
	// Rows that name several keys at once.
	for _, n := range []string{
		"hoodie.bulkinsert.shuffle.parallelism", "hoodie.insert.shuffle.parallelism",
		"hoodie.upsert.shuffle.parallelism", "hoodie.delete.shuffle.parallelism",
		"hoodie.keygen.timebased.input.timezone", "hoodie.keygen.timebased.output.timezone",
		"hoodie.keygen.timebased.input.dateformat.list.delimiter.regex",
		"hoodie.keygen.timebased.timestamp.scalar.time.unit",
		"hoodie.bucket.index.min.num.buckets", "hoodie.bucket.index.max.num.buckets",
		"hoodie.bucket.index.split.threshold", "hoodie.bucket.index.merge.threshold",
		"hoodie.compaction.lazy.block.read", "hoodie.compaction.reverse.log.read",
		"hoodie.compaction.logfile.num.threshold", "hoodie.compaction.logfile.size.threshold",
		"hoodie.log.compaction.enable", "hoodie.log.compaction.inline",
		"hoodie.archive.merge.enable", "hoodie.archive.merge.files.batch.size",
		"hoodie.archive.merge.small.file.limit.bytes",
		"hoodie.clustering.plan.strategy.daybased.lookback.partitions",
		"hoodie.clustering.plan.strategy.daybased.skipfromlatest.partitions",
		"hoodie.metadata.index.bloom.filter.enable", "hoodie.metadata.index.column.stats.enable",
		"hoodie.metadata.record.index.enable", "hoodie.metadata.record.index.min.filegroup.count",
		"hoodie.metadata.record.index.max.filegroup.count",
		"hoodie.markers.timeline_server_based.batch.interval_ms",
		"hoodie.markers.timeline_server_based.batch.num_threads",
		"hoodie.write.lock.filesystem.path", "hoodie.write.lock.filesystem.expire",
		"hoodie.datasource.read.incr.path.glob", "hoodie.datasource.read.incr.filters",
		"hoodie.sql.insert.mode", "hoodie.sql.bulk.insert.enable",
	} {
		if _, ok := Lookup(n); !ok {
			t.Errorf("%s is not registered", n)
		}
	}
}
