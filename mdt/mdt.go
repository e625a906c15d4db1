// Package mdt reads Hudi's metadata table (MDT): the merge-on-read table under
// .hoodie/metadata whose "partitions" index the data table — files (the file listing),
// record_index (record key → file group), column_stats, bloom_filters, … Its base files are
// HFiles and its log files carry HFILE_DATA_BLOCKs; each record is an Avro
// HoodieMetadataRecord keyed by the HFile key.
//
// A partition is read as Java's HoodieBackedTableMetadata reads it: the latest file slice
// of each of its file groups as of the metadata table's own timeline; the log blocks of a
// slice merged in order among themselves (a rollback command block drops the earlier blocks
// of its target instant; a delete block deletes keys), then merged over the base file's
// records with HoodieMetadataPayload's rules. Only log blocks written by an instant that is
// valid on the data table are read (HoodieTableMetadataUtil.getValidInstantTimestamps): the
// metadata table is written before the data instant completes, so a failed data write can
// leave a completed metadata deltacommit behind.
//
// The package only reads. hudi-go still disables and deletes the metadata table before its
// first write to a table that has one (table.PrepareChange).
package mdt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi/format/props"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/timeline"
)

// Dir is the metadata table's folder, relative to the data table's root.
const Dir = ".hoodie/metadata"

// Partition names of the metadata table (Java's MetadataPartitionType paths).
const (
	PartitionFiles        = "files"
	PartitionColumnStats  = "column_stats"
	PartitionBloomFilters = "bloom_filters"
	PartitionRecordIndex  = "record_index"
)

// Keys of hoodie.properties this package reads.
const (
	keyTableVersion       = "hoodie.table.version"
	keyTimelinePath       = "hoodie.timeline.path"
	keyMetadataPartitions = "hoodie.table.metadata.partitions"
)

// ErrNoMetadataTable is returned by Open for a table without a metadata table.
var ErrNoMetadataTable = errors.New("table has no metadata table")

// Table is a data table's metadata table, opened for reading.
type Table struct {
	st  storage.Storage // the data table
	mst storage.Storage // rooted at .hoodie/metadata
	// DataTimeline and Timeline are the active timelines of the data table and of the
	// metadata table.
	DataTimeline *timeline.Timeline
	Timeline     *timeline.Timeline
	// Available lists the partitions hoodie.table.metadata.partitions names as complete:
	// Java reads a partition only if it is listed there.
	Available []string
	schemas   schemaCache
}

// Open opens the metadata table of the table rooted at st.
func Open(ctx context.Context, st storage.Storage) (*Table, error) {
	dataProps, err := readProps(ctx, st)
	if err != nil {
		return nil, err
	}
	mst := subStorage{st: st, dir: Dir}
	mdtProps, err := readProps(ctx, mst)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, ErrNoMetadataTable
	}
	if err != nil {
		return nil, fmt.Errorf("metadata table: %w", err)
	}
	t := &Table{st: st, mst: mst}
	if t.DataTimeline, err = loadTimeline(ctx, st, dataProps); err != nil {
		return nil, err
	}
	if t.Timeline, err = loadTimeline(ctx, mst, mdtProps); err != nil {
		return nil, fmt.Errorf("metadata table: %w", err)
	}
	if v, ok := dataProps.Get(keyMetadataPartitions); ok {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				t.Available = append(t.Available, p)
			}
		}
	}
	return t, nil
}

func readProps(ctx context.Context, st storage.Storage) (*props.Properties, error) {
	b, err := st.ReadFile(ctx, storage.Join(timeline.MetaDir, "hoodie.properties"))
	if err != nil {
		return nil, err
	}
	p, err := props.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parse %s/hoodie.properties: %w", timeline.MetaDir, err)
	}
	return p, nil
}

func loadTimeline(ctx context.Context, st storage.Storage, p *props.Properties) (*timeline.Timeline, error) {
	s, _ := p.Get(keyTableVersion)
	v, err := strconv.Atoi(s)
	if err != nil || !spec.TableVersion(v).Supported() {
		return nil, fmt.Errorf("unsupported table version %q in %s", s, storage.Join(st.Root(), timeline.MetaDir, "hoodie.properties"))
	}
	tlPath, _ := p.Get(keyTimelinePath)
	return timeline.Load(ctx, st, spec.TableVersion(v), tlPath)
}

// IsAvailable reports whether partition is listed as complete in the data table's
// hoodie.table.metadata.partitions.
func (t *Table) IsAvailable(partition string) bool {
	for _, p := range t.Available {
		if p == partition {
			return true
		}
	}
	return false
}

// committedInMDT reports whether the metadata table committed instant ts: a completed
// instant of its timeline, or older than its active timeline (archived).
func (t *Table) committedInMDT(ts spec.InstantTime) bool {
	for _, in := range t.Timeline.At(ts) {
		if in.IsCompleted() {
			return true
		}
	}
	return t.Timeline.IsBeforeStart(ts)
}

// validOnData reports whether a metadata-table log block written by instant ts is to be
// read, following HoodieTableMetadataUtil.getValidInstantTimestamps: the instant completed
// on the data table (any action), or is older than the data table's active timeline, or
// is the metadata table's own — partition initialization, indexing, compaction, log
// compaction, rollback — which has no instant of that time on the data table. An instant
// the data table has but did not complete (an inflight or failed write) is not valid: the
// metadata table is written before the data instant completes.
//
// Java lists the completed data instants, the metadata table's indexing and log-compaction
// instants, the instants that completed rollbacks and restores rolled back, and the
// initialization instant; "no data instant of that time" is this package's reading of the
// last three (a rolled-back instant's files are gone from the data timeline).
func (t *Table) validOnData(ts spec.InstantTime) bool {
	at := t.DataTimeline.At(ts)
	for _, in := range at {
		if in.IsCompleted() {
			return true
		}
	}
	if len(at) == 0 {
		return true
	}
	return t.DataTimeline.IsBeforeStart(ts)
}

// partitionFromMDT maps the metadata table's name of a data partition to the relative
// path: Java names the non-partitioned table's single partition "."
// (HoodieTableMetadata.NON_PARTITIONED_NAME).
func partitionFromMDT(p string) string {
	if p == "." {
		return ""
	}
	return p
}
