package filegroup

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultMaxLogMemory is the memory budget for a slice's decoded log records when
// Options.MaxLogMemory is 0: Java's hoodie.memory.merge.max.size default (1 GB).
const DefaultMaxLogMemory = 1 << 30

// batchStore keeps the decoded log batches of one slice: in memory while they fit the
// budget, then in a spill file (Arrow IPC) on local disk — the role of Java's
// ExternalSpillableMap. The key map (record key → batch, row, ordering) stays in memory as
// Java's does; the records themselves are read back one batch at a time when the winning
// log records are emitted, so a file group whose logs exceed memory still merges.
type batchStore struct {
	budget int64
	used   int64
	dir    string
	mem    memory.Allocator
	schema *arrow.Schema

	inMemory []arrow.Record // batches 0 … len(inMemory)-1; nil once dropped
	sizes    []int64        // recordBytes of each in-memory batch
	spilled  int            // batches after those, in the spill file in order
	file     *os.File
	writer   *ipc.FileWriter
	reader   *ipc.FileReader
}

func newBatchStore(budget int64, dir string, mem memory.Allocator, sc *arrow.Schema) *batchStore {
	if budget == 0 {
		budget = DefaultMaxLogMemory
	}
	if dir == "" {
		dir = os.TempDir()
	}
	return &batchStore{budget: budget, dir: dir, mem: mem, schema: sc}
}

// add takes ownership of rec and returns its batch number.
func (s *batchStore) add(rec arrow.Record) (int32, error) {
	n := int32(len(s.inMemory) + s.spilled)
	size := recordBytes(rec)
	if s.spilled == 0 && (s.budget < 0 || s.used+size <= s.budget) {
		s.inMemory = append(s.inMemory, rec)
		s.sizes = append(s.sizes, size)
		s.used += size
		return n, nil
	}
	defer rec.Release()
	if s.writer == nil {
		f, err := os.CreateTemp(s.dir, "hudi-log-spill-*.arrow")
		if err != nil {
			return 0, fmt.Errorf("spill log records beyond %d bytes: %w", s.budget, err)
		}
		// The file is only ours: unlink it at once where the OS allows, so a crash leaves
		// nothing behind.
		_ = os.Remove(f.Name())
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(s.schema), ipc.WithAllocator(s.mem))
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("spill file: %w", err)
		}
		s.file, s.writer = f, w
	}
	if err := s.writer.Write(rec); err != nil {
		return 0, fmt.Errorf("spill log records: %w", err)
	}
	s.spilled++
	return n, nil
}

// len is the number of batches.
func (s *batchStore) len() int { return len(s.inMemory) + s.spilled }

// get returns batch i; the caller releases it.
func (s *batchStore) get(i int) (arrow.Record, error) {
	if i < len(s.inMemory) {
		rec := s.inMemory[i]
		if rec == nil {
			return nil, fmt.Errorf("log batch %d was dropped", i)
		}
		rec.Retain()
		return rec, nil
	}
	if s.reader == nil {
		if err := s.writer.Close(); err != nil {
			return nil, fmt.Errorf("finish spill file: %w", err)
		}
		r, err := ipc.NewFileReader(s.file, ipc.WithAllocator(s.mem), ipc.WithSchema(s.schema))
		if err != nil {
			return nil, fmt.Errorf("reopen spill file: %w", err)
		}
		s.reader = r
	}
	rec, err := s.reader.RecordAt(i - len(s.inMemory))
	if err != nil {
		return nil, fmt.Errorf("read spilled log batch %d: %w", i, err)
	}
	return rec, nil
}

// drop frees in-memory batch i, which will not be asked for again (references taken
// with get stay valid). Spilled batches cost no memory and are left alone.
func (s *batchStore) drop(i int) {
	if i < len(s.inMemory) && s.inMemory[i] != nil {
		s.inMemory[i].Release()
		s.inMemory[i] = nil
		s.used -= s.sizes[i]
	}
}

// spilledBatches reports how many batches went to disk (tests, logs).
func (s *batchStore) spilledBatches() int { return s.spilled }

func (s *batchStore) release() {
	for _, b := range s.inMemory {
		if b != nil {
			b.Release()
		}
	}
	s.inMemory = nil
	if s.reader != nil {
		s.reader.Close()
	} else if s.writer != nil {
		s.writer.Close()
	}
	if s.file != nil {
		name := s.file.Name()
		s.file.Close()
		_ = os.Remove(name)
	}
}

// recordBytes is the memory a batch's buffers hold: their capacity, not their length,
// since a builder grows a buffer by doubling and hands it over without shrinking it, so a
// built batch holds up to twice the bytes of its values. (arrow-go's util.TotalRecordSize
// would pull protobuf reflection into the core, and counts lengths.) A buffer shared by
// several arrays is counted for each, which errs on the side of spilling.
func recordBytes(rec arrow.Record) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Cap())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
