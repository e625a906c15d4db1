package clustering

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
)

// groupEnv is what rewriting every group of one clustering shares.
type groupEnv struct {
	t            *table.Table
	txn          *commit.Txn
	full         *arrow.Schema // meta fields + data columns
	avroWithMeta string
	fg           filegroup.Options
	sortIdx      []int // column indexes of the sort columns in full
	preserve     bool
	o            Options
	task         int // next write-token task number: unique across the clustering
}

func execute(ctx context.Context, t *table.Table, in timeline.Instant, o Options, res *Result) error {
	st := t.Storage
	m, err := readPlan(ctx, t, in)
	if err != nil {
		return err
	}
	p := m.ClusteringPlan
	txn, err := o.timeline(st).BeginClustering(ctx, t.Timeline, in)
	if err != nil {
		return err
	}
	defer txn.Close()

	svc, err := write.ServiceSchemaFor(ctx, t, in.Time)
	if err != nil {
		return err
	}
	avroSchema, data := svc.AvroSchema, svc.Data
	full := schema.WithMetaFields(data)
	avroWithMeta, err := schema.WithMetaFieldsAvro(avroSchema)
	if err != nil {
		return err
	}
	rules, err := t.Config.MergeRules()
	if err != nil {
		return err
	}
	ordering := ""
	if of := t.Config.OrderingFields(); len(of) > 0 && schema.FieldIndex(full, of[0]) >= 0 {
		ordering = full.Field(schema.FieldIndex(full, of[0])).Name
	}
	env := &groupEnv{t: t, txn: txn, full: full, avroWithMeta: avroWithMeta, o: o, preserve: p.PreserveHoodieMetadata,
		fg: filegroup.Options{
			Schema:              full,
			MetaFieldsPopulated: true,
			OrderingField:       ordering,
			Rules:               rules,
			Committed:           fsview.NewVisibility(t.Timeline, "").Committed,
			Mem:                 o.Write.Mem,
			Logger:              o.Write.Logger,
			Evolution:           svc.Evolution,
		}}
	if p.Strategy != nil {
		for _, c := range strings.Split(p.Strategy.StrategyParams[config.ClusteringSortColumns.Name], ",") {
			if c = strings.TrimSpace(c); c == "" {
				continue
			}
			i := schema.FieldIndex(full, c)
			if i < 0 {
				return fmt.Errorf("clustering %s: sort column %q is not in the table schema", in.Time, c)
			}
			env.sortIdx = append(env.sortIdx, i)
		}
	}

	listing, err := t.Files(ctx, table.FilesOptions{Logger: o.Write.Logger})
	if err != nil {
		return err
	}
	view, err := t.View(ctx, listing, "")
	if err != nil {
		return err
	}
	groups := map[string]*fsview.FileGroup{}
	for _, g := range view.Groups {
		groups[g.Partition+"/"+string(g.FileID)] = g
	}
	meta := &commitmeta.CommitMetadata{PartitionToWriteStats: map[string][]commitmeta.WriteStat{},
		PartitionToReplaceFileIDs: map[string][]string{}, ExtraMetadata: svc.ExtraMetadata(), OperationType: "CLUSTER"}
	for gi, g := range p.InputGroups {
		var slices []fsview.FileSlice
		for _, info := range g.Slices {
			sl, err := sliceFor(groups, info)
			if err != nil {
				return fmt.Errorf("clustering %s, group %d: %w", in.Time, gi, err)
			}
			slices = append(slices, sl)
			meta.PartitionToReplaceFileIDs[info.PartitionPath] = append(meta.PartitionToReplaceFileIDs[info.PartitionPath], info.FileID)
		}
		stats, err := env.rewrite(ctx, slices, int(g.NumOutputFileGroups))
		if err != nil {
			return fmt.Errorf("clustering %s, group %d: %w", in.Time, gi, err)
		}
		for _, s := range stats {
			meta.PartitionToWriteStats[s.PartitionPath] = append(meta.PartitionToWriteStats[s.PartitionPath], s)
			res.FilesWritten++
			res.Bytes += s.TotalWriteBytes
		}
	}
	// Complete holds the table lock while it publishes.
	if err := txn.Complete(ctx, meta); err != nil {
		return err
	}
	res.Completed = true
	return nil
}

// sliceFor finds the committed slice a plan's HoodieSliceInfo names: the file group's
// slice with that base file (the plan's paths are absolute, the view's relative, so file
// names are compared), restricted to the planned log files.
func sliceFor(groups map[string]*fsview.FileGroup, info commitmeta.SliceInfo) (fsview.FileSlice, error) {
	g := groups[info.PartitionPath+"/"+info.FileID]
	if g == nil {
		return fsview.FileSlice{}, fmt.Errorf("file group %s/%s of the plan is not in the table", info.PartitionPath, info.FileID)
	}
	var found *fsview.FileSlice
	for i := range g.Slices {
		sl := &g.Slices[i]
		switch {
		case info.DataFilePath == "" && sl.Base == nil,
			info.DataFilePath != "" && sl.Base != nil && sl.Base.Name.String() == path.Base(info.DataFilePath):
			found = sl
		}
	}
	if found == nil {
		return fsview.FileSlice{}, fmt.Errorf("file group %s/%s has no committed slice with base file %q", info.PartitionPath, info.FileID, info.DataFilePath)
	}
	sl := *found
	want := map[string]bool{}
	for _, d := range info.DeltaFilePaths {
		want[path.Base(d)] = true
	}
	sl.Logs = nil
	for _, l := range found.Logs {
		if want[l.Name.String()] {
			sl.Logs = append(sl.Logs, l)
			delete(want, l.Name.String())
		}
	}
	if len(want) > 0 {
		var missing []string
		for d := range want {
			missing = append(missing, d)
		}
		sort.Strings(missing)
		return fsview.FileSlice{}, fmt.Errorf("log files of the plan are missing from file group %s/%s: %s", info.PartitionPath, info.FileID, strings.Join(missing, ", "))
	}
	return sl, nil
}

// rewrite merges the slices of one clustering group (base + logs, deletes applied) and
// writes the rows into numOut new file groups of about equal row counts — Java writes the
// group with numOut bulk-insert tasks. With sort columns the rows are ordered first
// (ascending, nulls first, as Spark's Dataset.sort does in the row-writer path) and
// each new file holds a contiguous range.
func (e *groupEnv) rewrite(ctx context.Context, slices []fsview.FileSlice, numOut int) ([]commitmeta.WriteStat, error) {
	mem := e.o.Write.Mem
	var recs []arrow.Record
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, sl := range slices {
		err := filegroup.Read(ctx, e.t.Storage, sl, e.fg, func(rec arrow.Record) error {
			conformed, err := schema.ConformRecord(mem, rec, e.full)
			if err != nil {
				return err
			}
			recs = append(recs, conformed)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read file group %s/%s: %w", sl.Partition, sl.FileID, err)
		}
	}
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	if n == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, e.full.NumFields())
	for c := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		col, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, err
		}
		defer col.Release()
		cols[c] = col
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if len(e.sortIdx) > 0 {
		var cmps []func(i, j int) int
		for _, c := range e.sortIdx {
			f, err := comparator(cols[c])
			if err != nil {
				return nil, fmt.Errorf("sort column %s: %w", e.full.Field(c).Name, err)
			}
			cmps = append(cmps, f)
		}
		sort.SliceStable(order, func(a, b int) bool {
			for _, f := range cmps {
				if c := f(order[a], order[b]); c != 0 {
					return c < 0
				}
			}
			return false
		})
	}
	numOut = int(min(int64(max(numOut, 1)), n))
	per := (int(n) + numOut - 1) / numOut
	partition := slices[0].Partition
	var stats []commitmeta.WriteStat
	for from := 0; from < int(n); from += per {
		to := min(from+per, int(n))
		stat, err := e.writeFile(ctx, partition, cols, order[from:to])
		if err != nil {
			return nil, err
		}
		stats = append(stats, stat)
	}
	return stats, nil
}

// writeFile writes the rows at idx of cols as a new file group.
func (e *groupEnv) writeFile(ctx context.Context, partition string, cols []arrow.Array, idx []int) (commitmeta.WriteStat, error) {
	mem := e.o.Write.Mem
	start := time.Now()
	task := e.task
	e.task++
	ib := array.NewInt64Builder(mem)
	for _, i := range idx {
		ib.Append(int64(i))
	}
	indices := ib.NewArray()
	ib.Release()
	defer indices.Release()
	cctx := compute.WithAllocator(ctx, mem)
	out := make([]arrow.Array, len(cols))
	for c := range cols {
		taken, err := compute.TakeArray(cctx, cols[c], indices)
		if err != nil {
			return commitmeta.WriteStat{}, err
		}
		defer taken.Release()
		out[c] = taken
	}
	if !e.preserve {
		// The rows become records of this instant, numbered like a bulk insert's.
		commitTime, seqno := newMetaColumns(mem, e.txn.Instant, task, len(idx))
		defer commitTime.Release()
		defer seqno.Release()
		out[0], out[1] = commitTime, seqno
	}
	rec := array.NewRecord(e.full, out, int64(len(idx)))
	defer rec.Release()
	bw, err := write.NewBaseFileWriter(ctx, e.t.Storage, e.txn, write.BaseFileSpec{Partition: partition, FileID: newFileID(), Task: task,
		Schema: e.full, AvroSchema: e.avroWithMeta}, e.o.Write)
	if err != nil {
		return commitmeta.WriteStat{}, err
	}
	if err := bw.Write(rec); err != nil {
		bw.Abort()
		return commitmeta.WriteStat{}, err
	}
	stat, err := bw.Close(ctx)
	if err != nil {
		return stat, err
	}
	// Java's clustering write status counts every row as an insert into a new file group.
	stat.NumInserts = stat.NumWrites
	stat.RuntimeStats = &commitmeta.RuntimeStats{TotalCreateTime: time.Since(start).Milliseconds()}
	return stat, nil
}

func newMetaColumns(mem memory.Allocator, instant spec.InstantTime, task, n int) (arrow.Array, arrow.Array) {
	cb, sb := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
	defer cb.Release()
	defer sb.Release()
	prefix := []byte(string(instant) + "_" + strconv.Itoa(task) + "_")
	buf := prefix
	for i := 0; i < n; i++ {
		cb.Append(string(instant))
		buf = strconv.AppendInt(buf[:len(prefix)], int64(i), 10)
		sb.BinaryBuilder.Append(buf)
	}
	return cb.NewArray(), sb.NewArray()
}

// newFileID returns a new file group id: a random UUID with Spark's "-0" suffix.
func newFileID() spec.FileID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return spec.FileID(fmt.Sprintf("%x-%x-%x-%x-%x-0", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// comparator orders two rows of a column ascending with nulls first.
func comparator(a arrow.Array) (func(i, j int) int, error) {
	var less func(i, j int) int
	switch c := a.(type) {
	case *array.String:
		less = func(i, j int) int { return strings.Compare(c.Value(i), c.Value(j)) }
	case *array.LargeString:
		less = func(i, j int) int { return strings.Compare(c.Value(i), c.Value(j)) }
	case *array.Binary:
		less = func(i, j int) int { return bytes.Compare(c.Value(i), c.Value(j)) }
	case *array.Boolean:
		less = func(i, j int) int { return boolCmp(c.Value(i), c.Value(j)) }
	case *array.Int8:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Int16:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Int32:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Int64:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Float32:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Float64:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Date32:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Date64:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Timestamp:
		less = func(i, j int) int { return cmp.Compare(c.Value(i), c.Value(j)) }
	case *array.Decimal128:
		less = func(i, j int) int { return c.Value(i).Cmp(c.Value(j)) }
	default:
		return nil, fmt.Errorf("sorting by %s is not supported", a.DataType())
	}
	return func(i, j int) int {
		ni, nj := a.IsNull(i), a.IsNull(j)
		switch {
		case ni && nj:
			return 0
		case ni:
			return -1
		case nj:
			return 1
		}
		return less(i, j)
	}, nil
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
