package read

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema"
)

// A query engine that reads Parquet itself (the SQL engine's DuckDB) is faster on a base
// file than decoding it here and handing over Arrow batches. A slice read from its base
// file alone — no log files, or a read-optimized query — needs no merge, so its base file
// can go to such an engine as it is. TakeBaseFiles hands those files over after the
// scan's own planning pruned them (partitions, then record keys against each footer's key
// range and bloom filter); Run then reads only the slices that are left. Project narrows
// what Run decodes to the columns the engine asked for.

// TakeBaseFiles removes from the scan the slices read from their base file alone that
// accept takes, and returns them. Slices whose base file cannot hold a record key the
// filter pins are dropped from the scan altogether. The rows of a taken slice are its base
// file's rows as stored: the scan's filter is not applied to them (the caller applies its
// own), and an incremental scan takes none (its commit-time range is applied by Run). A
// table without meta fields, or whose partition columns are left out of its files, takes
// none either: their rows are rebuilt by Run. Nor does a table under schema evolution on
// read: its files are read by column id, which a reader going by name would get wrong.
func (s *Scan) TakeBaseFiles(ctx context.Context, accept func(fsview.FileSlice) bool) []fsview.FileSlice {
	if s.empty || s.opts.Incremental || s.cdc != nil || !s.t.Config.PopulateMetaFields() || s.t.Config.DropPartitionColumns() || s.fgOpts.Evolution != nil {
		return nil
	}
	var taken, rest []fsview.FileSlice
	for _, sl := range s.slices {
		if !s.keyPrunable(sl) {
			rest = append(rest, sl)
			continue
		}
		if s.skipByKey(ctx, sl) {
			continue
		}
		if accept(sl) {
			taken = append(taken, sl)
		} else {
			rest = append(rest, sl)
		}
	}
	s.slices = rest
	return taken
}

// FullSchema is the table schema the scan reads, meta fields first, whatever its
// projection.
func (s *Scan) FullSchema() *arrow.Schema { return s.full }

// Project returns a scan of the same slices that outputs only cols (names of the table
// schema, in the order given; nil keeps the scan's columns). The two scans share their
// plan and key pruning counters; either may run, at the same time too.
func (s *Scan) Project(cols []string) (*Scan, error) {
	if cols == nil {
		return s, nil
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		j := schema.FieldIndex(s.full, c)
		if j < 0 {
			return nil, fmt.Errorf("column %q is not in the table schema (columns: %s)", c, strings.Join(fieldNames(s.full), ", "))
		}
		fields[i] = s.full.Field(j)
	}
	p := *s
	p.schema = arrow.NewSchema(fields, nil)
	p.readCols = fieldNames(p.schema)
	if p.opts.Filter != nil {
		for _, c := range p.opts.Filter.Columns() {
			root := strings.SplitN(c, ".", 2)[0]
			p.readCols = appendUnique(p.readCols, s.full.Field(schema.FieldIndex(s.full, root)).Name)
		}
	}
	if p.opts.Incremental {
		p.readCols = appendUnique(p.readCols, commitTimeField)
	}
	p.fgOpts.Columns = p.readCols
	return &p, nil
}
