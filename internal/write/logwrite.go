package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/write/index"
	"github.com/hudi-go/hudi/storage"
)

// Merge-on-read writes (table version 6): updates and deletes of stored keys are appended
// to the file group as a new log file — never appended to an existing one — holding a
// data block (updates, soft deletes: AVRO_DATA_BLOCK, or PARQUET_DATA_BLOCK with
// hoodie.logfile.data.block.format=parquet) and a DELETE_BLOCK (hard deletes), as Java's
// HoodieAppendHandle does. Inserts go to new base files exactly as for copy-on-write,
// except with the bucket index, whose existing buckets take new keys in their logs too.

// checkMORView refuses tables whose latest slices hold records only in log files (written
// by a Java index that indexes log files, or inserts routed to logs): the index reads base
// files only and would miss their keys.
func checkMORView(w *writer) error {
	if _, bucket := w.o.index.(*index.Bucket); !w.mor || bucket {
		return nil // the bucket index needs no lookup: a log-only bucket group is fine
	}
	for _, g := range w.view.Groups {
		if sl := g.Latest(); sl != nil && sl.Base == nil {
			return fmt.Errorf("file group %s/%s has log files but no base file: merge-on-read writes to such tables are %w",
				g.Partition, g.FileID, ErrUnsupported)
		}
	}
	return nil
}

// rowEncoder returns the env's Avro row encoder, built on first use.
func (e *writeEnv) rowEncoder() (*avroRowEncoder, error) {
	e.encOnce.Do(func() {
		e.enc, e.encErr = newAvroRowEncoder(e.avroWithMeta, e.outSchema)
	})
	return e.enc, e.encErr
}

// logBlock is one block of a deltacommit's log output with the record counts it carries.
type logBlock struct {
	block                    *logfile.Block
	writes, updated, deleted int64
}

// appendLog writes one file group's updates and deletes as new log files of its latest
// slice and returns their write stats (HoodieDeltaWriteStat), one per log file. Data
// records are cut into blocks of about hoodie.logfile.data.block.max.size, and a log file
// rolls over to the next version once it reaches hoodie.logfile.max.size — Java's append
// handle flushes a block per estimated block size and starts a new write stat for each
// file its writer rolls over to.
func (w *writer) appendLog(ctx context.Context, env *writeEnv, j *mergeJob, task int) ([]commitmeta.WriteStat, error) {
	start := time.Now()
	sl := j.slice
	var data []incoming
	var dels []logfile.DeleteRecord
	for _, r := range append(j.changes, j.inserts...) {
		switch {
		case r.hardDelete:
			// The delete operation: EmptyHoodieRecordPayload's ordering value, Integer 0,
			// which the log scanner and the payloads treat as unconditional.
			dels = append(dels, logfile.DeleteRecord{RecordKey: r.key, PartitionPath: r.partition, OrderingValue: int32(0)})
		case r.softDelete:
			// _hoodie_is_deleted=true: Java's append handle writes no data record for a
			// record whose payload is a delete, but a DeleteRecord with the record's own
			// ordering value (HoodieAppendHandle.bufferRecord/prepareRecord), so that the
			// log scanner can ignore it against an earlier log record with a greater one.
			ov, err := w.deleteOrderingValue(r)
			if err != nil {
				return nil, fmt.Errorf("soft delete of %q in %s/%s: %w", r.key, sl.Partition, sl.FileID, err)
			}
			dels = append(dels, logfile.DeleteRecord{RecordKey: r.key, PartitionPath: r.partition, OrderingValue: ov})
		default:
			data = append(data, r)
		}
	}
	instant := string(env.txn.Instant)
	header := map[logfile.HeaderKey]string{logfile.InstantTime: instant, logfile.Schema: env.avroWithMeta}
	var blocks []logBlock
	perBlock := len(data)
	if limit := env.opts.LogDataBlockMaxSize; limit > 0 && len(data) > 0 {
		perBlock = int(min(int64(len(data)), max(1, limit/w.in.estimatedRecordBytes())))
	}
	var seq int64
	// Log records name their file group in _hoodie_file_name; with virtual keys Java's
	// append handle fills no meta field at all (populateMetadataFields), so it is null.
	logFileName := string(sl.FileID)
	if env.virtualKeys {
		logFileName = ""
	}
	for from := 0; from < len(data); from += perBlock {
		chunk := data[from:min(from+perBlock, len(data))]
		rows, err := env.newRows(ctx, w.in, chunk, sl.Partition, logFileName, task, &seq, nil)
		if err != nil {
			return nil, err
		}
		block, err := env.dataBlock(rows, header)
		releaseRecords(rows)
		if err != nil {
			return nil, fmt.Errorf("log records of %s/%s: %w", sl.Partition, sl.FileID, err)
		}
		blocks = append(blocks, logBlock{block: block, writes: int64(len(chunk)), updated: int64(len(chunk))})
	}
	if len(dels) > 0 {
		content, err := logfile.EncodeDeleteBlock(dels)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, logBlock{block: &logfile.Block{Type: logfile.DeleteBlock, Header: header, Content: content}, deleted: int64(len(dels))})
	}

	// The slice the logs extend: the latest one, or the one a pending compaction starts.
	base, baseFile := sl.BaseInstant, ""
	if sl.Base != nil {
		baseFile = sl.Base.Name.String()
	}
	if c, ok := w.pendingCompaction[sl.Partition+"/"+string(sl.FileID)]; ok {
		base, baseFile = c, ""
	}
	version := 0
	var known []string
	if w.t.Timeline.Layout.LogFilesPerWrite() {
		// Hudi 1.x: the log files are this deltacommit's own, named by its instant from
		// version 1 on; the stat's prevCommit is the deltacommit itself, baseFile empty and
		// logFiles only the file written (as Spark writes them in trips-mor-avro/v8_trips_8i3u1d).
		// The reader places them in a slice by the deltacommit's completion time.
		base, baseFile = env.txn.Instant, ""
	} else {
		for _, l := range sl.Logs {
			if l.Name.Instant == base {
				version = max(version, l.Name.Version)
				known = append(known, l.Name.String())
			}
		}
	}
	var stats []commitmeta.WriteStat
	var buf []byte
	var counts logBlock
	flush := func() error {
		var name spec.LogFileName
		var p string
		for attempt := 0; ; attempt++ {
			version++
			name = spec.LogFileName{FileID: sl.FileID, Instant: base, Extension: "log", Version: version, WriteToken: token(task)}
			if err := env.txn.Marker(ctx, sl.Partition, name.String(), commit.IOAppend); err != nil {
				return err
			}
			p = storage.Join(sl.Partition, name.String())
			err := writeNew(ctx, env.st, p, buf)
			if err == nil {
				break
			}
			// A log file of that version exists (written since the view was built, or
			// unlisted): roll over to the next version, as Java does, never appending.
			if !errors.Is(err, storage.ErrExist) || attempt >= 100 {
				return fmt.Errorf("log file %s: %w", p, err)
			}
		}
		known = append(known, name.String())
		size := int64(len(buf))
		stats = append(stats, commitmeta.WriteStat{
			FileID:          string(sl.FileID),
			Path:            p,
			PrevCommit:      string(base),
			NumWrites:       counts.writes,
			NumDeletes:      counts.deleted,
			NumUpdateWrites: counts.updated,
			TotalWriteBytes: size,
			PartitionPath:   sl.Partition,
			FileSizeInBytes: size,
			RuntimeStats:    &commitmeta.RuntimeStats{TotalUpsertTime: time.Since(start).Milliseconds()},
			LogVersion:      int32(version),
			LogOffset:       0,
			BaseFile:        baseFile,
			LogFiles:        append([]string(nil), known...),
		})
		buf, counts = nil, logBlock{}
		return nil
	}
	for i, b := range blocks {
		var err error
		if buf, err = logfile.AppendBlock(buf, b.block); err != nil {
			return nil, err
		}
		counts.writes += b.writes
		counts.updated += b.updated
		counts.deleted += b.deleted
		last := i == len(blocks)-1
		if last || (env.opts.LogFileMaxSize > 0 && int64(len(buf)) >= env.opts.LogFileMaxSize) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	return stats, nil
}

// writeNew creates p (failing with storage.ErrExist if it exists) with body.
func writeNew(ctx context.Context, st storage.Storage, p string, body []byte) error {
	out, err := st.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := out.Write(body); err != nil {
		_ = storage.Abort(out) // publish no truncated log file
		return err
	}
	return out.Close()
}

// maxDataBlockPrealloc bounds the content dataBlock reserves up front from its first record.
const maxDataBlockPrealloc = 64 << 20

// dataBlock encodes rows (output schema, meta fields filled) as the data block
// hoodie.logfile.data.block.format asks for: an AVRO_DATA_BLOCK of Avro binary records, or
// a PARQUET_DATA_BLOCK whose content is a whole Parquet file written like a base file
// through parquet-avro (Java's HoodieParquetDataBlock: the write's compression codec, the
// parquet.avro.schema footer, no bloom filter or key range).
func (e *writeEnv) dataBlock(rows []arrow.Record, header map[logfile.HeaderKey]string) (*logfile.Block, error) {
	switch strings.ToLower(e.opts.LogDataBlockFormat) {
	case "", "avro":
		enc, err := e.rowEncoder()
		if err != nil {
			return nil, err
		}
		// Records are encoded in place into the block content: no slice per record.
		var bb logfile.AvroDataBlockBuilder
		total := 0
		for _, rec := range rows {
			total += int(rec.NumRows())
		}
		done := 0
		for _, rec := range rows {
			for i := 0; i < int(rec.NumRows()); i++ {
				dst, err := enc.appendRecord(bb.StartRecord(), rec, i)
				if err != nil {
					return nil, err
				}
				if err := bb.EndRecord(dst); err != nil {
					return nil, err
				}
				if done++; done == 1 && total > 1 {
					// The first record's size sizes the block: one allocation, not log₂(n).
					// Capped, so that one outsized first record cannot reserve far more
					// than the block will hold; append's doubling takes over past that.
					bb.Grow(min((bb.Len()-8)*(total-1)*9/8, maxDataBlockPrealloc))
				}
			}
		}
		content, err := bb.Content()
		if err != nil {
			return nil, err
		}
		return &logfile.Block{Type: logfile.AvroDataBlock, Header: header, Content: content}, nil
	case "parquet":
		var out bytes.Buffer
		pw, err := parquet.NewWriter(&out, e.outSchema, parquet.WriterOptions{
			Compression: e.opts.Compression,
			PageSize:    e.opts.PageSize,
			BlockSize:   e.opts.BlockSize,
			Dictionary:  *e.opts.Dictionary,
			KeyValue:    map[string]string{parquet.KeyAvroSchema: e.avroWithMeta, "writer.model.name": "avro"},
		})
		if err != nil {
			return nil, err
		}
		for _, rec := range rows {
			if err := pw.Write(rec); err != nil {
				pw.Close()
				return nil, fmt.Errorf("parquet data block: %w", err)
			}
		}
		if err := pw.Close(); err != nil {
			return nil, fmt.Errorf("parquet data block: %w", err)
		}
		return &logfile.Block{Type: logfile.ParquetDataBlock, Header: header, Content: out.Bytes()}, nil
	}
	return nil, fmt.Errorf("hoodie.logfile.data.block.format %q is %w (avro and parquet are)", e.opts.LogDataBlockFormat, ErrUnsupported)
}

// deleteOrderingValue is the ordering value a soft delete carries into a DELETE_BLOCK,
// typed as Java holds the payload's ordering value (read from the Avro record with
// HoodieAvroUtils.getNestedFieldVal, consistentLogicalTimestampEnabled=false) so that it
// selects the same wrapper of the delete record's union: int → IntWrapper, long and
// timestamps → LongWrapper, date → DateWrapper, decimal → DecimalWrapper, and so on.
// Without an ordering field the payload has Java's default, Integer 0.
func (w *writer) deleteOrderingValue(r incoming) (any, error) {
	if w.in.ordIdx < 0 {
		return int32(0), nil
	}
	col := w.in.batches[r.batch].Column(w.in.ordIdx)
	i := int(r.row)
	if col.IsNull(i) {
		return nil, nil
	}
	switch a := col.(type) {
	case *array.Int8:
		return int32(a.Value(i)), nil
	case *array.Int16:
		return int32(a.Value(i)), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return strings.Clone(a.Value(i)), nil
	case *array.Binary:
		return bytes.Clone(a.Value(i)), nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Date32:
		return logfile.DateValue(a.Value(i)), nil
	case *array.Timestamp:
		return int64(a.Value(i)), nil
	case *array.Decimal128:
		// UNVERIFIED: DecimalWrapper is decimal(30,15); we rescale the value to scale 15 as
		// Avro's decimal conversion needs (not checked against Java's wrapValueIntoAvro).
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		n, err := a.Value(i).Rescale(scale, logfile.DecimalWrapperScale)
		if err != nil {
			return nil, fmt.Errorf("ordering value %s at scale %d: %w", a.Value(i).ToString(scale), logfile.DecimalWrapperScale, err)
		}
		return logfile.NewDecimalValue(n.BigInt()), nil
	}
	return nil, fmt.Errorf("ordering field of type %s in a delete record is %w", col.DataType(), ErrUnsupported)
}
