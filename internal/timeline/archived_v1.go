package timeline

// Layout 1 (table version 6): the archived timeline is .commits_.archive.N[_token] log
// files of HoodieArchivedMetaEntry records (sources in archived.go's header).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// archiveFilePrefix is what Java globs for (".commits_.archive*"); archiveFileRE extracts
// the file's version, which orders the files. Names without a parsable version sort as
// version 0, as in Java's ArchiveFileVersionComparator. The regex also matches the older
// names without a write token.
const archiveFilePrefix = ".commits_.archive"

var archiveFileRE = regexp.MustCompile(`^\.commits_\.archive\.([0-9]+)`)

// mergeArchivePlanName is the file Java writes before merging small archive files into
// one. A crash mid-merge leaves a half-written merged file that Java skips on read.
const mergeArchivePlanName = "mergeArchivePlan"

// archivedEntry is one decoded HoodieArchivedMetaEntry: one state of one instant.
type archivedEntry struct {
	time       spec.InstantTime
	action     spec.Action
	state      spec.State
	transition string
	metadata   []byte
	plan       []byte
	source     string
}

func loadArchiveLogs(ctx context.Context, st storage.Storage, dir string) ([]ArchivedInstant, error) {
	// Ascending version order, so that when a merged archive file and the small files it
	// merged both survive a crash, the entries of the older files are the ones kept.
	files, err := archiveLogs(ctx, st, dir)
	if err != nil {
		return nil, err
	}
	schemas := map[string]*entrySchema{}
	acc := newEntryGroups()
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := storage.Join(dir, name)
		entries, err := readArchiveFile(ctx, st, p, schemas)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if isHalfMergedArchive(ctx, st, dir, name) {
				continue // Java skips the half-written target of an interrupted merge
			}
			return nil, err
		}
		for i := range entries {
			acc.add(&entries[i])
		}
	}
	return acc.instants(), nil
}

// archiveLogs lists the archive logs in dir (layout 1) by ascending version, then name; no
// archive folder means none.
func archiveLogs(ctx context.Context, st storage.Storage, dir string) ([]string, error) {
	infos, err := st.List(ctx, dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list archived timeline %s: %w", dir, err)
	}
	type archiveFile struct {
		name    string
		version int64
	}
	var files []archiveFile
	for _, fi := range infos {
		if fi.IsDir || !strings.HasPrefix(fi.Name, archiveFilePrefix) {
			continue
		}
		var v int64
		if m := archiveFileRE.FindStringSubmatch(fi.Name); m != nil {
			v, _ = strconv.ParseInt(m[1], 10, 64) // overflow leaves 0, like Java's fallback
		}
		files = append(files, archiveFile{fi.Name, v})
	}
	sort.Slice(files, func(a, b int) bool {
		if files[a].version != files[b].version {
			return files[a].version < files[b].version
		}
		return files[a].name < files[b].name
	})
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	return names, nil
}

// readArchiveFile decodes every entry of the AVRO_DATA blocks of one archive file. Like
// Java's reader it ignores every other block type (that the archiver writes nothing else
// is UNVERIFIED: the writer was not read). Bytes that are not Hudi log blocks at all, such
// as pre-log-format archives if any exist (UNVERIFIED), read as corrupt and yield nothing.
// Corrupt regions, which the log reader turns into CORRUPT_BLOCKs (a crashed archiver
// leaves half-written blocks), are skipped.
func readArchiveFile(ctx context.Context, st storage.Storage, p string, schemas map[string]*entrySchema) ([]archivedEntry, error) {
	f, err := st.Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("open archive file %s: %w", p, err)
	}
	defer f.Close()
	r := logfile.NewReader(f, f.Size(), p)
	var out []archivedEntry
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("archive file %s: %w", p, err)
		}
		if b.Type != logfile.AvroDataBlock {
			continue
		}
		schemaJSON := b.Header[logfile.Schema]
		if schemaJSON == "" {
			return nil, fmt.Errorf("archive file %s: avro data block at offset %d has no SCHEMA header", p, b.Offset)
		}
		es := schemas[schemaJSON]
		if es == nil {
			if es, err = parseEntrySchema(schemaJSON); err != nil {
				return nil, fmt.Errorf("archive file %s: avro data block at offset %d: %w", p, b.Offset, err)
			}
			schemas[schemaJSON] = es
		}
		records, err := logfile.DecodeAvroDataBlock(b.Content)
		if err != nil {
			return nil, fmt.Errorf("archive file %s: block at offset %d: %w", p, b.Offset, err)
		}
		for i, rec := range records {
			e, err := es.decode(rec)
			if err != nil {
				return nil, fmt.Errorf("archive file %s: block at offset %d: archived entry %d of %d: %w", p, b.Offset, i, len(records), err)
			}
			if e == nil {
				continue
			}
			e.source = p
			out = append(out, *e)
		}
	}
}

// isHalfMergedArchive reports whether name is the merged file named by the folder's
// mergeArchivePlan (an Avro HoodieMergeArchiveFilePlan{candidate, mergedArchiveFileName}),
// which Java ignores when it fails to read. Any problem reading the plan means "no", so
// the original error is reported, as Java does.
func isHalfMergedArchive(ctx context.Context, st storage.Storage, dir, name string) bool {
	data, err := st.ReadFile(ctx, storage.Join(dir, mergeArchivePlanName))
	if err != nil {
		return false
	}
	_, values, err := avro.ReadContainer(data)
	if err != nil || len(values) == 0 {
		return false
	}
	m, _ := values[0].(map[string]any)
	merged, _ := m["mergedArchiveFileName"].(string)
	return merged != "" && strings.EqualFold(merged, name) // Java compares ignoring case
}

// entrySchema is a block's HoodieArchivedMetaEntry writer schema, with what is needed to
// cut the metadata and plan fields out of a datum built on first use.
type entrySchema struct {
	schema *avro.Schema
	fields map[string]*fieldSchema
}

// fieldSchema locates one metadata or plan field inside an entry datum: prefix decodes the
// fields before it (nil when it is the first), union tells whether the field is a union
// (then nullBranch is the index of its null branch), and schema is the field's standalone
// record schema, which both measures the field's bytes and heads the container they are
// returned in.
type fieldSchema struct {
	prefix     *avro.Schema
	union      bool
	nullBranch int64
	schema     *avro.Schema
	schemaJSON string
	err        error
}

func parseEntrySchema(schemaJSON string) (*entrySchema, error) {
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("archived entry schema: %w", err)
	}
	if root := s.Root(); root == nil || root.Type != "record" {
		return nil, errors.New("archived entry schema is not a record")
	}
	return &entrySchema{schema: s, fields: map[string]*fieldSchema{}}, nil
}

func (es *entrySchema) fieldSchema(name string) (*fieldSchema, error) {
	fs, ok := es.fields[name]
	if !ok {
		fs = es.buildFieldSchema(name)
		es.fields[name] = fs
	}
	return fs, fs.err
}

func (es *entrySchema) buildFieldSchema(name string) *fieldSchema {
	fail := func(format string, args ...any) *fieldSchema {
		return &fieldSchema{err: fmt.Errorf(format, args...)}
	}
	root := es.schema.Root()
	for i := range root.Fields {
		f := &root.Fields[i]
		if f.Name != name {
			continue
		}
		fs := &fieldSchema{nullBranch: -1}
		node := &f.Type
		if node.Type == "union" {
			fs.union = true
			node = nil
			for j := range f.Type.Branches {
				if f.Type.Branches[j].Type == "null" {
					fs.nullBranch = int64(j)
				} else if node != nil {
					return fail("field %s is a union of several non-null types", name)
				} else {
					node = &f.Type.Branches[j]
				}
			}
			if node == nil {
				return fail("field %s has no non-null type", name)
			}
		}
		// SchemaNode.Schema inlines the named types the node references from elsewhere in
		// the entry schema (HoodieInflightReplaceMetadata only names HoodieCommitMetadata).
		sub, err := node.Schema()
		if err != nil {
			return fail("schema of field %s: %w", name, err)
		}
		fs.schemaJSON = sub.String()
		// Re-parse through internal/avro so the schema decodes with its raw-value rules.
		if fs.schema, err = avro.Parse(fs.schemaJSON); err != nil {
			return fail("schema of field %s: %w", name, err)
		}
		if i > 0 {
			pre := *root
			pre.Fields = root.Fields[:i]
			ps, err := pre.Schema()
			if err != nil {
				return fail("schema of the fields before %s: %w", name, err)
			}
			if fs.prefix, err = avro.Parse(ps.String()); err != nil {
				return fail("schema of the fields before %s: %w", name, err)
			}
		}
		return fs
	}
	return fail("writer schema has no field %s", name)
}

// rawField returns the bytes of field name's record inside an entry datum, exactly as the
// archiver wrote them, or nil when the field is null.
func (es *entrySchema) rawField(rec []byte, name string) ([]byte, *fieldSchema, error) {
	fs, err := es.fieldSchema(name)
	if err != nil {
		return nil, nil, err
	}
	rest := rec
	if fs.prefix != nil {
		if _, rest, err = fs.prefix.Decode(rec); err != nil {
			return nil, nil, fmt.Errorf("skip to field %s: %w", name, err)
		}
	}
	if fs.union {
		branch, n := binary.Varint(rest) // Avro union index: a zigzag varint long
		if n <= 0 {
			return nil, nil, fmt.Errorf("field %s: bad union index", name)
		}
		if branch == fs.nullBranch {
			return nil, fs, nil
		}
		rest = rest[n:]
	}
	_, after, err := fs.schema.Decode(rest)
	if err != nil {
		return nil, nil, fmt.Errorf("field %s: %w", name, err)
	}
	return rest[:len(rest)-len(after)], fs, nil
}

// decode decodes one entry. It returns nil for entries without meaning (state NIL).
func (es *entrySchema) decode(rec []byte) (*archivedEntry, error) {
	v, _, err := es.schema.Decode(rec)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decoded %T, not a record", v)
	}
	// Java calls toString() on commitTime and actionType unguarded: both are required.
	ts, _ := m[fieldCommitTime].(string)
	if ts == "" {
		return nil, errors.New("no commitTime")
	}
	action, _ := m[fieldActionType].(string)
	if action == "" {
		return nil, fmt.Errorf("instant %s has no actionType", ts)
	}
	e := &archivedEntry{time: spec.InstantTime(ts), action: spec.Action(action)}
	e.transition, _ = m[fieldStateTransitionTime].(string)
	// actionState holds HoodieInstant.State.name(). Very old archives lack it, which Java
	// reads as COMPLETED.
	switch s, _ := m[fieldActionState].(string); s {
	case "", "COMPLETED":
		e.state = spec.StateCompleted
	case "INFLIGHT":
		e.state = spec.StateInflight
	case "REQUESTED":
		e.state = spec.StateRequested
	case "NIL":
		return nil, nil // Java's "no state" marker; nothing to report
	default:
		return nil, fmt.Errorf("instant %s %s has unknown actionState %q", ts, action, s)
	}
	if e.metadata, err = es.wrapFirst(m, rec, metadataFields); err != nil {
		return nil, fmt.Errorf("instant %s %s: %w", ts, action, err)
	}
	if e.plan, err = es.wrapFirst(m, rec, planFields); err != nil {
		return nil, fmt.Errorf("instant %s %s: %w", ts, action, err)
	}
	return e, nil
}

// wrapFirst returns the first non-null of the named fields as an Avro container.
func (es *entrySchema) wrapFirst(m map[string]any, rec []byte, names []string) ([]byte, error) {
	for _, n := range names {
		if m[n] == nil {
			continue
		}
		raw, fs, err := es.rawField(rec, n)
		if err != nil {
			return nil, err
		}
		if raw == nil {
			continue
		}
		return containerOf(fs.schemaJSON, raw), nil
	}
	return nil, nil
}

// containerSync is the sync marker of the containers built by containerOf. Any 16 bytes
// do; a fixed value keeps the output deterministic.
var containerSync = []byte("hudi-go-archive!")

// containerOf wraps one Avro datum, already encoded, in an object container file with the
// null codec: magic, metadata map {avro.schema}, sync marker, then one block of one datum
// (count, byte size, datum, sync marker). It is built by hand because the Avro library
// only writes containers from values, and re-encoding a decoded value would reorder its
// maps (Go maps have no order), changing the bytes.
func containerOf(schemaJSON string, datum []byte) []byte {
	out := make([]byte, 0, len(avro.ContainerMagic)+len(schemaJSON)+len(datum)+64)
	out = append(out, avro.ContainerMagic...)
	out = binary.AppendVarint(out, 1) // one metadata entry
	out = appendAvroBytes(out, []byte("avro.schema"))
	out = appendAvroBytes(out, []byte(schemaJSON))
	out = binary.AppendVarint(out, 0) // end of the metadata map
	out = append(out, containerSync...)
	out = binary.AppendVarint(out, 1) // datums in the block
	out = appendAvroBytes(out, datum)
	return append(out, containerSync...)
}

func appendAvroBytes(dst, b []byte) []byte {
	dst = binary.AppendVarint(dst, int64(len(b)))
	return append(dst, b...)
}

// entryGroups gathers the archived states of each instant, keyed like FromFileNames keys
// the active timeline: by time and completed action family, since a compaction archives as
// compaction (requested, inflight) and commit (completed) entries.
type entryGroups struct {
	groups map[groupKey]*[3]*archivedEntry
	order  []groupKey
}

func newEntryGroups() *entryGroups {
	return &entryGroups{groups: map[groupKey]*[3]*archivedEntry{}}
}

func (g *entryGroups) add(e *archivedEntry) {
	k := groupKey{e.time, e.action.CompletedAction()}
	states := g.groups[k]
	if states == nil {
		states = &[3]*archivedEntry{}
		g.groups[k] = states
		g.order = append(g.order, k)
	}
	if states[e.state] == nil { // first wins: see the file order in loadArchiveLogs
		states[e.state] = e
	}
}

func (g *entryGroups) instants() []ArchivedInstant {
	out := make([]ArchivedInstant, 0, len(g.order))
	for _, k := range g.order {
		states := g.groups[k]
		var top *archivedEntry
		for _, e := range states {
			if e != nil {
				top = e
			}
		}
		in := ArchivedInstant{
			Instant: Instant{
				Time:   top.time,
				Action: top.action,
				State:  top.state,
			},
			Metadata:            top.metadata,
			StateTransitionTime: top.transition,
			Source:              top.source,
		}
		// The requested action is that of the earliest archived state, as in FromFileNames.
		for _, e := range states {
			if e != nil {
				in.Instant.Requested = e.action
				break
			}
		}
		for _, s := range []spec.State{spec.StateRequested, spec.StateInflight, spec.StateCompleted} {
			if e := states[s]; e != nil && e.plan != nil {
				in.Plan = e.plan
				break
			}
		}
		out = append(out, in)
	}
	sortArchived(out)
	return out
}

// Fields of HoodieArchivedMetaEntry (HoodieArchivedMetaEntry.avsc).
const (
	fieldCommitTime          = "commitTime"
	fieldActionType          = "actionType"
	fieldActionState         = "actionState"
	fieldStateTransitionTime = "stateTransitionTime"
)

// metadataFields hold an entry's metadata, planFields its plan. Java's
// MetadataConversionUtils.createMetaWrapper sets at most one of them per entry, chosen by
// action and state: completed commit/deltacommit → hoodieCommitMetadata, completed
// replacecommit/clustering → hoodieReplaceCommitMetadata, inflight replace →
// HoodieInflightReplaceMetadata (capital H in the schema), requested replace →
// hoodieRequestedReplaceMetadata, completed clean → hoodieCleanMetadata, pending clean →
// hoodieCleanerPlan, completed rollback → hoodieRollbackMetadata, savepoint →
// hoodieSavePointMetadata, requested compaction/logcompaction → hoodieCompactionPlan.
// hoodieIndexCommitMetadata is read by ArchivedTimelineV1 for indexing instants (the writer
// side of it is UNVERIFIED); hoodieCompactionMetadata is deprecated but may exist in old
// archives. Fields missing from an older writer schema are simply absent.
var (
	metadataFields = []string{
		"hoodieCommitMetadata", "hoodieReplaceCommitMetadata", "hoodieCleanMetadata",
		"hoodieRollbackMetadata", "hoodieSavePointMetadata", "hoodieIndexCommitMetadata",
		"hoodieCompactionMetadata", "HoodieInflightReplaceMetadata",
	}
	planFields = []string{"hoodieCompactionPlan", "hoodieCleanerPlan", "hoodieRequestedReplaceMetadata"}
)

// LatestArchiveLogInstants returns the instants (Time, Action, State of the most advanced
// archived state) of the newest archive log in dir (the table's ArchiveDir, layout 1): the
// one the latest archival wrote, since every archival writes the next version (or, in
// Java on storage with append, appends to the newest). The half-written target of an
// interrupted merge is passed over, as readers do. No archive folder means none.
func LatestArchiveLogInstants(ctx context.Context, st storage.Storage, dir string) ([]Instant, error) {
	files, err := archiveLogs(ctx, st, dir)
	if err != nil {
		return nil, err
	}
	slices.Reverse(files) // newest first
	schemas := map[string]*entrySchema{}
	for _, name := range files {
		entries, err := readArchiveFile(ctx, st, storage.Join(dir, name), schemas)
		if err != nil {
			if ctx.Err() == nil && isHalfMergedArchive(ctx, st, dir, name) {
				continue
			}
			return nil, err
		}
		acc := newEntryGroups()
		for i := range entries {
			acc.add(&entries[i])
		}
		var out []Instant
		for _, a := range acc.instants() {
			out = append(out, a.Instant)
		}
		return out, nil
	}
	return nil, nil
}
