package write

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write/index"
)

// keyer computes input records' keys. On a table with record key fields it is the key
// generator's. On a table with auto-generated keys (no record key fields, Hudi 0.14) a
// record's key is the _hoodie_record_key its row carries in a prepped write (Options.
// Prepped: rows read from the table, as SQL's UPDATE, DELETE and MERGE write them) or,
// without one, generated as Java's AutoRecordGenWrapperKeyGenerator generates it:
// "<instant>_<partition>_<row>", the write's instant, input partition 0 (hudi-go writes
// its input as one partition) and the row's number in the input.
type keyer struct {
	gen *keygen.Generator
	// instant is the write's instant, which generated keys carry; "" when the write may
	// generate none (a delete: its rows must name stored keys).
	instant string
}

// key returns the key of row (the ordinal-th row of the input, from 0) of rec.
func (k keyer) key(rec arrow.Record, row int, ordinal int64) (string, error) {
	key, err := k.gen.RecordKey(rec, row)
	if err == nil || !errors.Is(err, keygen.ErrAutoKey) {
		return key, err
	}
	if k.instant == "" {
		return "", fmt.Errorf("the table's record keys are generated, and this row has no %s to name the record it deletes", keygen.RecordKeyMetaField)
	}
	return keygen.AutoKey(k.instant, 0, ordinal), nil
}

// checkAutoKeys checks a write to a table whose record keys are generated (Java 0.14:
// AutoRecordKeyGenerationUtils) and a prepped write: Prepped needs such a table and rows
// with _hoodie_record_key; a delete needs Prepped (a generated key names no stored
// record); hoodie.combine.before.insert=true is refused as Java refuses it (there is
// nothing to combine on); and the bucket index, whose buckets hash key fields, is refused
// (hudi-go's choice: Java 0.14's behaviour there is UNVERIFIED).
func checkAutoKeys(gen *keygen.Generator, input *arrow.Schema, o Options) error {
	if !gen.AutoKeys() {
		if o.Prepped {
			return fmt.Errorf("a prepped write (rows keyed by %s) is only for tables whose record keys are generated; this table has record key fields", keygen.RecordKeyMetaField)
		}
		return nil
	}
	if o.Prepped && (input == nil || schema.FieldIndex(input, keygen.RecordKeyMetaField) < 0) {
		return fmt.Errorf("a prepped write needs the rows' %s column", keygen.RecordKeyMetaField)
	}
	if o.Operation == Delete && !o.Prepped {
		return fmt.Errorf("delete: the table's record keys are generated, so the rows to delete must carry their %s (a prepped write, as SQL's DELETE makes)", keygen.RecordKeyMetaField)
	}
	if !o.Prepped && o.CombineBeforeInsert != nil && *o.CombineBeforeInsert {
		return errors.New("Enabling hoodie.combine.before.insert is not supported with auto generation of record keys")
	}
	if _, bucket := o.index.(*index.Bucket); bucket {
		return fmt.Errorf("the %s index hashes record key fields, and this table's record keys are generated: %w", index.TypeBucket, ErrUnsupported)
	}
	return nil
}

// withStoredKey appends _hoodie_record_key to the row schema of a prepped write, so that
// conformed rows keep the key the keyer reads.
func withStoredKey(rows *arrow.Schema, o Options) *arrow.Schema {
	if !o.Prepped {
		return rows
	}
	fields := append(rows.Fields(), arrow.Field{Name: keygen.RecordKeyMetaField, Type: arrow.BinaryTypes.String, Nullable: true})
	md := rows.Metadata()
	return arrow.NewSchema(fields, &md)
}

// pinInstant chooses, before any key is computed, the instant of a write that may
// generate keys (they carry it), and returns the clock the timeline handle must start that
// instant with. The write fails after Begin (checkPinned) if the instant moved, which
// happens only when another writer started one at the same millisecond.
func pinInstant(t *table.Table, o Options) (spec.InstantTime, func() time.Time) {
	inst := o.timeline.NewInstantTime(t.Timeline)
	at, err := inst.Time(o.timeline.Zone())
	if err != nil {
		return inst, nil
	}
	return inst, func() time.Time { return at }
}

// checkPinned fails a write whose instant is not the one its generated keys carry, aborting
// the instant so that nothing of it stays pending.
func checkPinned(ctx context.Context, w *writer, txn *commit.Txn, pinned spec.InstantTime) error {
	if pinned == "" || txn.Instant == pinned {
		return nil
	}
	tl := w.t.Timeline
	if fresh, err := w.t.LoadTimeline(ctx); err == nil {
		tl = fresh
	}
	_, _ = txn.Abort(ctx, tl)
	return fmt.Errorf("the write's generated record keys carry instant %s, but another writer took that instant (the write got %s): nothing was written, retry the write", pinned, txn.Instant)
}
