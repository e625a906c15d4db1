package write

import (
	"context"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// BaseFileSpec names a base file a table service (compaction) writes for txn.
type BaseFileSpec struct {
	Partition string
	FileID    spec.FileID
	Task      int              // write token task number
	Prev      spec.InstantTime // base instant of the slice rewritten; "" for none
	// Schema is the output schema (meta fields + data columns) and AvroSchema its Avro
	// form with meta fields (parquet.avro.schema).
	Schema     *arrow.Schema
	AvroSchema string
	// VirtualKeys writes no bloom filter or key range (hoodie.populate.meta.fields=false);
	// rows keep their (null) meta values.
	VirtualKeys bool
}

// BaseFileWriter writes one base file with the writer's machinery: marker first, then
// Parquet with the bloom filter, min/max record keys and parquet.avro.schema footer (only
// the latter with BaseFileSpec.VirtualKeys).
// Rows keep their commit time and sequence number; _hoodie_file_name is set to the new
// file's name.
type BaseFileWriter struct {
	fw   *fileWriter
	env  *writeEnv
	name string
}

// NewBaseFileWriter creates the marker and the file. o takes the Parquet and bloom
// settings (zero values = defaults).
func NewBaseFileWriter(ctx context.Context, st storage.Storage, txn *commit.Txn, s BaseFileSpec, o Options) (*BaseFileWriter, error) {
	o = o.withDefaults()
	if o.Parallelism <= 0 {
		o.Parallelism = runtime.GOMAXPROCS(0)
	}
	env := &writeEnv{st: st, txn: txn, opts: o, mem: o.Mem, outSchema: s.Schema, avroWithMeta: s.AvroSchema, virtualKeys: s.VirtualKeys}
	ioType := commit.IOCreate
	if s.Prev != "" {
		ioType = commit.IOMerge
	}
	fs := fileSpec{partition: s.Partition, fileID: s.FileID, token: token(s.Task), prev: s.Prev}
	fw, err := env.newFile(ctx, fs, ioType)
	if err != nil {
		return nil, err
	}
	return &BaseFileWriter{fw: fw, env: env, name: fs.name(txn.Instant)}, nil
}

// Name is the base file's name; Path its path relative to the table root.
func (b *BaseFileWriter) Name() string { return b.name }

// Path is the file's path relative to the table root.
func (b *BaseFileWriter) Path() string { return b.fw.path }

// Write appends a batch of the output schema.
func (b *BaseFileWriter) Write(rec arrow.Record) error {
	named := withFileName(b.env.mem, rec, b.name)
	defer named.Release()
	return b.fw.write(named)
}

// Close finishes the file and returns its write stat (NumWrites, sizes, prevCommit).
func (b *BaseFileWriter) Close(ctx context.Context) (commitmeta.WriteStat, error) {
	return b.fw.close(b.env.st, ctx)
}

// Abort closes a file that will not be committed.
func (b *BaseFileWriter) Abort() { b.fw.abort() }
