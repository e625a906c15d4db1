package timeline

// Writing the LSM timeline history of layout 2 (table versions 8 and 9), as Hudi 1.x's
// LSMTimelineWriter does (apache/hudi hudi-client-common .../timeline/versioning/v2/
// LSMTimelineWriter.java, with LSMTimeline.java and HoodieLSMTimelineManifest.java):
//
//   - each archival writes one parquet file of HoodieLSMTimelineInstant rows named
//     <first instant>_<last instant>_0.parquet (layer 0) and publishes it in a new snapshot:
//     manifest_<N+1> lists the files of the previous snapshot plus the new one (Jackson's
//     pretty-printed JSON, each file with its length), then _version_ holds N+1;
//   - after the archived instants left the active timeline, compaction merges the oldest
//     hoodie.timeline.compaction.batch.size files of a layer into one file of the next layer
//     (<min>_<max>_<layer+1>.parquet, the rows of the files in name order) once the layer has
//     that many, layer after layer, each merge a new snapshot;
//   - cleaning then keeps the newest 3 + (merges done) snapshots: older manifests go, and
//     every parquet file none of the kept manifests lists.
//
// The parquet files are written as Hudi's Avro parquet writer writes them: the schema
// parquet-avro derives from HoodieLSMTimelineInstant (message
// org.apache.hudi.avro.model.HoodieLSMTimelineInstant, optional binary (STRING)
// instantTime, completionTime and action, optional binary metadata and plan, required
// int32 version), the Avro schema in the footer (parquet.avro.schema, writer.model.name
// avro), no bloom filter (the writer config has meta fields off), the table's
// hoodie.parquet.compression.codec and dictionary setting. UNVERIFIED against a
// Java-written history file: no fixture has one.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/avroschema"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// LSMInstant is one row of the LSM timeline: an archived instant as Java's
// MetadataConversionUtils.createLSMTimelineInstant builds it from the instant's files.
type LSMInstant struct {
	Time       spec.InstantTime
	Completion spec.InstantTime
	// Action is the completed action (a compaction is a commit, a clustering a
	// replacecommit).
	Action spec.Action
	// Metadata is the completed file's content (nil when it is empty); Plan the plan the
	// instant's pending files hold (nil for none). See createLSMTimelineInstant.
	Metadata, Plan []byte
}

// LSMWriteOptions are the settings the LSM timeline writer takes from the write config.
type LSMWriteOptions struct {
	// Compression is hoodie.parquet.compression.codec ("" = gzip, Hudi's default).
	Compression string
	// Dictionary is hoodie.parquet.dictionary.enabled.
	Dictionary bool
	// CompactionBatch is hoodie.timeline.compaction.batch.size: the number of files of a
	// layer merged at once (Java's default 10).
	CompactionBatch int
}

// DefaultLSMCompactionBatch is hoodie.timeline.compaction.batch.size's default.
const DefaultLSMCompactionBatch = 10

// lsmMaxCompactionBytes bounds the input of one compaction (LSMTimelineWriter's
// MAX_FILE_SIZE_IN_BYTES): files are taken, oldest first, until their lengths pass it.
const lsmMaxCompactionBytes = 1024 * 1024 * 1000

// lsmVersionsKept is how many snapshots cleaning keeps besides one per merge just done.
const lsmVersionsKept = 3

// lsmFileRE is LSMTimeline's ARCHIVE_FILE_PATTERN: <min>_<max>_<layer>.parquet, a one-digit
// layer.
var lsmFileRE = regexp.MustCompile(`^(\d+)_(\d+)_(\d)\.parquet$`)

// LSMFileName names an LSM timeline file of the given layer holding instants min to max.
func LSMFileName(min, max spec.InstantTime, layer int) string {
	return fmt.Sprintf("%s_%s_%d.parquet", min, max, layer)
}

// lsmLayer is the layer of an LSM file name (Java's getFileLayer: 0 when the name does not
// parse).
func lsmLayer(name string) int {
	m := lsmFileRE.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[3])
	return n
}

// WriteLSMFile writes rows, in order, as a new layer-0 file in the history folder dir and
// publishes it in a new snapshot. It returns the file's path and length. A file of that
// name already listed by the latest manifest was published by an earlier archival that
// died before removing the instants from the active timeline: it is kept as it is
// (written is false). One that exists but is not listed is what a killed write left: it
// is replaced (LSMTimelineWriter.write).
func WriteLSMFile(ctx context.Context, st storage.Storage, dir string, rows []LSMInstant, o LSMWriteOptions) (path string, size int64, written bool, err error) {
	if len(rows) == 0 {
		return "", 0, false, fmt.Errorf("write LSM timeline file: no instants")
	}
	name := LSMFileName(rows[0].Time, rows[len(rows)-1].Time, 0)
	path = storage.Join(dir, name)
	if fi, err := st.Stat(ctx, path); err == nil {
		files, _, err := latestManifest(ctx, st, dir)
		if err != nil {
			return "", 0, false, err
		}
		for _, f := range files {
			if f.Name == name {
				return path, fi.Size, false, nil
			}
		}
		if err := st.Delete(ctx, path); err != nil {
			return "", 0, false, fmt.Errorf("delete the unpublished LSM timeline file %s: %w", path, err)
		}
	} else if !errors.Is(err, storage.ErrNotExist) {
		return "", 0, false, fmt.Errorf("stat %s: %w", path, err)
	}
	if err := st.MkdirAll(ctx, dir); err != nil {
		return "", 0, false, fmt.Errorf("create LSM timeline folder %s: %w", dir, err)
	}
	if size, err = writeLSMParquet(ctx, st, path, rows, o); err != nil {
		return "", 0, false, err
	}
	if err := updateManifest(ctx, st, dir, nil, manifestFile{Name: name, Len: size}); err != nil {
		return "", 0, false, err
	}
	return path, size, true, nil
}

// lsmArrowSchema is HoodieLSMTimelineInstant as arrow columns; the parquet writer lays
// them out as parquet-avro does.
var lsmArrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: lsmColInstantTime, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: lsmColCompletionTime, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: lsmColAction, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: lsmColMetadata, Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: lsmColPlan, Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: lsmColVersion, Type: arrow.PrimitiveTypes.Int32},
}, nil)

// lsmInstantVersion is LSMTimeline.LSM_TIMELINE_INSTANT_VERSION_1.
const lsmInstantVersion = 1

func writeLSMParquet(ctx context.Context, st storage.Storage, path string, rows []LSMInstant, o LSMWriteOptions) (int64, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, lsmArrowSchema)
	defer b.Release()
	str := func(i int, s string) {
		if s == "" {
			b.Field(i).AppendNull()
		} else {
			b.Field(i).(*array.StringBuilder).Append(s)
		}
	}
	bin := func(i int, v []byte) {
		if v == nil {
			b.Field(i).AppendNull()
		} else {
			b.Field(i).(*array.BinaryBuilder).Append(v)
		}
	}
	for _, r := range rows {
		str(0, string(r.Time))
		str(1, string(r.Completion))
		str(2, string(r.Action))
		bin(3, r.Metadata)
		bin(4, r.Plan)
		b.Field(5).(*array.Int32Builder).Append(lsmInstantVersion)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, lsmArrowSchema, parquet.WriterOptions{
		Compression: o.Compression,
		Dictionary:  o.Dictionary,
		KeyValue: map[string]string{
			parquet.KeyAvroSchema:      avroschema.LSMTimelineInstant.JSON(),
			parquet.KeyWriterModelName: "avro",
		},
	})
	if err != nil {
		return 0, fmt.Errorf("write LSM timeline file %s: %w", path, err)
	}
	if err := w.Write(rec); err != nil {
		return 0, fmt.Errorf("write LSM timeline file %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("write LSM timeline file %s: %w", path, err)
	}
	if err := createFile(ctx, st, path, buf.Bytes()); err != nil {
		return 0, fmt.Errorf("write LSM timeline file %s: %w", path, err)
	}
	return int64(buf.Len()), nil
}

func createFile(ctx context.Context, st storage.Storage, path string, data []byte) error {
	w, err := st.Create(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		_ = storage.Abort(w)
		return err
	}
	return w.Close()
}

// latestManifest reads the files of the latest snapshot and its version (-1: none).
func latestManifest(ctx context.Context, st storage.Storage, dir string) ([]manifestFile, int64, error) {
	v, err := latestLSMVersion(ctx, st, dir)
	if err != nil || v < 0 {
		return nil, v, err
	}
	files, err := readManifest(ctx, st, dir, v)
	return files, v, err
}

func readManifest(ctx context.Context, st storage.Storage, dir string, v int64) ([]manifestFile, error) {
	p := storage.Join(dir, lsmManifestPrefix+strconv.FormatInt(v, 10))
	data, err := st.ReadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read archived timeline manifest %s: %w", p, err)
	}
	return parseManifest(data, p)
}

// updateManifest publishes a new snapshot: the latest one's files less remove, plus add
// (LSMTimelineWriter.updateManifest). The manifest of the new version is written first
// (replacing one a killed archival left with that number), then _version_. Java deletes and
// recreates _version_; here it is replaced atomically (Storage.Put), so a reader never
// finds it missing — the content is the same.
func updateManifest(ctx context.Context, st storage.Storage, dir string, remove []string, add manifestFile) error {
	files, v, err := latestManifest(ctx, st, dir)
	if err != nil {
		return err
	}
	var next []manifestFile
	for _, f := range files {
		if !containsString(remove, f.Name) {
			next = append(next, f)
		}
	}
	next = append(next, add)
	nv := v + 1
	if v < 0 {
		nv = 1 // versions start at 1
	}
	mp := storage.Join(dir, lsmManifestPrefix+strconv.FormatInt(nv, 10))
	if err := st.Delete(ctx, mp); err != nil {
		return fmt.Errorf("delete the unpublished manifest %s: %w", mp, err)
	}
	if err := createFile(ctx, st, mp, renderManifest(next)); err != nil {
		return fmt.Errorf("write archived timeline manifest %s: %w", mp, err)
	}
	if err := st.Put(ctx, storage.Join(dir, lsmVersionFile), []byte(strconv.FormatInt(nv, 10))); err != nil {
		return fmt.Errorf("write archived timeline version file: %w", err)
	}
	return nil
}

// renderManifest renders a manifest as HoodieLSMTimelineManifest.toJsonString does: Jackson's
// default pretty printer over the one field "files", each entry's fileName and fileLen.
func renderManifest(files []manifestFile) []byte {
	var sb strings.Builder
	sb.WriteString("{\n  \"files\" : [ ")
	for i, f := range files {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("{\n    \"fileName\" : ")
		sb.WriteString(strconv.Quote(f.Name))
		sb.WriteString(",\n    \"fileLen\" : ")
		sb.WriteString(strconv.FormatInt(f.Len, 10))
		sb.WriteString("\n  }")
	}
	sb.WriteString(" ]\n}")
	return []byte(sb.String())
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CompactAndCleanLSM compacts the LSM timeline in dir layer by layer and cleans it
// (LSMTimelineWriter.compactAndClean). It returns the files it wrote.
func CompactAndCleanLSM(ctx context.Context, st storage.Storage, dir string, o LSMWriteOptions) ([]string, error) {
	batch := o.CompactionBatch
	if batch <= 0 {
		batch = DefaultLSMCompactionBatch
	}
	files, _, err := latestManifest(ctx, st, dir)
	if err != nil {
		return nil, err
	}
	var written []string
	layer := 0
	for {
		merged, ok, err := compactLayer(ctx, st, dir, files, layer, batch, o)
		if err != nil {
			return written, err
		}
		if !ok {
			break
		}
		written = append(written, merged.Name)
		files = append(files, merged) // as Java: the next layer sees the new file
		layer++
	}
	return written, cleanLSM(ctx, st, dir, layer)
}

// compactLayer merges the oldest batch files of one layer into a file of the next layer
// once the layer has batch files (doCompact), and publishes a snapshot without them.
func compactLayer(ctx context.Context, st storage.Storage, dir string, files []manifestFile, layer, batch int, o LSMWriteOptions) (manifestFile, bool, error) {
	var in []manifestFile
	for _, f := range files {
		if lsmLayer(f.Name) == layer {
			in = append(in, f)
		}
	}
	if len(in) < batch {
		return manifestFile{}, false, nil
	}
	sort.Slice(in, func(a, b int) bool { return in[a].Name < in[b].Name })
	var candidates []string
	total := int64(0)
	for _, f := range in[:batch] {
		if total > lsmMaxCompactionBytes {
			break
		}
		total += f.Len
		candidates = append(candidates, f.Name)
	}
	if len(candidates) < 2 {
		return manifestFile{}, false, nil
	}
	var rows []LSMInstant
	min, max := "", ""
	for _, n := range candidates {
		m := lsmFileRE.FindStringSubmatch(n)
		if m == nil {
			return manifestFile{}, false, fmt.Errorf("archived timeline file %s: not named <min>_<max>_<layer>.parquet", n)
		}
		if min == "" || m[1] < min {
			min = m[1]
		}
		if m[2] > max {
			max = m[2]
		}
		got, err := readLSMFile(ctx, st, storage.Join(dir, n))
		if err != nil {
			return manifestFile{}, false, err
		}
		for _, r := range got {
			rows = append(rows, LSMInstant{Time: r.Instant.Time, Completion: r.Instant.Completion, Action: r.Instant.Action,
				Metadata: r.Metadata, Plan: r.Plan})
		}
	}
	name := LSMFileName(spec.InstantTime(min), spec.InstantTime(max), lsmLayer(candidates[0])+1)
	path := storage.Join(dir, name)
	if err := st.Delete(ctx, path); err != nil {
		return manifestFile{}, false, fmt.Errorf("delete the unpublished LSM timeline file %s: %w", path, err)
	}
	size, err := writeLSMParquet(ctx, st, path, rows, o)
	if err != nil {
		return manifestFile{}, false, err
	}
	merged := manifestFile{Name: name, Len: size}
	if err := updateManifest(ctx, st, dir, candidates, merged); err != nil {
		return manifestFile{}, false, err
	}
	return merged, true, nil
}

// cleanLSM keeps the newest 3 + merged snapshots and the files they list; older manifests
// are deleted first, then every parquet file no kept manifest lists (LSMTimelineWriter.clean).
func cleanLSM(ctx context.Context, st storage.Storage, dir string, merged int) error {
	entries, err := st.List(ctx, dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("list archived timeline %s: %w", dir, err)
	}
	var versions []int64
	for _, e := range entries {
		m := lsmManifestRE.FindStringSubmatch(e.Name)
		if e.IsDir || m == nil {
			continue
		}
		if v, err := strconv.ParseInt(m[1], 10, 32); err == nil {
			versions = append(versions, v)
		}
	}
	keep := lsmVersionsKept + merged
	if len(versions) <= keep {
		return nil
	}
	sort.Slice(versions, func(a, b int) bool { return versions[a] > versions[b] })
	kept := map[string]bool{}
	for _, v := range versions[:keep] {
		files, err := readManifest(ctx, st, dir, v)
		if err != nil {
			return err
		}
		for _, f := range files {
			kept[f.Name] = true
		}
	}
	for _, v := range versions[keep:] {
		p := storage.Join(dir, lsmManifestPrefix+strconv.FormatInt(v, 10))
		if err := st.Delete(ctx, p); err != nil {
			return fmt.Errorf("delete old archived timeline manifest %s: %w", p, err)
		}
	}
	for _, e := range entries {
		if e.IsDir || !strings.HasSuffix(e.Name, ".parquet") || kept[e.Name] {
			continue
		}
		p := storage.Join(dir, e.Name)
		if err := st.Delete(ctx, p); err != nil {
			return fmt.Errorf("delete old archived timeline file %s: %w", p, err)
		}
	}
	return nil
}
