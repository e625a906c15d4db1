package read

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/expr"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/table"
)

// DataSkipping reports what data skipping did in a plan: whether the column_stats index was
// used (and if not, why), and how many of the file slices left after partition pruning it
// pruned.
type DataSkipping struct {
	Used           bool
	Reason         string // why it was not used
	Slices, Pruned int
}

// skipByColumnStats drops the file slices whose column statistics exclude the filter, as
// Java's HoodieFileIndex.lookupCandidateFilesInMetadataTable does with
// hoodie.enable.data.skipping=true: the candidate files are those whose stats may match
// (ColumnStatsIndexSupport + DataSkippingUtils) plus every file the index does not hold; a
// slice is kept when any of its files — its base file or one of its log files — is a
// candidate. So a merge-on-read slice is pruned only when the index covers its log files
// too. A column without stats in a file, or whose stats this evaluator cannot compare, never
// prunes (Java's translation leaves such predicates true).
//
// The index is used only when the metadata table is current (mdt.Table.CheckCurrent): a
// log file appended to by an instant the metadata table lacks would have stats that miss
// rows. With schema evolution on read (query schema set), stats are keyed by the column
// names the files were written with, which a rename or a drop-and-add makes ambiguous:
// hudi-go does not skip then (hudi-go's choice).
func (s *Scan) skipByColumnStats(ctx context.Context, t *table.Table, full *arrow.Schema, evolution bool) error {
	ds := &s.dataSkipping
	ds.Slices = len(s.slices)
	not := func(reason string) error {
		ds.Reason = reason
		s.opts.Logger.Debug("data skipping not used", "table", t.Config.Name(), "reason", reason)
		return nil
	}
	switch {
	case len(s.slices) == 0:
		return not("no file slice to prune")
	case s.opts.NoMetadata:
		return not("the read does not use the metadata table (" + "hoodie.metadata.enable=false)")
	case s.opts.Incremental:
		return not("incremental query")
	case evolution:
		return not("schema evolution on read: column statistics are keyed by written column names")
	}
	m, err := mdt.OpenWith(ctx, t.Storage, t.Timeline)
	if errors.Is(err, mdt.ErrNoMetadataTable) {
		return not("the table has no metadata table")
	}
	if err != nil {
		return fmt.Errorf("data skipping: %w", err)
	}
	if !slices.Contains(m.Available, mdt.PartitionColumnStats) {
		return not("hoodie.table.metadata.partitions does not list column_stats")
	}
	if err := m.CheckCurrent(); err != nil {
		return not(err.Error())
	}
	var parts []string
	for _, sl := range s.slices {
		if !slices.Contains(parts, sl.Partition) {
			parts = append(parts, sl.Partition)
		}
	}
	// Only the filter's columns are read (Java's per-column prefix lookup).
	var columns []string
	for _, col := range s.opts.Filter.Columns() {
		if i := schema.FieldIndex(full, col); i >= 0 && !strings.Contains(col, ".") && !slices.Contains(columns, full.Field(i).Name) {
			columns = append(columns, full.Field(i).Name)
		}
	}
	stats, err := m.ReadColumnStatsOf(ctx, parts, columns)
	if err != nil {
		return fmt.Errorf("data skipping: %w", err)
	}
	ds.Used = true
	kept := s.slices[:0]
	for _, sl := range s.slices {
		if sliceMayMatch(s.opts.Filter, full, sl, stats[sl.Partition]) {
			kept = append(kept, sl)
		} else {
			ds.Pruned++
		}
	}
	s.slices = kept
	s.opts.Logger.Info("data skipping with column_stats", "table", t.Config.Name(), "slices", ds.Slices, "pruned", ds.Pruned)
	return nil
}

// sliceMayMatch reports whether any file of the slice is a candidate: not in the index,
// or with stats that may match the filter.
func sliceMayMatch(filter expr.Expr, full *arrow.Schema, sl fsview.FileSlice, files map[string]map[string]*mdt.ColumnStats) bool {
	var names []string
	if sl.Base != nil {
		names = append(names, sl.Base.Name.String())
	}
	for _, l := range sl.Logs {
		names = append(names, l.Name.String())
	}
	for _, name := range names {
		cols, indexed := files[name]
		if !indexed || fileMayMatch(filter, full, cols) {
			return true
		}
	}
	return false
}

func fileMayMatch(filter expr.Expr, full *arrow.Schema, cols map[string]*mdt.ColumnStats) bool {
	return expr.MayMatch(filter, func(col string) (expr.ColumnStats, bool) {
		if strings.Contains(col, ".") {
			return expr.ColumnStats{}, false
		}
		i := schema.FieldIndex(full, col)
		if i < 0 {
			return expr.ColumnStats{}, false
		}
		f := full.Field(i)
		cs, ok := cols[f.Name]
		if !ok {
			return expr.ColumnStats{}, false
		}
		out := expr.ColumnStats{NullCount: cs.NullCount, ValueCount: cs.ValueCount}
		if lo, hi, ok := cs.Bounds(); ok {
			if !boundFits(lo, f.Type) || !boundFits(hi, f.Type) {
				return expr.ColumnStats{}, false
			}
			out.Min, out.Max, out.HasMinMax = lo, hi, true
		} else if cs.Min != nil || cs.Max != nil {
			// Bounds the evaluator cannot read: only the counts would be left, and they
			// would claim the column all null.
			return expr.ColumnStats{}, false
		}
		return out, true
	})
}

// boundFits reports whether a bound (mdt.ColumnStats.Bounds) is of the kind the table
// column's type compares as: a stat written under another type (a column whose type
// changed) never prunes.
func boundFits(v any, t arrow.DataType) bool {
	switch v.(type) {
	case int64:
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
			return true
		}
	case float64:
		return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64
	case string:
		return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
	case []byte:
		return t.ID() == arrow.BINARY || t.ID() == arrow.LARGE_BINARY || t.ID() == arrow.FIXED_SIZE_BINARY
	case bool:
		return t.ID() == arrow.BOOL
	case expr.Date:
		return t.ID() == arrow.DATE32
	case expr.TimestampMicros:
		return t.ID() == arrow.TIMESTAMP
	case *big.Rat:
		return t.ID() == arrow.DECIMAL128 || t.ID() == arrow.DECIMAL256
	}
	return false
}

// DataSkipping returns what data skipping did in the plan (zero when the read did not ask
// for it).
func (s *Scan) DataSkipping() DataSkipping { return s.dataSkipping }
