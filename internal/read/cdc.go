package read

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/filegroup"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
)

// A CDC query (Options.CDC) returns every change the commits in (Begin, End] made, one row
// per changed record: op ('i', 'u' or 'd'), ts_ms (the commit's instant), and the before
// and after images as JSON text (null where there is none) — Spark's CDC relation
// (hoodie.datasource.query.incremental.format=cdc, Hudi 0.14). Where the changes come from
// follows Java's HoodieCDCExtractor, per file group a commit wrote:
//
//	AS_IS             the write stat lists CDC log files (cdcStats): their records, with the
//	                  images the logging mode does not store rebuilt from the base files
//	                  before (prevCommit) and after the commit
//	BASE_FILE_INSERT  a base file of inserts only (a new file group): all its records
//	BASE_FILE_DELETE  a delete emptied the file group: all records of the previous base file
//	LOG_FILE          a merge-on-read log file: the file group before and after the log
//	REPLACE_COMMIT    a group a replacecommit replaced: all records of its latest slice
//
// Rows come file group by file group in the iteration order of Java's HashMap of file
// group ids, each group's commits in instant order, each commit's records in the order
// Spark gives them (a CDC block's order, a base file's order).

// CDCSchema is the schema of CDC query rows (Spark's CDCRelation.cdcSchema).
var CDCSchema = arrow.NewSchema([]arrow.Field{
	{Name: cdc.FieldOp, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: cdc.FieldTS, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: cdc.FieldBefore, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: cdc.FieldAfter, Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

type cdcCase int

const (
	cdcAsIs cdcCase = iota
	cdcBaseInsert
	cdcBaseDelete
	cdcLogFile
	cdcReplace
)

// cdcSplit is one commit's change to one file group (Java's HoodieCDCFileSplit).
type cdcSplit struct {
	instant spec.InstantTime
	kind    cdcCase
	files   []string          // AS_IS: the CDC log files; BASE_FILE_INSERT: the base file
	before  *fsview.FileSlice // the slice before the commit, when the case reads it
	after   *fsview.FileSlice // AS_IS without after images: the commit's base file
	// logFile (LOG_FILE): the commit's log file; the slice is before's with it added.
	logFile *fsview.LogFile
}

type cdcGroup struct {
	partition string
	fileID    spec.FileID
	splits    []cdcSplit
}

// cdcScan is a planned CDC query.
type cdcScan struct {
	mode      cdc.Mode
	tableAvro string
	dataArrow *arrow.Schema // the table schema without meta fields
	render    *imageRenderer
	groups    []*cdcGroup
	fgOpts    filegroup.Options
	// decoders by block SCHEMA header, shared by the runs of a scan and its projections.
	mu       sync.Mutex
	decoders map[string]*cdc.Decoder
}

// decoder returns the decoder of blocks with header schema schemaText.
func (c *cdcScan) decoder(schemaText string) (*cdc.Decoder, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.decoders[schemaText]; d != nil {
		return d, nil
	}
	d, err := cdc.NewDecoder(c.mode, schemaText, c.tableAvro)
	if err != nil {
		return nil, err
	}
	c.decoders[schemaText] = d
	return d, nil
}

// isDataChange is Java 0.14's WriteOperationType.isDataChange: the operations whose commits
// a CDC query reads (not compaction nor clustering, which rewrite files without changing
// records).
func isDataChange(op string) bool {
	switch strings.ToUpper(op) {
	case "INSERT", "UPSERT", "DELETE", "BULK_INSERT", "DELETE_PARTITION", "INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE", "BOOTSTRAP":
		return true
	}
	return false
}

func planCDC(ctx context.Context, t *table.Table, s *Scan) error {
	opts := s.opts
	if !t.Config.CDCEnabled() {
		// CDCRelation: "It isn't a CDC hudi table on …".
		return fmt.Errorf("table %s is not a CDC table (%s is not true): CDC queries read the CDC data its writes log", t.Config.Name(), table.KeyCDCEnabled)
	}
	mode, err := t.Config.CDCMode()
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Config.Name(), err)
	}
	if !t.Config.PopulateMetaFields() {
		return fmt.Errorf("table %s has no meta fields: CDC queries of such tables are not supported", t.Config.Name())
	}
	if opts.AsOf != "" || opts.ReadOptimized || opts.Filter != nil {
		return fmt.Errorf("a CDC query takes no time travel, read-optimized or filter option")
	}
	if p := commit.PendingRestore(ctx, t.Storage, t.Timeline); p != nil {
		return p.Error("CDC query of " + t.Config.Name())
	}
	data := t.Timeline.DataInstants()
	if opts.End == "" && len(data) > 0 {
		opts.End = data[len(data)-1].Time
	}
	if opts.Begin == "" {
		opts.Begin = spec.ZeroInstant
	}
	s.opts = opts
	// Columns: any of the four, in the order given.
	var fields []arrow.Field
	for _, c := range opts.Columns {
		i := CDCSchema.FieldIndices(c)
		if len(i) == 0 {
			return fmt.Errorf("column %q is not a CDC query column (op, ts_ms, before, after)", c)
		}
		fields = append(fields, CDCSchema.Field(i[0]))
	}
	s.schema, s.full = CDCSchema, CDCSchema // Project picks among the CDC columns
	if fields != nil {
		s.schema = arrow.NewSchema(fields, nil)
	}
	// Java reads only the active timeline; a range reaching archived commits would leave
	// their changes out silently (Hudi 0.14) — refused here, as later Hudi does.
	archived, err := t.Archived(ctx)
	if err != nil {
		return fmt.Errorf("CDC query: archived timeline: %w", err)
	}
	for _, a := range archived {
		if in := a.Instant; in.IsCompleted() && in.Action.IsDataAction() && opts.Begin.Less(in.Time) {
			return fmt.Errorf("CDC query from %s: commit %s in the range is archived, and CDC queries read the active timeline only (begin at or after %s)",
				opts.Begin, in.Time, lastArchived(archived))
		}
	}

	c := &cdcScan{mode: mode, decoders: map[string]*cdc.Decoder{}}
	s.cdc = c
	if c.tableAvro, err = t.SchemaAt(ctx, ""); err != nil {
		return err
	}
	if c.tableAvro == "" {
		return nil // nothing committed
	}
	if c.render, err = newImageRenderer(c.tableAvro); err != nil {
		return fmt.Errorf("table %s schema: %w", t.Config.Name(), err)
	}
	full, err := resolveSchema(ctx, t, "", nil, opts.files()) // CDC images are read by name (schema evolution on read is not applied to CDC queries yet)
	if err != nil {
		return err
	}
	c.dataArrow = schema.WithoutMetaFields(full)
	rules, err := t.Config.MergeRules()
	if err != nil {
		return err
	}
	ordering := ""
	if of := t.Config.OrderingFields(); len(of) > 0 && schema.FieldIndex(full, of[0]) >= 0 {
		ordering = full.Field(schema.FieldIndex(full, of[0])).Name
	}
	c.fgOpts = filegroup.Options{
		Schema:              full,
		KeyFields:           keyColumns(t.Config.RecordKeyFields()),
		MetaFieldsPopulated: true,
		OrderingField:       ordering,
		Rules:               rules,
		Committed:           fsview.NewVisibility(t.Timeline, "").Committed,
		BatchSize:           opts.BatchSize,
		Mem:                 opts.Mem,
		Logger:              opts.Logger,
	}

	// The view of every committed file, replaced groups included (Java's extractor builds a
	// HoodieTableFileSystemView of the touched partitions over the completed commits).
	listing, err := t.Files(ctx, opts.files())
	if err != nil {
		return err
	}
	view, err := fsview.Build(ctx, listing, t.Timeline, fsview.Options{})
	if err != nil {
		return err
	}
	groupsByID := map[string]*fsview.FileGroup{}
	for _, g := range view.Groups {
		groupsByID[g.Partition+"/"+string(g.FileID)] = g
	}
	sizes := map[string]int64{}
	for _, p := range listing.Partitions {
		for _, f := range p.Files {
			sizes[storageJoin(p.Path, f.Name)] = f.Size
		}
	}
	ex := &extractor{t: t, mode: mode, groups: groupsByID, sizes: sizes}
	fgs := map[string]*cdcGroup{}
	hm := javastr.NewHashMap()
	var order []*cdcGroup
	add := func(partition string, id spec.FileID, sp cdcSplit) {
		k := partition + "/" + string(id)
		g := fgs[k]
		if g == nil {
			g = &cdcGroup{partition: partition, fileID: id}
			fgs[k] = g
			order = append(order, g)
			hm.Put(k, fileGroupIDHash(partition, string(id)))
		}
		g.splits = append(g.splits, sp)
	}
	for _, in := range t.Timeline.Instants {
		if !in.IsCompleted() || !opts.Begin.Less(in.Time) || opts.End.Less(in.Time) {
			continue
		}
		switch in.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit:
		default:
			continue
		}
		cm, err := t.CommitMetadata(ctx, in)
		if err != nil {
			return err
		}
		if !isDataChange(cm.OperationType) {
			continue
		}
		for _, p := range sortedKeys(cm.PartitionToWriteStats) {
			for _, st := range cm.PartitionToWriteStats[p] {
				splits, err := ex.parseWriteStat(in, p, st, cm.OperationType)
				if err != nil {
					return fmt.Errorf("CDC of %s %s, file group %s/%s: %w", in.Action, in.Time, p, st.FileID, err)
				}
				for _, sp := range splits {
					add(p, spec.FileID(st.FileID), sp)
				}
			}
		}
		for _, p := range sortedKeys(cm.PartitionToReplaceFileIDs) {
			for _, id := range cm.PartitionToReplaceFileIDs[p] {
				g := groupsByID[p+"/"+id]
				if g == nil {
					continue // cleaned since: Java skips a replaced group it cannot find
				}
				sl := g.Latest()
				if sl == nil {
					continue
				}
				add(p, spec.FileID(id), cdcSplit{instant: in.Time, kind: cdcReplace, before: sl})
			}
		}
	}
	for _, k := range hm.Order() {
		g := order[k]
		// Each group's changes in instant order (HoodieCDCFileSplit.compareTo), stable.
		sort.SliceStable(g.splits, func(i, j int) bool { return g.splits[i].instant.Less(g.splits[j].instant) })
		c.groups = append(c.groups, g)
	}
	return nil
}

func lastArchived(archived []timeline.ArchivedInstant) spec.InstantTime {
	var last spec.InstantTime
	for _, a := range archived {
		if a.Instant.IsCompleted() && last.Less(a.Instant.Time) {
			last = a.Instant.Time
		}
	}
	return last
}

// fileGroupIDHash is HoodieFileGroupId.hashCode: Objects.hash(partitionPath, fileId).
func fileGroupIDHash(partition, fileID string) int32 {
	h := int32(1)
	h = 31*h + javastr.HashCode(partition)
	return 31*h + javastr.HashCode(fileID)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func storageJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// extractor turns write stats into splits (Java's HoodieCDCExtractor.parseWriteStat).
type extractor struct {
	t      *table.Table
	mode   cdc.Mode
	groups map[string]*fsview.FileGroup
	sizes  map[string]int64
}

// baseFileOn returns the committed base file of a file group written at instant
// (HoodieTableFileSystemView.getBaseFileOn), as a slice of it alone.
func (ex *extractor) baseFileOn(partition string, id spec.FileID, instant spec.InstantTime) (*fsview.FileSlice, error) {
	if g := ex.groups[partition+"/"+string(id)]; g != nil {
		for i := range g.Slices {
			if sl := g.Slices[i]; sl.BaseInstant == instant && sl.Base != nil {
				return &fsview.FileSlice{Partition: partition, FileID: id, BaseInstant: instant, Base: sl.Base}, nil
			}
		}
	}
	return nil, fmt.Errorf("the base file of %s/%s written at %s is gone (cleaned?): can not get the previous version of the base file", partition, id, instant)
}

// baseSlice is the slice of the base file at p (relative to the table).
func (ex *extractor) baseSlice(partition string, id spec.FileID, p string) (*fsview.FileSlice, error) {
	name, ok := spec.ParseBaseFileName(path.Base(p))
	if !ok {
		return nil, fmt.Errorf("%s is not a base file name", p)
	}
	size, ok := ex.sizes[p]
	if !ok {
		return nil, fmt.Errorf("base file %s is gone (cleaned?)", p)
	}
	return &fsview.FileSlice{Partition: partition, FileID: id, BaseInstant: name.Instant,
		Base: &fsview.BaseFile{Name: name, Path: p, Size: size}}, nil
}

func (ex *extractor) parseWriteStat(in timeline.Instant, partition string, st commitmeta.WriteStat, op string) ([]cdcSplit, error) {
	id := spec.FileID(st.FileID)
	sp := cdcSplit{instant: in.Time}
	prev := spec.InstantTime(st.PrevCommit)
	hasPrev := st.PrevCommit != "" && st.PrevCommit != commitmeta.NullCommit
	if len(st.CDCStats) > 0 {
		sp.kind = cdcAsIs
		sp.files = sortedKeys(st.CDCStats)
		if ex.mode == cdc.DataBeforeAfter {
			return []cdcSplit{sp}, nil
		}
		after, err := ex.baseSlice(partition, id, st.Path)
		if err != nil {
			return nil, err
		}
		sp.after = after
		if ex.mode == cdc.OpKeyOnly && hasPrev {
			if sp.before, err = ex.baseFileOn(partition, id, prev); err != nil {
				return nil, err
			}
		}
		return []cdcSplit{sp}, nil
	}
	if _, ok := spec.ParseBaseFileName(path.Base(st.Path)); ok {
		switch {
		case st.NumWrites == 0 && st.NumDeletes != 0 && hasPrev:
			// A delete emptied the group (Java: only for the DELETE operation; an upsert of
			// deletes that empties a group makes Java fail, "There should be a cdc log
			// file" — hudi-go reads it the same way).
			before, err := ex.baseFileOn(partition, id, prev)
			if err != nil {
				return nil, err
			}
			sp.kind, sp.before = cdcBaseDelete, before
			return []cdcSplit{sp}, nil
		case st.NumUpdateWrites == 0 && st.NumWrites == st.NumInserts:
			sp.kind, sp.files = cdcBaseInsert, []string{st.Path}
			if !hasPrev || (st.NumDeletes == 0 && st.NumWrites == 0) {
				return []cdcSplit{sp}, nil
			}
			// Inserts only, yet the group had records: every stored record was deleted and
			// new ones written (Java writes no CDC file and fails the query; hudi-go reads
			// the deletes from the previous base file, then the inserts).
			before, err := ex.baseFileOn(partition, id, prev)
			if err != nil {
				return nil, err
			}
			return []cdcSplit{{instant: in.Time, kind: cdcBaseDelete, before: before}, sp}, nil
		}
		return nil, fmt.Errorf("base file %s holds updates but the write stat lists no CDC log file (written with CDC off?)", st.Path)
	}
	ln, ok := spec.ParseLogFileName(path.Base(st.Path))
	if !ok {
		return nil, fmt.Errorf("write stat path %s is neither a base file nor a log file", st.Path)
	}
	if in.Action != spec.ActionDeltaCommit {
		return nil, fmt.Errorf("log file %s in a %s", st.Path, in.Action)
	}
	// The slice the log file extends, as the deltacommit recorded it (baseFile, logFiles):
	// HoodieCDCExtractor.getDependentFileSliceForLogFile.
	sl := &fsview.FileSlice{Partition: partition, FileID: id, BaseInstant: ln.Instant}
	if st.BaseFile == "" {
		return nil, fmt.Errorf("log file %s extends a slice without a base file (written while a compaction was pending): "+
			"its changes cannot be inferred (Java 0.14 cannot either)", st.Path)
	}
	before, err := ex.baseSlice(partition, id, storageJoin(partition, st.BaseFile))
	if err != nil {
		return nil, err
	}
	sl.Base = before.Base
	cur := path.Base(st.Path)
	for _, name := range st.LogFiles {
		lf, ok := spec.ParseLogFileName(name)
		if !ok || lf.CDC() {
			continue
		}
		p := storageJoin(partition, name)
		size, ok := ex.sizes[p]
		if !ok {
			return nil, fmt.Errorf("log file %s is gone (cleaned?)", p)
		}
		l := fsview.LogFile{Name: lf, Path: p, Size: size}
		if name == cur {
			sp.logFile = &l
			continue
		}
		sl.Logs = append(sl.Logs, l)
	}
	if sp.logFile == nil {
		size, ok := ex.sizes[st.Path]
		if !ok {
			return nil, fmt.Errorf("log file %s is gone (cleaned?)", st.Path)
		}
		sp.logFile = &fsview.LogFile{Name: ln, Path: st.Path, Size: size}
	}
	slices.SortFunc(sl.Logs, func(a, b fsview.LogFile) int { return spec.CompareLogFiles(a.Name, b.Name) })
	sp.kind, sp.before = cdcLogFile, sl
	return []cdcSplit{sp}, nil
}

// cdcEmitter batches CDC rows into records of the scan's schema.
type cdcEmitter struct {
	s     *Scan
	b     *array.RecordBuilder
	n     int
	emit  func(arrow.Record) error
	index [4]int // output column of op, ts_ms, before, after (-1: not returned)
}

func newCDCEmitter(s *Scan, emit func(arrow.Record) error) *cdcEmitter {
	e := &cdcEmitter{s: s, b: array.NewRecordBuilder(s.opts.Mem, s.schema), emit: emit}
	for i, name := range []string{cdc.FieldOp, cdc.FieldTS, cdc.FieldBefore, cdc.FieldAfter} {
		e.index[i] = -1
		if idx := s.schema.FieldIndices(name); len(idx) > 0 {
			e.index[i] = idx[0]
		}
	}
	return e
}

// row adds one change; empty before/after mean null.
func (e *cdcEmitter) row(op cdc.Op, ts spec.InstantTime, before, after string) error {
	vals := [4]string{op.String(), string(ts), before, after}
	for i, col := range e.index {
		if col < 0 {
			continue
		}
		sb := e.b.Field(col).(*array.StringBuilder)
		if i >= 2 && vals[i] == "" {
			sb.AppendNull()
		} else {
			sb.Append(vals[i])
		}
	}
	e.n++
	if e.n >= e.s.opts.BatchSize {
		return e.flush()
	}
	return nil
}

func (e *cdcEmitter) flush() error {
	if e.n == 0 {
		return nil
	}
	rec := e.b.NewRecord()
	defer rec.Release()
	e.n = 0
	return e.emit(rec)
}

// runCDC produces the query's rows.
func (s *Scan) runCDC(ctx context.Context, fn func(arrow.Record) error) error {
	c := s.cdc
	e := newCDCEmitter(s, fn)
	defer e.b.Release()
	for _, g := range c.groups {
		for _, sp := range g.splits {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.runSplit(ctx, e, sp); err != nil {
				return fmt.Errorf("CDC of %s, file group %s/%s: %w", sp.instant, g.partition, g.fileID, err)
			}
		}
	}
	return e.flush()
}

func (s *Scan) runSplit(ctx context.Context, e *cdcEmitter, sp cdcSplit) error {
	c := s.cdc
	switch sp.kind {
	case cdcBaseInsert:
		sl, err := s.sliceOfBase(sp.files[0])
		if err != nil {
			return err
		}
		return s.eachImage(ctx, sl, func(_, _, img string) error { return e.row(cdc.Insert, sp.instant, "", img) })
	case cdcBaseDelete, cdcReplace:
		return s.eachImage(ctx, sp.before, func(_, _, img string) error { return e.row(cdc.Delete, sp.instant, img, "") })
	case cdcLogFile:
		return s.runLogFile(ctx, e, sp)
	}
	// AS_IS: the CDC log records, their missing images from the base files.
	var before, after map[string]string
	if !c.mode.StoresBefore() && sp.before != nil {
		var err error
		if before, err = s.imagesByKey(ctx, sp.before); err != nil {
			return err
		}
	}
	if !c.mode.StoresAfter() {
		var err error
		if after, err = s.imagesByKey(ctx, sp.after); err != nil {
			return err
		}
	}
	for _, f := range sp.files {
		err := s.eachCDCRecord(ctx, f, func(r cdc.Record, bImg, aImg string) error {
			key := r.Key
			if !c.mode.StoresBefore() && r.Op != cdc.Insert {
				img, ok := before[key]
				if !ok {
					return fmt.Errorf("CDC record %c of key %q: the key is not in the previous base file", r.Op, key)
				}
				bImg = img
			}
			if !c.mode.StoresAfter() && r.Op != cdc.Delete {
				img, ok := after[key]
				if !ok {
					return fmt.Errorf("CDC record %c of key %q: the key is not in the commit's base file", r.Op, key)
				}
				aImg = img
			}
			if r.Op == cdc.Insert {
				bImg = ""
			}
			if r.Op == cdc.Delete {
				aImg = ""
			}
			return e.row(r.Op, sp.instant, bImg, aImg)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sliceOfBase is the slice of one base file (a path relative to the table).
func (s *Scan) sliceOfBase(p string) (*fsview.FileSlice, error) {
	name, ok := spec.ParseBaseFileName(path.Base(p))
	if !ok {
		return nil, fmt.Errorf("%s is not a base file name", p)
	}
	fi, err := s.t.Storage.Stat(context.Background(), p)
	if err != nil {
		return nil, fmt.Errorf("base file %s: %w", p, err)
	}
	return &fsview.FileSlice{Partition: path.Dir(p), FileID: name.FileID, BaseInstant: name.Instant,
		Base: &fsview.BaseFile{Name: name, Path: p, Size: fi.Size}}, nil
}

// eachImage reads a slice (base file and logs merged) and calls fn with each record's key,
// commit time and image, in the slice's order.
func (s *Scan) eachImage(ctx context.Context, sl *fsview.FileSlice, fn func(key, commitTime, img string) error) error {
	return s.eachImageWith(ctx, sl, s.cdc.fgOpts, fn)
}

func (s *Scan) eachImageWith(ctx context.Context, sl *fsview.FileSlice, opts filegroup.Options, fn func(key, commitTime, img string) error) error {
	return filegroup.Read(ctx, s.t.Storage, *sl, opts, func(rec arrow.Record) error {
		keys, ok := columnString(rec, schema.MetaFields[2])
		if !ok {
			return fmt.Errorf("%s/%s: no %s column", sl.Partition, sl.FileID, schema.MetaFields[2])
		}
		times, _ := columnString(rec, schema.MetaFields[0])
		for i := 0; i < int(rec.NumRows()); i++ {
			img, err := s.cdc.render.render(rec, i)
			if err != nil {
				return err
			}
			ct := ""
			if times != nil && !times.IsNull(i) {
				ct = times.Value(i)
			}
			if err := fn(strings.Clone(keys.Value(i)), strings.Clone(ct), img); err != nil {
				return err
			}
		}
		return nil
	})
}

func columnString(rec arrow.Record, name string) (*array.String, bool) {
	for i, f := range rec.Schema().Fields() {
		if f.Name == name {
			a, ok := rec.Column(i).(*array.String)
			return a, ok
		}
	}
	return nil, false
}

// imagesByKey reads a slice's images keyed by record key.
func (s *Scan) imagesByKey(ctx context.Context, sl *fsview.FileSlice) (map[string]string, error) {
	out := map[string]string{}
	if sl == nil {
		return out, nil
	}
	err := s.eachImage(ctx, sl, func(key, _, img string) error {
		out[key] = img
		return nil
	})
	return out, err
}

// eachCDCRecord reads a CDC log file's records in file order, with the images the mode
// stores rendered ("" for none).
func (s *Scan) eachCDCRecord(ctx context.Context, p string, fn func(r cdc.Record, before, after string) error) error {
	c := s.cdc
	f, err := s.t.Storage.Open(ctx, p)
	if err != nil {
		return fmt.Errorf("CDC log file %s: %w", p, err)
	}
	defer f.Close()
	blocks, err := logfile.ReadAll(f, f.Size(), p)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		if b.Type != logfile.CDCDataBlock {
			// Java's HoodieCDCLogRecordIterator takes every block for a data block.
			return fmt.Errorf("CDC log file %s: a %s at offset %d (%s), not a CDC_DATA_BLOCK", p, b.Type, b.Offset, b.CorruptReason)
		}
		d, err := c.decoder(b.Header[logfile.Schema])
		if err != nil {
			return fmt.Errorf("CDC log file %s, block at offset %d: %w", p, b.Offset, err)
		}
		datums, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			return fmt.Errorf("CDC log file %s, block at offset %d: %w", p, b.Offset, err)
		}
		recs := make([]cdc.Record, len(datums))
		for i, datum := range datums {
			if recs[i], err = d.Decode(datum); err != nil {
				return fmt.Errorf("CDC log file %s, block at offset %d, record %d: %w", p, b.Offset, i, err)
			}
		}
		befores, err := s.renderImages(recs, func(r cdc.Record) map[string]any { return r.Before })
		if err != nil {
			return fmt.Errorf("CDC log file %s: %w", p, err)
		}
		afters, err := s.renderImages(recs, func(r cdc.Record) map[string]any { return r.After })
		if err != nil {
			return fmt.Errorf("CDC log file %s: %w", p, err)
		}
		for i, r := range recs {
			if err := fn(r, befores[i], afters[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// renderImages renders the images pick takes from recs ("" for none): through Arrow rows
// of the table schema, so that they print as images read from base files do.
func (s *Scan) renderImages(recs []cdc.Record, pick func(cdc.Record) map[string]any) ([]string, error) {
	c := s.cdc
	out := make([]string, len(recs))
	var rows []int
	for i, r := range recs {
		if pick(r) != nil {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return out, nil
	}
	app, err := schema.NewRecordAppender(c.tableAvro, c.dataArrow)
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(s.opts.Mem, c.dataArrow)
	defer b.Release()
	for _, i := range rows {
		if err := app.Append(b, pick(recs[i])); err != nil {
			return nil, fmt.Errorf("image of %q: %w", recs[i].Key, err)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	for k, i := range rows {
		if out[i], err = c.render.render(rec, k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runLogFile infers a merge-on-read log file's changes: the file group read with the
// commit's blocks and without them (records of later commits in the same files are left
// out), every key whose record differs coming out as an insert, update or delete
// (HoodieCDCRDD's LOG_FILE case: a record the log file updates but whose merge keeps the
// stored record is no change). Rows come in the order of Java's log scanner's HashMap of
// the log file's keys.
func (s *Scan) runLogFile(ctx context.Context, e *cdcEmitter, sp cdcSplit) error {
	type state struct{ commit, img string }
	read := func(logs []fsview.LogFile, visible func(spec.InstantTime) bool, stats *filegroup.LogStats) (map[string]state, error) {
		sl := *sp.before
		sl.Logs = logs
		opts := s.cdc.fgOpts
		opts.Committed = visible
		opts.LogStats = stats
		out := map[string]state{}
		err := s.eachImageWith(ctx, &sl, opts, func(key, ct, img string) error {
			out[key] = state{ct, img}
			return nil
		})
		return out, err
	}
	committed := s.cdc.fgOpts.Committed
	all := append(append([]fsview.LogFile(nil), sp.before.Logs...), *sp.logFile)
	slices.SortFunc(all, func(a, b fsview.LogFile) int { return spec.CompareLogFiles(a.Name, b.Name) })
	before, err := read(all, func(ts spec.InstantTime) bool { return ts.Less(sp.instant) && committed(ts) }, nil)
	if err != nil {
		return err
	}
	after, err := read(all, func(ts spec.InstantTime) bool { return !sp.instant.Less(ts) && committed(ts) }, nil)
	if err != nil {
		return err
	}
	// The number of keys in the commit's log records sizes Java's map; the changes are
	// among them.
	logOnly := *sp.before
	logOnly.Base, logOnly.Logs = nil, []fsview.LogFile{*sp.logFile}
	var own filegroup.LogStats
	opts := s.cdc.fgOpts
	opts.Committed = func(ts spec.InstantTime) bool { return ts == sp.instant }
	opts.LogStats = &own
	if err := filegroup.Read(ctx, s.t.Storage, logOnly, opts, func(arrow.Record) error { return nil }); err != nil {
		return err
	}
	type change struct {
		op            cdc.Op
		before, after string
	}
	changes := map[string]change{}
	var keys []string
	for k, b := range before {
		a, ok := after[k]
		switch {
		case !ok:
			changes[k] = change{cdc.Delete, b.img, ""}
		case a.commit == string(sp.instant):
			// The commit's record won its merge (Java compares the merged record, meta
			// fields included, with the stored one: a rewrite is an update even when the
			// data is the same).
			changes[k] = change{cdc.Update, b.img, a.img}
		default:
			continue
		}
		keys = append(keys, k)
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			changes[k] = change{cdc.Insert, "", a.img}
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	hm := javastr.NewHashMap()
	hm.SizeFor(int(max(own.MergedKeys, int64(len(keys)))))
	for _, k := range keys {
		hm.Put(k, javastr.HashCode(k))
	}
	for _, k := range hm.Keys() {
		ch := changes[k]
		if err := e.row(ch.op, sp.instant, ch.before, ch.after); err != nil {
			return err
		}
	}
	return nil
}
