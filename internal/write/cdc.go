package write

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/javastr"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write/index"
	"github.com/hudi-go/hudi/storage"
)

// Change-data capture (hoodie.table.cdc.enabled=true). A merge that rewrites a file group's
// base file logs each record it changes — an update (before and after image), a delete
// (before) or an insert of a new key (after) — and writes them as one CDC log file next to
// the new base file, listed in the write stat's cdcStats: Java's
// HoodieMergeHandleWithChangeLog and HoodieCDCLogger (0.14). New file groups
// (HoodieCreateHandle) and log appends get no CDC file: CDC queries read their changes
// from the base file and the log file themselves.

// cdcSettings is what CDC-logging merges share; nil when the table logs no changes.
type cdcSettings struct {
	mode cdc.Mode
	// schema is the CDC_DATA_BLOCK's SCHEMA header: the records' schema for the table's
	// write schema without meta fields.
	schema string
	// enc encodes a row's data columns (the write schema, no meta fields) as the Avro
	// record the images embed; nil for OP_KEY_ONLY, which logs no images.
	enc *avroRowEncoder
	// blockMax is hoodie.logfile.data.block.max.size (0: no limit).
	blockMax int64
}

// newCDCSettings returns the CDC settings of a write of dataAvro (the write schema's Avro,
// no meta fields) whose rows have schema out, or nil when the table has CDC off.
func newCDCSettings(enabled bool, mode cdc.Mode, dataAvro string, out *arrow.Schema, blockMax int64) (*cdcSettings, error) {
	if !enabled {
		return nil, nil
	}
	s, err := cdc.Schema(mode, dataAvro)
	if err != nil {
		return nil, err
	}
	c := &cdcSettings{mode: mode, schema: s, blockMax: blockMax}
	if mode != cdc.OpKeyOnly {
		if c.enc, err = newAvroRowEncoder(dataAvro, out); err != nil {
			return nil, fmt.Errorf("CDC images: %w", err)
		}
	}
	return c, nil
}

// cdcLogger collects one merge's changes, keyed by record key (HoodieCDCLogger.cdcData).
type cdcLogger struct {
	s       *cdcSettings
	entries []cdcEntry
	index   map[string]int
}

type cdcEntry struct {
	key                 string
	hasBefore, hasAfter bool
	before, after       []byte // Avro datums of the images, when the mode logs them
	fixed               cdc.Op // set by add: the op, not derived from the images seen
}

func (s *cdcSettings) logger() *cdcLogger {
	if s == nil {
		return nil
	}
	return &cdcLogger{s: s, index: map[string]int{}}
}

func (l *cdcLogger) entry(key string) *cdcEntry {
	i, ok := l.index[key]
	if !ok {
		i = len(l.entries)
		key = strings.Clone(key) // the caller's may alias a batch's buffers, reused later
		l.index[key] = i
		l.entries = append(l.entries, cdcEntry{key: key})
	}
	return &l.entries[i]
}

// before records that the stored row i of rec (the output schema) is replaced or deleted.
func (l *cdcLogger) before(key string, rec arrow.Record, i int) error {
	if l == nil {
		return nil
	}
	e := l.entry(key)
	e.hasBefore = true
	if l.s.mode.StoresBefore() {
		b, err := l.s.enc.appendRecord(nil, rec, i)
		if err != nil {
			return fmt.Errorf("CDC before image of %q: %w", key, err)
		}
		e.before = b
	}
	return nil
}

// after records the rows written for updated and inserted keys (the output schema, the
// record key in _hoodie_record_key).
func (l *cdcLogger) after(rows []arrow.Record) error {
	if l == nil {
		return nil
	}
	for _, rec := range rows {
		keys := rec.Column(2).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			key := keys.Value(i)
			e := l.entry(key)
			e.hasAfter = true
			if l.s.mode.StoresAfter() {
				b, err := l.s.enc.appendRecord(nil, rec, i)
				if err != nil {
					return fmt.Errorf("CDC after image of %q: %w", key, err)
				}
				e.after = b
			}
		}
	}
	return nil
}

// op is the change an entry logs.
func (e *cdcEntry) op() cdc.Op {
	switch {
	case e.fixed != 0:
		return e.fixed
	case e.hasBefore && e.hasAfter:
		return cdc.Update
	case e.hasBefore:
		return cdc.Delete
	}
	return cdc.Insert
}

// write writes the collected changes as the CDC log file of the file group's new slice,
// ".<fileId>_<instant>.log.1_<token>-cdc", under a CREATE marker so that a rollback of the
// instant deletes it, and returns cdcStats ({partition/name: size}); nil when there is
// nothing to log.
//
// The records are written in the iteration order of Java's java.util.HashMap keyed by
// record key (HoodieCDCLogger keeps them in an ExternalSpillableMap), and a new block is
// started when the block's records reach hoodie.logfile.data.block.max.size by the size of
// its first record (HoodieCDCLogger.flushIfNeeded, which estimates JVM object sizes instead:
// blocks are cut at about, not exactly, Java's points).
func (l *cdcLogger) write(ctx context.Context, env *writeEnv, partition string, fileID spec.FileID, task int) (map[string]int64, error) {
	return l.writeTo(ctx, env.st, env.txn, partition, fileID, task)
}

func (l *cdcLogger) writeTo(ctx context.Context, st storage.Storage, txn *commit.Txn, partition string, fileID spec.FileID, task int) (map[string]int64, error) {
	if l == nil || len(l.entries) == 0 {
		return nil, nil
	}
	instant := string(txn.Instant)
	header := map[logfile.HeaderKey]string{logfile.InstantTime: instant, logfile.Schema: l.s.schema}
	var file []byte
	hm := javastr.NewHashMap()
	var pending []int // entries of the open block, in put order
	var first int64   // size of the open block's first record
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		var bb logfile.AvroDataBlockBuilder
		for _, k := range hm.Order() {
			e := &l.entries[pending[k]]
			key := e.key
			if l.s.mode == cdc.DataBeforeAfter {
				key = instant // ts_ms
			}
			dst := cdc.AppendRecord(bb.StartRecord(), l.s.mode, e.op(), key, e.before, e.after)
			if err := bb.EndRecord(dst); err != nil {
				return err
			}
		}
		content, err := bb.Content()
		if err != nil {
			return err
		}
		if file, err = logfile.AppendBlock(file, &logfile.Block{Type: logfile.CDCDataBlock, Header: header, Content: content}); err != nil {
			return err
		}
		hm.Clear() // Java clears the map, keeping its table
		pending = pending[:0]
		return nil
	}
	for i := range l.entries {
		e := &l.entries[i]
		size := int64(len(e.key) + len(e.before) + len(e.after) + 8)
		if len(pending) > 0 && l.s.blockMax > 0 && int64(len(pending))*first >= l.s.blockMax {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if len(pending) == 0 {
			first = size
		}
		hm.Put(e.key, javastr.HashCode(e.key))
		pending = append(pending, i)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	name := spec.LogFileName{FileID: fileID, Instant: txn.Instant, Extension: "log", Version: 1,
		WriteToken: token(task), CDCSuffix: spec.CDCSuffix014}.String()
	if err := txn.Marker(ctx, partition, name, commit.IOCreate); err != nil {
		return nil, err
	}
	p := storage.Join(partition, name)
	if err := writeNew(ctx, st, p, file); err != nil {
		return nil, fmt.Errorf("CDC log file %s: %w", p, err)
	}
	rel := name
	if partition != "" {
		rel = path.Join(partition, name)
	}
	return map[string]int64{rel: int64(len(file))}, nil
}

// cdcWritten reports whether Java writes a merge's CDC file: not when the new base file
// holds no record (every stored record deleted, nothing inserted) nor when it holds only
// inserts (HoodieMergeHandleWithChangeLog.close); CDC queries infer those from the base
// files.
func cdcWritten(numWrites, numInserts int64) bool {
	return numWrites != 0 && numWrites != numInserts
}

// tableCDCSettings is newCDCSettings for t's CDC configuration.
func tableCDCSettings(t *table.Table, dataAvro string, out *arrow.Schema, blockMax int64) (*cdcSettings, error) {
	if !t.Config.CDCEnabled() {
		return nil, nil
	}
	mode, err := t.Config.CDCMode()
	if err != nil {
		return nil, err
	}
	return newCDCSettings(true, mode, dataAvro, out, blockMax)
}

// ChangeLog logs the changes a compaction makes to one file group into a CDC log file, as
// Java does when it compacts with HoodieMergeHandleWithChangeLog: on a table with CDC on
// whose writer yields pure log files (HoodieMergeHandleFactory with
// HoodieWriteConfig.isYieldingPureLogForMor: the BUCKET index), where inserts reach the
// logs too and the changes are known only when compacted. CDC queries (Spark's) do not read
// a compaction's CDC files; they infer the changes of the deltacommits from their logs.
type ChangeLog struct {
	l         *cdcLogger
	st        storage.Storage
	txn       *commit.Txn
	partition string
	fileID    spec.FileID
	task      int
}

// NewChangeLog returns the change log of a compaction of one file group into a base file
// of schema full (meta fields + dataAvro's columns) under txn, or nil when the compaction
// logs no changes: CDC off, or an index other than BUCKET (indexType, hoodie.index.type).
func NewChangeLog(t *table.Table, indexType index.Type, dataAvro string, full *arrow.Schema, blockMax int64, st storage.Storage, txn *commit.Txn,
	partition string, fileID spec.FileID, task int) (*ChangeLog, error) {
	if typ, err := index.ParseType(string(indexType)); err != nil || typ != index.TypeBucket {
		return nil, nil
	}
	s, err := tableCDCSettings(t, dataAvro, full, blockMax)
	if err != nil || s == nil {
		return nil, err
	}
	return &ChangeLog{l: s.logger(), st: st, txn: txn, partition: partition, fileID: fileID, task: task}, nil
}

// BeforeImage encodes row i of rec (schema full) as a before image; nil when the mode
// stores none.
func (c *ChangeLog) BeforeImage(rec arrow.Record, i int) ([]byte, error) {
	if !c.l.s.mode.StoresBefore() {
		return nil, nil
	}
	return c.l.s.enc.appendRecord(nil, rec, i)
}

// AfterImage encodes row i of rec as an after image; nil when the mode stores none.
func (c *ChangeLog) AfterImage(rec arrow.Record, i int) ([]byte, error) {
	if !c.l.s.mode.StoresAfter() {
		return nil, nil
	}
	return c.l.s.enc.appendRecord(nil, rec, i)
}

// Add logs one change, in the order HoodieCDCLogger receives them: updates and deletes in
// the base file's order, then inserts.
func (c *ChangeLog) Add(op cdc.Op, key string, before, after []byte) {
	e := c.l.entry(key)
	e.fixed, e.before, e.after = op, before, after
}

// Write writes the CDC log file unless Java would not (cdcWritten) and returns the write
// stat's cdcStats.
func (c *ChangeLog) Write(ctx context.Context, numWrites, numInserts int64) (map[string]int64, error) {
	if !cdcWritten(numWrites, numInserts) {
		return nil, nil
	}
	return c.l.writeTo(ctx, c.st, c.txn, c.partition, c.fileID, c.task)
}
