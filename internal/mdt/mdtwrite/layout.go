package mdtwrite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// What differs between the metadata table of a version 6 table (Hudi 0.14) and of a
// version 8/9 table (Hudi 1.x, timeline layout 2), as far as hudi-go writes it. Read in
// apache/hudi master (HoodieBackedTableMetadataWriter, HoodieTableMetadataUtil) and compared
// with the metadata tables of the Spark fixtures:
//
//   - the metadata table has the data table's version and layout: its timeline under
//     .hoodie/metadata/.hoodie/timeline with completion times, Avro commit metadata, its
//     history under timeline/history (createTable, and the commit package's layout);
//   - each deltacommit writes its own log files, named by its instant from version 1 on
//     (appendLog), and a rollback deletes them instead of appending command blocks;
//   - partitions are initialized at 00000000000000000, 00000000000000001, … (the first
//     instant SOLO_COMMIT_TIMESTAMP plus n milliseconds the metadata table has not used,
//     generateUniqueInstantTime) instead of the latest data instant + "010", "011", …
//     (initInstant);
//   - its compaction, clean and the sync after a restore take new instant times
//     (serviceInstant) instead of the latest deltacommit + "001", "002", "003";
//   - the rollback of a deltacommit runs at the data rollback's own instant, not + "006";
//   - its readers take every completed deltacommit whose instant is not pending on the data
//     table as valid (mdt.Table's valid instants on layout 2).

// payloadMergeStrategyID is hoodie.record.merge.strategy.id of the metadata table on
// versions 8/9 (HoodieRecordMerger.PAYLOAD_BASED_MERGE_STRATEGY_UUID, as the fixtures have).
const payloadMergeStrategyID = "00000000-0000-0000-0000-000000000000"

// initInstant is the instant at which a metadata partition is initialized on a table whose
// latest completed instant is initTime ("00000000000000" without one): on layout 1 initTime
// + "010", "011", … (Java 0.14's PARTITION_INITIALIZATION_TIME_SUFFIX), on layout 2
// "00000000000000" + 000, 001, … milliseconds (Hudi 1.x's generateUniqueInstantTime, whatever
// initTime); the first that mdtTL (nil: an empty metadata table) does not hold.
func initInstant(layout timeline.Layout, initTime spec.InstantTime, mdtTL *timeline.Timeline) spec.InstantTime {
	for off := 0; ; off++ {
		var in spec.InstantTime
		if layout.CompletionTimes() {
			in = spec.InstantTime(fmt.Sprintf("%s%03d", soloCommitTimestamp, off))
		} else {
			in = spec.InstantTime(fmt.Sprintf("%s%03d", initTime, suffixInitFirst+off))
		}
		if mdtTL == nil || len(mdtTL.At(in)) == 0 {
			return in
		}
	}
}

// maintained are the metadata partitions hudi-go keeps current on every write and service
// (the files listing and the record index). A partition Java keeps and hudi-go does not
// would go stale silently under hudi-go's writes.
var maintained = []string{mdt.PartitionFiles, mdt.PartitionRecordIndex}

// dropUnmaintained removes, before an operation on a version 8/9 table changes anything,
// the metadata partitions Spark's Hudi 1.x keeps and hudi-go does not (column_stats,
// partition_stats, bloom_filters, secondary_index_*, expr_index_*), as Java drops a
// partition (HoodieTableMetadataUtil.deleteMetadataTablePartition): first out of
// hoodie.table.metadata.partitions (and .inflight), so that no reader uses it from then on,
// then its folder. It says so at WARN, naming the partitions. The index definitions in
// .hoodie/.index_defs stay: a Hudi 1.x writer with the index enabled builds the partition
// again from them (UNVERIFIED: not run here). A killed drop leaves a folder that no
// hoodie.properties lists; the next run deletes it.
//
// Version 6 tables are left as they are (hudi-go maintains files and record_index there
// too; Java 0.14's other partitions are another helper's work).
func (w *Writer) dropUnmaintained(ctx context.Context, t *table.Table) (*table.Table, error) {
	if !t.Timeline.Layout.CompletionTimes() {
		return t, nil
	}
	cfg, err := table.LoadConfig(ctx, w.st)
	if err != nil {
		return nil, err
	}
	inflight := list(cfg.Props, table.KeyMetadataPartitionsInflight)
	partitioned, err := w.partitionedRecordIndex(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var keep, drop []string
	for _, p := range cfg.MetadataPartitions() {
		if p == mdt.PartitionRecordIndex && partitioned {
			drop = append(drop, p) // Hudi 1.1's partitioned record index: not hudi-go's global one
		} else if slices.Contains(maintained, p) {
			keep = append(keep, p)
		} else {
			drop = append(drop, p)
		}
	}
	var keepInflight []string
	for _, p := range inflight {
		if slices.Contains(maintained, p) {
			keepInflight = append(keepInflight, p)
		} else if !slices.Contains(drop, p) {
			drop = append(drop, p)
		}
	}
	// Folders of partitions no list names (left by a killed drop, or by Java's failed
	// initialization of one) go too, but only those: a maintained partition being
	// built is named by the lists.
	entries, err := storage.ListNames(ctx, w.mst, "")
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		return nil, fmt.Errorf("metadata table: list it: %w", err)
	}
	var stray []string
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name, "/")
		if !e.IsDir || strings.HasPrefix(name, ".") || slices.Contains(maintained, name) || slices.Contains(drop, name) {
			continue
		}
		stray = append(stray, name)
	}
	if len(drop) == 0 && len(stray) == 0 {
		return t, nil
	}
	if len(drop) > 0 {
		w.o.Logger.Warn("dropping metadata-table partitions hudi-go does not keep current, as Java drops a partition; readers stop using them, and a Hudi 1.x writer with the index enabled builds them again",
			"table", cfg.Name(), "partitions", strings.Join(drop, ","))
		if err := t.UpdateProperties(ctx, func(p *props.Properties) {
			p.Set(table.KeyMetadataPartitions, strings.Join(keep, ","))
			p.Set(table.KeyMetadataPartitionsInflight, strings.Join(keepInflight, ","))
		}, w.o.Now()); err != nil {
			return nil, fmt.Errorf("metadata table: drop partitions %s: %w", strings.Join(drop, ","), err)
		}
	}
	for _, p := range append(drop, stray...) {
		if err := storage.DeleteTree(ctx, w.mst, p); err != nil {
			return nil, fmt.Errorf("metadata table: delete partition %s: %w", p, err)
		}
	}
	return t.Reopen(ctx)
}

func list(p *props.Properties, key string) []string {
	v, _ := p.Get(key)
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// extraMetadata is the extraMetadata of the metadata table's commits: empty on layout 1 (as
// the metadata table's commits of Hudi 0.14 have, UNVERIFIED), and on layout 2 the writer
// schema of its records under "schema", as every deltacommit and compaction commit of the
// Spark fixtures' metadata tables has it (Hudi 1.x's commit of the metadata write client
// records the table schema); ours is the schema hudi-go writes the records with.
func (w *Writer) extraMetadata(tl *timeline.Timeline) map[string]string {
	if !tl.Layout.CompletionTimes() {
		return map[string]string{}
	}
	return map[string]string{"schema": w.enc.JSON}
}

// bulkOperation is the operation type of a partition's initial bulk commit: BULK_INSERT
// up to table version 8 (the v8 fixture trips-mor-avro/v8_trips_8i3u1d, Hudi 1.0),
// BULK_INSERT_PREPPED on version 9 (every v9 fixture, Hudi 1.1).
func bulkOperation(v spec.TableVersion) string {
	if v >= spec.TableVersion9 {
		return "BULK_INSERT_PREPPED"
	}
	return "BULK_INSERT"
}

// partitionedRecordIndex reports whether the table's index definitions
// (hoodie.table.index.defs.path) mark its record index as partitioned (Hudi 1.1's
// "isPartitioned": file groups per data partition, keys unique within a partition), which
// hudi-go does not maintain: its record index is the global one.
func (w *Writer) partitionedRecordIndex(ctx context.Context, cfg *table.Config) (bool, error) {
	p, _ := cfg.Props.Get("hoodie.table.index.defs.path")
	if p == "" {
		return false, nil
	}
	b, err := w.st.ReadFile(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("index definitions: %w", err)
	}
	var defs struct {
		IndexDefinitions map[string]struct {
			IndexType    string            `json:"indexType"`
			IndexOptions map[string]string `json:"indexOptions"`
		} `json:"indexDefinitions"`
	}
	if err := json.Unmarshal(b, &defs); err != nil {
		return false, fmt.Errorf("index definitions %s: %w", p, err)
	}
	for _, d := range defs.IndexDefinitions {
		if d.IndexType == mdt.PartitionRecordIndex && strings.EqualFold(d.IndexOptions["isPartitioned"], "true") {
			return true, nil
		}
	}
	return false, nil
}
