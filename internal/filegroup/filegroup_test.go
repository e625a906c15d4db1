package filegroup

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/merge"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage/local"
)

// ---- fixtures -----------------------------------------------------------------------

const tsPrefix = "20250101000000"

func ts(n int) spec.InstantTime { return spec.InstantTime(fmt.Sprintf("%s%03d", tsPrefix, n)) }

const fileID = "fg-0"
const partition = "p"

// avroSchemaJSON is the writer schema of the log blocks: meta fields + id/ts/val and the
// soft-delete flag, every field a ["null", T] union as Hudi writes them. extra adds fields.
func avroSchemaJSON(extra ...string) string {
	fields := []string{}
	for _, m := range schema.MetaFields {
		fields = append(fields, fmt.Sprintf(`{"name":%q,"type":["null","string"],"default":null}`, m))
	}
	fields = append(fields,
		`{"name":"id","type":["null","long"],"default":null}`,
		`{"name":"ts","type":["null","long"],"default":null}`,
		`{"name":"val","type":["null","string"],"default":null}`,
		`{"name":"_hoodie_is_deleted","type":["null","boolean"],"default":null}`,
	)
	fields = append(fields, extra...)
	return `{"type":"record","name":"tbl_record","namespace":"hoodie.tbl","fields":[` + strings.Join(fields, ",") + `]}`
}

func tableSchema(t *testing.T, extra ...string) *arrow.Schema {
	t.Helper()
	s, err := schema.FromAvro(avroSchemaJSON(extra...))
	if err != nil {
		t.Fatal(err)
	}
	return schema.WithMetaFields(s)
}

// row is one record of the test table.
type row struct {
	id      int64
	ts      int64
	val     string
	commit  spec.InstantTime
	deleted *bool
	noMeta  bool // meta fields null (tables without meta fields), except the file name
}

func r(id, tsv int64, val string, commit int) row {
	return row{id: id, ts: tsv, val: val, commit: ts(commit)}
}

var yes = true

func (x row) key() string { return strconv.FormatInt(x.id, 10) }

func baseFileName(n int) string { return fmt.Sprintf("%s_0-1-1_%s.parquet", fileID, ts(n)) }
func logFileName(n, ver int) string {
	return fmt.Sprintf(".%s_%s.log.%d_0-1-1", fileID, ts(n), ver)
}

// writeBase writes a Parquet base file holding rows (in order) with the given schema
// (which must be the table schema or a subset of it) and returns its slice entry.
func writeBase(t *testing.T, root string, sc *arrow.Schema, n int, rows []row) *fsview.BaseFile {
	t.Helper()
	name := baseFileName(n)
	rel := partition + "/" + name
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	for _, x := range rows {
		for i, f := range sc.Fields() {
			fb := b.Field(i)
			switch f.Name {
			case schema.CommitTimeField:
				appendStr(fb, string(x.commit), !x.noMeta)
			case schema.CommitSeqnoField:
				appendStr(fb, string(x.commit)+"_0_"+x.key(), !x.noMeta)
			case schema.RecordKeyField:
				appendStr(fb, x.key(), !x.noMeta)
			case schema.PartitionPathField:
				appendStr(fb, partition, !x.noMeta)
			case schema.FileNameField:
				appendStr(fb, name, true)
			case "id":
				fb.(*array.Int64Builder).Append(x.id)
			case "ts":
				fb.(*array.Int64Builder).Append(x.ts)
			case "val":
				fb.(*array.StringBuilder).Append(x.val)
			case isDeletedField:
				if x.deleted == nil {
					fb.AppendNull()
				} else {
					fb.(*array.BooleanBuilder).Append(*x.deleted)
				}
			default:
				// extra columns stored in the file hold a recognisable value
				if sb, ok := fb.(*array.StringBuilder); ok {
					sb.Append("stored" + x.key())
				} else {
					fb.AppendNull()
				}
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(sc, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	writeRaw(t, root, rel, buf.Bytes())
	bn, ok := spec.ParseBaseFileName(name)
	if !ok {
		t.Fatalf("bad base name %s", name)
	}
	return &fsview.BaseFile{Name: bn, Path: rel, Size: int64(buf.Len())}
}

func appendStr(b array.Builder, s string, valid bool) {
	if !valid {
		b.AppendNull()
		return
	}
	b.(*array.StringBuilder).Append(s)
}

func writeRaw(t *testing.T, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// blk describes one log block (or a raw byte region) of a test log file.
type blk struct {
	data     []row                  // AVRO_DATA block
	dels     []logfile.DeleteRecord // DELETE block
	rollback int                    // COMMAND block rolling back ts(rollback)
	raw      []byte                 // bytes written as is (corruption)
	instant  int
	extra    map[string]any // extra Avro field values for every record of a data block
	schema   string         // writer schema override
	partial  bool           // IS_PARTIAL=true header (Hudi 1.x partial updates)
}

func dataBlock(instant int, rows ...row) blk { return blk{instant: instant, data: rows} }
func delBlock(instant int, keys ...any) blk {
	// keys: alternating key string and ordering value
	var ds []logfile.DeleteRecord
	for i := 0; i < len(keys); i += 2 {
		ds = append(ds, logfile.DeleteRecord{RecordKey: keys[i].(string), PartitionPath: partition, OrderingValue: keys[i+1]})
	}
	return blk{instant: instant, dels: ds}
}
func rollbackBlock(instant, target int) blk { return blk{instant: instant, rollback: target} }

func avroRecord(x row, file string) map[string]any {
	m := map[string]any{
		"id": x.id, "ts": x.ts, "val": x.val,
		schema.FileNameField: file,
	}
	if !x.noMeta {
		m[schema.CommitTimeField] = string(x.commit)
		m[schema.CommitSeqnoField] = string(x.commit) + "_1_" + x.key()
		m[schema.RecordKeyField] = x.key()
		m[schema.PartitionPathField] = partition
	} else {
		m[schema.CommitTimeField] = nil
		m[schema.CommitSeqnoField] = nil
		m[schema.RecordKeyField] = nil
		m[schema.PartitionPathField] = nil
	}
	if x.deleted != nil {
		m[isDeletedField] = *x.deleted
	} else {
		m[isDeletedField] = nil
	}
	return m
}

// writeLog writes a log file of blocks and returns its slice entry.
func writeLog(t *testing.T, root string, baseInstant, ver int, blocks []blk) fsview.LogFile {
	t.Helper()
	name := logFileName(baseInstant, ver)
	rel := partition + "/" + name
	var buf bytes.Buffer
	for _, b := range blocks {
		var lb *logfile.Block
		switch {
		case b.raw != nil:
			buf.Write(b.raw)
			continue
		case b.data != nil:
			sj := b.schema
			if sj == "" {
				sj = avroSchemaJSON()
			}
			ws, err := avro.Parse(sj)
			if err != nil {
				t.Fatal(err)
			}
			var recs [][]byte
			for _, x := range b.data {
				m := avroRecord(x, baseFileName(baseInstant))
				for k, v := range b.extra {
					m[k] = v
				}
				enc, err := ws.Encode(m)
				if err != nil {
					t.Fatalf("encode avro record: %v", err)
				}
				recs = append(recs, enc)
			}
			lb = &logfile.Block{Type: logfile.AvroDataBlock, Header: map[logfile.HeaderKey]string{
				logfile.InstantTime: string(ts(b.instant)), logfile.Schema: sj,
			}, Content: logfile.EncodeAvroDataBlock(recs)}
			if b.partial {
				lb.Header[logfile.IsPartial] = "true"
			}
		case b.dels != nil:
			content, err := logfile.EncodeDeleteBlock(b.dels)
			if err != nil {
				t.Fatal(err)
			}
			lb = &logfile.Block{Type: logfile.DeleteBlock, Header: map[logfile.HeaderKey]string{
				logfile.InstantTime: string(ts(b.instant)),
			}, Content: content}
		case b.rollback != 0:
			lb = &logfile.Block{Type: logfile.CommandBlock, Header: map[logfile.HeaderKey]string{
				logfile.InstantTime:       string(ts(b.instant)),
				logfile.TargetInstantTime: string(ts(b.rollback)),
				logfile.CommandBlockType:  logfile.RollbackCommand,
			}, Content: []byte{}}
		default:
			t.Fatalf("empty block spec %+v", b)
		}
		if _, err := logfile.EncodeBlock(&buf, lb); err != nil {
			t.Fatal(err)
		}
	}
	writeRaw(t, root, rel, buf.Bytes())
	ln, ok := spec.ParseLogFileName(name)
	if !ok {
		t.Fatalf("bad log name %s", name)
	}
	return fsview.LogFile{Name: ln, Path: rel, Size: int64(buf.Len())}
}

// corruptRegion is a byte region that starts with the magic but is not a valid block.
func corruptRegion() []byte {
	b := []byte(logfile.Magic)
	b = append(b, 0, 0, 0, 0, 0, 0, 0x10, 0) // a block size pointing nowhere sensible
	b = append(b, []byte("garbage garbage garbage garbage")...)
	return b
}

// ---- running a read ------------------------------------------------------------------

type readCase struct {
	name string
	// base rows (nil = log-only slice) and log files (each a list of blocks)
	base []row
	logs [][]blk
	// committed instants (log blocks); nil = every instant committed
	committed []int
	mode      merge.Mode
	ordering  string // default "ts"
	noOrder   bool
	baseOnly  bool
	columns   []string
	noMeta    bool
	keyFields []string
	partVals  map[string]string
	extra     []string // extra table fields (Avro field JSON)
	baseExtra bool     // base file written with the extra fields too
	// render lists the columns rendered per output row (default id,val,commit).
	render []string
	want   []string
	// wantErr: the read must fail with an error containing this text.
	wantErr string
	// spill sets a 1-byte log memory budget: every decoded log batch goes to the spill file.
	spill bool
	// prefetch decodes the base file on its own goroutine while the logs are scanned.
	prefetch bool
	// stats, if set, is the LogStats the read must count.
	stats *LogStats
}

func (c readCase) run(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	sc := tableSchema(t, c.extra...)
	fileSchema := sc
	if len(c.extra) > 0 && !c.baseExtra {
		fileSchema = tableSchema(t)
	}
	slice := fsview.FileSlice{Partition: partition, FileID: fileID, BaseInstant: ts(1)}
	if c.base != nil {
		rows := c.base
		if c.noMeta {
			rows = append([]row{}, rows...)
			for i := range rows {
				rows[i].noMeta = true
			}
		}
		slice.Base = writeBase(t, root, fileSchema, 1, rows)
	}
	for i, blocks := range c.logs {
		if c.noMeta {
			for bi := range blocks {
				for ri := range blocks[bi].data {
					blocks[bi].data[ri].noMeta = true
				}
			}
		}
		slice.Logs = append(slice.Logs, writeLog(t, root, 1, i+1, blocks))
	}
	committed := func(spec.InstantTime) bool { return true }
	if c.committed != nil {
		set := map[spec.InstantTime]bool{}
		for _, n := range c.committed {
			set[ts(n)] = true
		}
		committed = func(x spec.InstantTime) bool { return set[x] }
	}
	ordering := c.ordering
	if ordering == "" && !c.noOrder {
		ordering = "ts"
	}
	mem := memory.NewCheckedAllocator(poisonAllocator{memory.NewGoAllocator()})
	defer mem.AssertSize(t, 0)
	opts := Options{
		Schema:              sc,
		Columns:             c.columns,
		KeyFields:           c.keyFields,
		RecordKey:           recordKeyFunc(t, sc, c.keyFields),
		MetaFieldsPopulated: !c.noMeta,
		OrderingField:       ordering,
		Rules:               merge.Rules{Mode: c.mode},
		Committed:           committed,
		PartitionValues:     c.partVals,
		BaseOnly:            c.baseOnly,
		BatchSize:           2, // several batches per file
		Mem:                 mem,
		Logger:              slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if c.prefetch {
		opts.BasePrefetch = 1
	}
	if c.spill {
		opts.MaxLogMemory = 1
		opts.SpillDir = t.TempDir()
		defer func() {
			if left, _ := os.ReadDir(opts.SpillDir); len(left) > 0 {
				t.Errorf("spill files left behind: %v", left)
			}
		}()
	}
	render := c.render
	if render == nil {
		render = []string{"id", "val", schema.CommitTimeField}
	}
	wantCols := c.columns
	if wantCols == nil {
		for _, f := range sc.Fields() {
			wantCols = append(wantCols, f.Name)
		}
	}
	var stats LogStats
	opts.LogStats = &stats
	var got []string
	err := Read(context.Background(), local.New(root), slice, opts, func(rec arrow.Record) error {
		var names []string
		for _, f := range rec.Schema().Fields() {
			names = append(names, f.Name)
		}
		if !reflect.DeepEqual(names, wantCols) {
			t.Errorf("output columns %v, want %v", names, wantCols)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var parts []string
			for _, col := range render {
				idx := rec.Schema().FieldIndices(col)
				if len(idx) == 0 {
					t.Fatalf("rendered column %s not in output", col)
				}
				a := rec.Column(idx[0])
				if a.IsNull(i) {
					parts = append(parts, "null")
					continue
				}
				s := a.ValueStr(i)
				if col == schema.CommitTimeField {
					s = "@" + strings.TrimPrefix(s, tsPrefix)
				}
				parts = append(parts, s)
			}
			// Cloned: a single part is the Arrow buffer's own bytes (ValueStr does not
			// copy a string), which the reader frees after emit.
			got = append(got, strings.Clone(strings.Join(parts, " ")))
		}
		return nil
	})
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("error %v, want one containing %q", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if c.stats != nil && stats != *c.stats {
		t.Errorf("log stats %+v, want %+v", stats, *c.stats)
	}
	sort.Strings(got)
	want := append([]string{}, c.want...)
	sort.Strings(want)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
}

// poisonAllocator overwrites memory as it is freed. The Go allocator leaves freed bytes
// alone until the garbage collector reuses them, so a string still pointing into a
// released batch (array.String.Value does not copy) reads right in a test and wrong in
// production with another allocator, or after the spill file took the batch; poisoned,
// it reads wrong at once.
type poisonAllocator struct{ memory.Allocator }

func (p poisonAllocator) Free(b []byte) {
	for i := range b {
		b[i] = 0xa5
	}
	p.Allocator.Free(b)
}

// runCases runs every case three times: with the log records in memory, with all of them
// spilled to disk (the merge must not depend on where the records are kept), and with the
// base file decoded ahead on another goroutine.
func runCases(t *testing.T, cases []readCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, c.run)
		spilled := c
		spilled.spill = true
		t.Run(c.name+"/spilled", spilled.run)
		prefetched := c
		prefetched.prefetch = true
		t.Run(c.name+"/prefetched", prefetched.run)
	}
}

// base3 is the standard base file: ids 1..3, ordering 10, written by instant 1.
var base3 = []row{r(1, 10, "b1", 1), r(2, 10, "b2", 1), r(3, 10, "b3", 1)}

const (
	commitTime = merge.CommitTimeOrdering
	eventTime  = merge.EventTimeOrdering
)

func TestReadMergeBasics(t *testing.T) {
	updates := [][]blk{{dataBlock(2, r(1, 5, "u1", 2), r(2, 20, "u2", 2), r(3, 10, "u3", 2))}}
	runCases(t, []readCase{
		{
			name: "base only, no logs",
			base: base3,
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "update over base, commit time",
			base: base3, logs: updates, mode: commitTime,
			want: []string{"1 u1 @002", "2 u2 @002", "3 u3 @002"},
		},
		{
			name: "update over base, event time: greater base survives, tie goes to log",
			base: base3, logs: updates, mode: eventTime,
			want: []string{"1 b1 @001", "2 u2 @002", "3 u3 @002"},
		},
		{
			// The ordering value of a key seen in a batch that then spills is compared with
			// later records after the batch is freed: it must be a copy.
			name: "event time on a string ordering field across batches",
			base: base3, mode: eventTime, ordering: "val",
			logs: [][]blk{{dataBlock(2, r(1, 0, "c", 2), r(2, 0, "y", 2)), dataBlock(3, r(1, 0, "m", 3), r(2, 0, "d", 3))}},
			want: []string{"1 m @003", "2 y @002", "3 b3 @001"},
		},
		{
			name: "event time without ordering field behaves as commit time",
			base: base3, logs: updates, mode: eventTime, noOrder: true,
			want: []string{"1 u1 @002", "2 u2 @002", "3 u3 @002"},
		},
		{
			name: "insert via log",
			base: base3, logs: [][]blk{{dataBlock(2, r(4, 1, "i4", 2))}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @002"},
		},
		{
			name: "log-only slice",
			logs: [][]blk{{dataBlock(2, r(4, 1, "i4", 2), r(5, 1, "i5", 2)), delBlock(3, "5", int32(0))}, {dataBlock(4, r(4, 2, "u4", 4))}},
			want: []string{"4 u4 @004"},
		},
		{
			name: "BaseOnly ignores logs",
			base: base3, logs: updates, baseOnly: true,
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "BaseOnly with projection",
			base: base3, logs: updates, baseOnly: true, columns: []string{"val", "id"}, render: []string{"id", "val"},
			want: []string{"1 b1", "2 b2", "3 b3"},
		},
		{
			name: "projection while merging: key and ordering columns not emitted",
			base: base3, logs: updates, mode: eventTime, columns: []string{"val"}, render: []string{"val"},
			want: []string{"b1", "u2", "u3"},
		},
		{
			name: "projection with meta column only",
			base: base3, logs: [][]blk{{dataBlock(2, r(4, 1, "i4", 2))}}, columns: []string{schema.RecordKeyField}, render: []string{schema.RecordKeyField},
			want: []string{"1", "2", "3", "4"},
		},
		{
			name: "unknown column",
			base: base3, columns: []string{"nope"}, wantErr: "nope",
		},
		{
			// Hudi 1.x's partial-update blocks hold only some columns: refused, not merged
			// as whole records.
			name: "IS_PARTIAL block is refused",
			base: base3, logs: [][]blk{{blk{instant: 2, data: []row{r(1, 5, "u1", 2)}, partial: true}}},
			wantErr: "IS_PARTIAL=true",
		},
		{
			// The read stops while the base file may be being decoded ahead: nothing leaks.
			name: "log record without a key fails the read",
			base: base3, logs: [][]blk{{dataBlock(2, row{id: 4, ts: 1, val: "x", commit: ts(2), noMeta: true})}},
			wantErr: "null _hoodie_record_key",
		},
	})
}

func TestReadDeletes(t *testing.T) {
	runCases(t, []readCase{
		{
			name: "delete block removes base row",
			base: base3, logs: [][]blk{{delBlock(2, "2", int32(0))}},
			want: []string{"1 b1 @001", "3 b3 @001"},
		},
		{
			name: "delete with default ordering 0 always applies under event time",
			base: base3, mode: eventTime, logs: [][]blk{{delBlock(2, "2", int32(0))}},
			want: []string{"1 b1 @001", "3 b3 @001"},
		},
		{
			name: "delete with null ordering applies",
			base: base3, mode: eventTime, logs: [][]blk{{delBlock(2, "2", nil)}},
			want: []string{"1 b1 @001", "3 b3 @001"},
		},
		{
			name: "default-0 delete beats earlier log record under event time",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 50, "u1", 2)), delBlock(3, "1", int32(0))}},
			want: []string{"2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete with smaller real ordering loses to earlier log record under event time",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 50, "u1", 2)), delBlock(3, "1", int64(20))}},
			want: []string{"1 u1 @002", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete with smaller real ordering applies under commit time",
			base: base3, mode: commitTime,
			logs: [][]blk{{dataBlock(2, r(1, 50, "u1", 2)), delBlock(3, "1", int64(20))}},
			want: []string{"2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete with equal ordering applies under event time",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 50, "u1", 2)), delBlock(3, "1", int64(50))}},
			want: []string{"2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete with greater ordering applies under event time (across files)",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 50, "u1", 2))}, {delBlock(3, "1", int64(60))}},
			want: []string{"2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete with incomparable ordering applies",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 50, "u1", 2)), delBlock(3, "1", "zzz")}},
			want: []string{"2 b2 @001", "3 b3 @001"},
		},
		{
			name: "insert after default-0 delete re-inserts",
			base: base3, mode: eventTime,
			logs: [][]blk{{delBlock(2, "1", int32(0)), dataBlock(3, r(1, 11, "again", 3))}},
			want: []string{"1 again @003", "2 b2 @001", "3 b3 @001"},
		},
		{
			// As in Java (0.14 payloads and 1.x EventTimeRecordMerger): the re-insert replaces
			// the delete among the logs, then loses to the base record's greater ordering.
			name: "re-insert with smaller ordering after delete: base record resurfaces (event time)",
			base: base3, mode: eventTime,
			logs: [][]blk{{delBlock(2, "1", int32(0)), dataBlock(3, r(1, 1, "again", 3))}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete with greater real ordering beats a later smaller insert (event time)",
			base: base3, mode: eventTime,
			logs: [][]blk{{delBlock(2, "1", int64(50)), dataBlock(3, r(1, 20, "again", 3))}},
			want: []string{"2 b2 @001", "3 b3 @001"},
		},
		{
			name: "later insert beats a delete with real ordering under commit time",
			base: base3, mode: commitTime,
			logs: [][]blk{{delBlock(2, "1", int64(50)), dataBlock(3, r(1, 20, "again", 3))}},
			want: []string{"1 again @003", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete of an unknown key is a no-op",
			base: base3, logs: [][]blk{{delBlock(2, "99", int32(0))}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "_hoodie_is_deleted=true deletes (commit time)",
			base: base3, logs: [][]blk{{dataBlock(2, row{id: 2, ts: 5, val: "d", commit: ts(2), deleted: &yes}, row{id: 7, ts: 5, val: "d7", commit: ts(2), deleted: &yes})}},
			want: []string{"1 b1 @001", "3 b3 @001"},
		},
		{
			name: "_hoodie_is_deleted=true with greater ordering deletes (event time)",
			base: base3, mode: eventTime, logs: [][]blk{{dataBlock(2, row{id: 2, ts: 50, val: "d", commit: ts(2), deleted: &yes})}},
			want: []string{"1 b1 @001", "3 b3 @001"},
		},
		{
			name: "_hoodie_is_deleted=true with smaller ordering loses to base (event time)",
			base: base3, mode: eventTime, logs: [][]blk{{dataBlock(2, row{id: 2, ts: 5, val: "d", commit: ts(2), deleted: &yes})}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "_hoodie_is_deleted=false is an update",
			base: base3, logs: [][]blk{{dataBlock(2, row{id: 2, ts: 5, val: "nd", commit: ts(2), deleted: new(bool)})}},
			want: []string{"1 b1 @001", "2 nd @002", "3 b3 @001"},
		},
	})
}

// TestReadDeleteOrderingAgainstBase pins the choice for a delete-block record against the
// base file: it applies unconditionally, whatever its ordering value. In Java 0.14 the log
// scanner turns a delete into an empty payload, and an empty payload merged over the base
// record yields no record. UNVERIFIED for 1.x event-time mergers, which may keep a base
// record whose ordering value is greater (issue 4 revisits the merge rules).
func TestReadDeleteOrderingAgainstBase(t *testing.T) {
	runCases(t, []readCase{{
		name: "delete block applies against the base whatever its ordering (event time)",
		base: base3, mode: eventTime, logs: [][]blk{{delBlock(2, "2", int64(5))}},
		want: []string{"1 b1 @001", "3 b3 @001"},
	}})
}

func TestReadLogOrder(t *testing.T) {
	runCases(t, []readCase{
		{
			name: "later block wins, equal ordering (event time)",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 30, "a", 2)), dataBlock(3, r(1, 30, "b", 3))}},
			want: []string{"1 b @003", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "later file wins, equal ordering (event time)",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 30, "a", 2))}, {dataBlock(3, r(1, 30, "b", 3))}},
			want: []string{"1 b @003", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "earlier block with greater ordering wins under event time",
			base: base3, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 40, "a", 2)), dataBlock(3, r(1, 30, "b", 3))}},
			want: []string{"1 a @002", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "later block wins under commit time",
			base: base3, mode: commitTime,
			logs: [][]blk{{dataBlock(2, r(1, 40, "a", 2)), dataBlock(3, r(1, 30, "b", 3))}},
			want: []string{"1 b @003", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "duplicate key within one block: later record wins",
			base: base3, mode: commitTime,
			logs: [][]blk{{dataBlock(2, r(1, 40, "a", 2), r(1, 40, "b", 2))}},
			want: []string{"1 b @002", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "event-time winner among logs then compared with base",
			base: []row{r(1, 100, "b1", 1)}, mode: eventTime,
			logs: [][]blk{{dataBlock(2, r(1, 40, "a", 2)), dataBlock(3, r(1, 30, "b", 3))}},
			want: []string{"1 b1 @001"},
		},
	})
}

func TestReadRollbackAndVisibility(t *testing.T) {
	runCases(t, []readCase{
		{
			name: "rollback command block removes the target instant's blocks",
			base: base3,
			logs: [][]blk{
				{dataBlock(2, r(1, 20, "rolled", 2), r(8, 1, "rolled8", 2))},
				{rollbackBlock(4, 2)},
				{dataBlock(5, r(5, 1, "i5", 5))},
			},
			committed: []int{1, 2, 5}, // the rollback instant is no data instant
			want:      []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "5 i5 @005"},
			// Records of committed data and delete blocks are counted, rolled back or not.
			stats: &LogStats{Blocks: 3, RollbackBlocks: 1, Records: 3, MergedKeys: 1, Inserted: 1},
		},
		{
			name: "rollback removes a delete block of the target",
			base: base3,
			logs: [][]blk{{delBlock(2, "1", int32(0)), dataBlock(3, r(4, 1, "i4", 3)), rollbackBlock(4, 2)}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @003"},
		},
		{
			name: "rollback of another instant keeps blocks",
			base: base3,
			logs: [][]blk{{dataBlock(2, r(4, 1, "i4", 2)), rollbackBlock(4, 3)}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @002"},
		},
		{
			name:      "blocks of uncommitted instants ignored",
			base:      base3,
			logs:      [][]blk{{dataBlock(2, r(1, 20, "inflight", 2)), delBlock(3, "2", int32(0)), dataBlock(4, r(4, 1, "i4", 4))}},
			committed: []int{1, 4},
			want:      []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @004"},
			stats:     &LogStats{Blocks: 3, Records: 1, MergedKeys: 1, Inserted: 1},
		},
		{
			name:  "corrupt bytes between blocks are skipped",
			base:  base3,
			logs:  [][]blk{{dataBlock(2, r(4, 1, "i4", 2)), {raw: corruptRegion()}, dataBlock(3, r(5, 1, "i5", 3)), {raw: corruptRegion()}, delBlock(4, "1", int32(0))}},
			want:  []string{"2 b2 @001", "3 b3 @001", "4 i4 @002", "5 i5 @003"},
			stats: &LogStats{Blocks: 5, CorruptBlocks: 2, Records: 3, MergedKeys: 3, Deleted: 1, Inserted: 2},
		},
		{
			// Java's isBlockCorrupted requires a magic (or EOF) right after a block: a sound
			// block followed by garbage is itself skipped; the next block still applies.
			name: "block followed by non-magic bytes is corrupt",
			base: base3,
			logs: [][]blk{{dataBlock(2, r(4, 1, "i4", 2)), dataBlock(3, r(5, 1, "i5", 3)), {raw: []byte("no magic here")}, delBlock(4, "1", int32(0))}},
			want: []string{"2 b2 @001", "3 b3 @001", "4 i4 @002"},
		},
		{
			name: "empty log file",
			base: base3,
			logs: [][]blk{{}, {dataBlock(2, r(4, 1, "i4", 2))}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @002"},
		},
		{
			name: "garbage at the start of a log file",
			base: base3,
			logs: [][]blk{{{raw: []byte("junk")}, dataBlock(2, r(4, 1, "i4", 2))}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @002"},
		},
		{
			name: "truncated last block is skipped",
			base: base3,
			logs: [][]blk{{dataBlock(2, r(4, 1, "i4", 2)), {raw: corruptRegion()[:10]}}, {dataBlock(3, r(5, 1, "i5", 3))}},
			want: []string{"1 b1 @001", "2 b2 @001", "3 b3 @001", "4 i4 @002", "5 i5 @003"},
		},
	})
}

func TestReadDuplicateBaseKeys(t *testing.T) {
	dup := []row{r(1, 10, "b1a", 1), r(2, 10, "b2", 1), r(1, 10, "b1b", 1), r(3, 10, "b3", 1), r(1, 10, "b1c", 1)}
	runCases(t, []readCase{
		{
			name: "log update replaces only the first duplicate",
			base: dup, logs: [][]blk{{dataBlock(2, r(1, 20, "u1", 2))}},
			want: []string{"1 u1 @002", "1 b1b @001", "1 b1c @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "delete removes only the first duplicate",
			base: dup, logs: [][]blk{{delBlock(2, "1", int32(0))}},
			want: []string{"1 b1b @001", "1 b1c @001", "2 b2 @001", "3 b3 @001"},
		},
		{
			name: "event time: base wins on the first duplicate, log not emitted",
			base: dup, mode: eventTime, logs: [][]blk{{dataBlock(2, r(1, 5, "u1", 2))}},
			want: []string{"1 b1a @001", "1 b1b @001", "1 b1c @001", "2 b2 @001", "3 b3 @001"},
		},
	})
}

// recordKeyFunc builds keys the way the reader does for tables without meta fields: with
// the key generator Java would infer for these fields on a non-partitioned table.
func recordKeyFunc(t *testing.T, sc *arrow.Schema, fields []string) func(arrow.Record, int) (string, error) {
	t.Helper()
	if len(fields) == 0 {
		return nil
	}
	gen, err := keygen.New(keygen.Options{RecordKeyFields: fields}, sc)
	if err != nil {
		t.Fatal(err)
	}
	return gen.RecordKey
}

func TestReadWithoutMetaFields(t *testing.T) {
	simple := []string{"id"}
	complexKG := []string{"id", "ts"}
	runCases(t, []readCase{
		{
			name: "simple key from id",
			base: base3, noMeta: true, keyFields: simple,
			logs:   [][]blk{{dataBlock(2, r(1, 20, "u1", 2), r(4, 1, "i4", 2)), delBlock(3, "2", int32(0))}},
			render: []string{"id", "val", schema.RecordKeyField},
			want:   []string{"1 u1 null", "3 b3 null", "4 i4 null"},
		},
		{
			name: "complex key from id and ts",
			base: base3, noMeta: true, keyFields: complexKG,
			logs:   [][]blk{{dataBlock(2, r(1, 10, "u1", 2), r(2, 11, "i2", 2)), delBlock(3, "id:3,ts:10", int32(0))}},
			render: []string{"id", "ts", "val"},
			want:   []string{"1 10 u1", "2 10 b2", "2 11 i2"},
		},
		{
			name: "projection without the key field",
			base: base3, noMeta: true, keyFields: simple, columns: []string{"val"},
			logs:   [][]blk{{dataBlock(2, r(1, 20, "u1", 2))}},
			render: []string{"val"},
			want:   []string{"u1", "b2", "b3"},
		},
	})
}

func TestReadPartitionValues(t *testing.T) {
	partField := `{"name":"part","type":["null","string"],"default":null}`
	numField := `{"name":"pnum","type":["null","int"],"default":null}`
	runCases(t, []readCase{
		{
			name: "base rows get partition values for absent columns",
			base: base3, extra: []string{partField, numField},
			partVals: map[string]string{"part": "x=1", "pnum": "42"},
			render:   []string{"id", "part", "pnum"},
			want:     []string{"1 x=1 42", "2 x=1 42", "3 x=1 42"},
		},
		{
			name: "stored partition column is not overwritten",
			base: base3, extra: []string{partField}, baseExtra: true,
			partVals: map[string]string{"part": "x=1"},
			render:   []string{"id", "part"},
			want:     []string{"1 stored1", "2 stored2", "3 stored3"},
		},
		{
			name: "projection of the partition column only",
			base: base3, extra: []string{partField},
			partVals: map[string]string{"part": "x=1"}, columns: []string{"part"},
			render: []string{"part"},
			want:   []string{"x=1", "x=1", "x=1"},
		},
		{
			name: "default partition is null",
			base: base3, extra: []string{numField},
			partVals: map[string]string{"pnum": "__HIVE_DEFAULT_PARTITION__"},
			render:   []string{"id", "pnum"},
			want:     []string{"1 null", "2 null", "3 null"},
		},
	})
}

// TestReadPartitionValuesLogRecords: log records of a table whose data files lack the
// partition column must get the partition value too, like base rows.
func TestReadPartitionValuesLogRecords(t *testing.T) {
	partField := `{"name":"part","type":["null","string"],"default":null}`
	runCases(t, []readCase{{
		name: "log rows get partition values",
		base: base3, extra: []string{partField},
		partVals: map[string]string{"part": "x=1"},
		logs:     [][]blk{{dataBlock(2, r(1, 20, "u1", 2), r(4, 1, "i4", 2))}},
		render:   []string{"id", "val", "part"},
		want:     []string{"1 u1 x=1", "2 b2 x=1", "3 b3 x=1", "4 i4 x=1"},
	}})
}

// TestReadSchemaEvolution: a log block written with an older schema (no val column) reads
// val as null; a block with an extra unknown field ignores it.
func TestReadSchemaEvolution(t *testing.T) {
	old := strings.Replace(avroSchemaJSON(), `{"name":"val","type":["null","string"],"default":null},`, "", 1)
	newer := avroSchemaJSON(`{"name":"added","type":["null","string"],"default":null}`)
	b1 := dataBlock(2, r(1, 20, "ignored", 2))
	b1.schema = old
	b2 := dataBlock(3, r(4, 1, "i4", 3))
	b2.schema = newer
	b2.extra = map[string]any{"added": "zz"}
	runCases(t, []readCase{{
		name: "older and newer writer schemas",
		base: base3, logs: [][]blk{{b1, b2}},
		want: []string{"1 null @002", "2 b2 @001", "3 b3 @001", "4 i4 @003"},
	}})
}

func TestReadErrors(t *testing.T) {
	noSchema := dataBlock(2, r(1, 1, "x", 2))
	runCases(t, []readCase{
		{
			name: "log-only slice, single record",
			base: nil, logs: [][]blk{{noSchema}},
			want: []string{"1 x @002"},
		},
	})
	// A missing base file is an error.
	root := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	slice := fsview.FileSlice{Partition: partition, FileID: fileID, BaseInstant: ts(1),
		Base: &fsview.BaseFile{Path: partition + "/" + baseFileName(1)}}
	err := Read(context.Background(), local.New(root), slice, Options{Schema: tableSchema(t), MetaFieldsPopulated: true, Mem: mem,
		Committed: func(spec.InstantTime) bool { return true }}, func(arrow.Record) error { return nil })
	if err == nil {
		t.Error("reading a missing base file succeeded")
	}
	// An error from emit stops the read and is returned.
	writeBase(t, root, tableSchema(t), 1, base3)
	stop := fmt.Errorf("stop")
	err = Read(context.Background(), local.New(root), slice, Options{Schema: tableSchema(t), MetaFieldsPopulated: true, Mem: mem,
		Committed: func(spec.InstantTime) bool { return true }}, func(arrow.Record) error { return stop })
	if err != stop {
		t.Errorf("emit error: got %v", err)
	}
}
