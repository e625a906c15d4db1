package timeline

// The archived timeline holds the instants that archival moved out of the active timeline.
// Facts below come from Java Hudi sources (apache/hudi):
//   - layout 1: ArchivedTimelineLoaderV1.java, ArchivedTimelineV1.java,
//     MetadataConversionUtils.java, HoodieArchivedMetaEntry.avsc, HoodieMergeArchiveFilePlan.avsc
//   - layout 2: LSMTimeline.java, ArchivedTimelineLoaderV2.java, HoodieLSMTimelineManifest.java,
//     HoodieLSMTimelineInstant.avsc, ActiveAction.java, TestTimelinePathProvider.java
// Anything not confirmed there is marked UNVERIFIED.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/format/logfile"
	"github.com/hudi-go/hudi/format/parquet"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
)

// Default folder names of the archived timeline, relative to the folder they live in.
const (
	// DefaultArchiveFolder is hoodie.archivelog.folder's default: layout 1 archives live in
	// .hoodie/archived (TimelinePathProviderV1 joins the property onto .hoodie).
	DefaultArchiveFolder = "archived"
	// DefaultHistoryFolder is hoodie.timeline.history.path's default: the layout 2 LSM
	// timeline lives in .hoodie/timeline/history (Java's TestTimelinePathProvider expects
	// exactly that path with default settings).
	DefaultHistoryFolder = "history"
)

// ArchivedInstant is one instant of the archived timeline.
type ArchivedInstant struct {
	// Instant has Time, Action (the action of the most advanced archived state: a completed
	// compaction is a "commit"), State and Requested. Completion is set for layout 2 only.
	// Its timeline files are absent (File reports false): the instant lives in an archive.
	Instant Instant
	// Metadata is the metadata of the instant's most advanced state, nil when none was
	// archived (Java archives an empty completed file as an entry without metadata).
	//
	// Layout 2: the `metadata` bytes of the LSM row exactly as stored, which Java copies from
	// the completed instant file (an Avro object container on v8+ tables).
	//
	// Layout 1: the entry holds the metadata as a nested Avro record (hoodieCommitMetadata,
	// hoodieReplaceCommitMetadata, hoodieCleanMetadata, hoodieRollbackMetadata,
	// hoodieSavePointMetadata, hoodieIndexCommitMetadata, the deprecated
	// hoodieCompactionMetadata, or HoodieInflightReplaceMetadata for an inflight replace).
	// It is returned as a one-datum Avro object container (null codec) whose writer schema is
	// that field's record schema, cut from the block's SCHEMA header with the named types it
	// uses inlined, and whose datum is the field's bytes exactly as the entry stored them.
	// That is the format of v8+ timeline files, so the format/commitmeta decoders read it as
	// they read any other timeline file. (Java's ArchivedTimelineV1 instead hands out the
	// record's toString() JSON, or binary Avro for compaction plans.)
	Metadata []byte
	// Plan is the instant's plan, nil when none was archived.
	//
	// Layout 2: the `plan` bytes of the LSM row as stored (Java's createLSMTimelineInstant:
	// clean plan, compaction/log compaction plan, requested replace metadata, or — when the
	// inflight file of a replacecommit/clustering is non-empty — its inflight commit
	// metadata, which overrides the requested one).
	//
	// Layout 1: the plan record of the requested entry (else of the inflight entry):
	// hoodieCompactionPlan, hoodieCleanerPlan or hoodieRequestedReplaceMetadata, wrapped as
	// an Avro object container like Metadata.
	Plan []byte
	// StateTransitionTime is the layout 1 entry's stateTransitionTime, when set. Hudi 1.x
	// writes the instant's completion time there; what 0.14/0.15 wrote (the instant file's
	// modification time, formatted as an instant time) is UNVERIFIED, so it is kept apart
	// from Instant.Completion.
	StateTransitionTime string
	// Source is the archive file the instant's most advanced state was read from, relative
	// to the storage root.
	Source string
}

// LoadArchived reads the archived instants of a table whose timeline has the given layout,
// sorted by instant time. archiveFolder is the table's hoodie.archivelog.folder for layout
// 1 (relative to .hoodie) or its hoodie.timeline.history.path for layout 2 (relative to the
// timeline folder); "" means the default. timelinePath is hoodie.timeline.path as for Load
// (layout 2 only).
//
// A missing archive folder means no archived instants, not an error: most tables never
// archive. Treating an explicitly empty property like an unset one is UNVERIFIED against
// Java (which would join "" and read .hoodie itself).
func LoadArchived(ctx context.Context, st storage.Storage, layout Layout, archiveFolder, timelinePath string) ([]ArchivedInstant, error) {
	return layout.loadArchived(ctx, st, layout.ArchiveDir(archiveFolder, timelinePath))
}

// ---------------------------------------------------------------------------------------
// Layout 1: .commits_.archive.N[_token] log files of HoodieArchivedMetaEntry records.

// archiveFilePrefix is what Java globs for (".commits_.archive*"); archiveFileRE extracts
// the file's version, which orders the files. Names without a parsable version sort as
// version 0, as in Java's ArchiveFileVersionComparator. The regex also matches the older
// names without a write token.
const archiveFilePrefix = ".commits_.archive"

var archiveFileRE = regexp.MustCompile(`^\.commits_\.archive\.([0-9]+)`)

// mergeArchivePlanName is the file Java writes before merging small archive files into
// one. A crash mid-merge leaves a half-written merged file that Java skips on read.
const mergeArchivePlanName = "mergeArchivePlan"

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
	// Ascending version order, so that when a merged archive file and the small files it
	// merged both survive a crash, the entries of the older files are the ones kept.
	sort.Slice(files, func(a, b int) bool {
		if files[a].version != files[b].version {
			return files[a].version < files[b].version
		}
		return files[a].name < files[b].name
	})

	schemas := map[string]*entrySchema{}
	acc := newEntryGroups()
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := storage.Join(dir, f.name)
		entries, err := readArchiveFile(ctx, st, p, schemas)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if isHalfMergedArchive(ctx, st, dir, f.name) {
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

func sortArchived(out []ArchivedInstant) {
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a].Instant, out[b].Instant
		if c := x.Time.Compare(y.Time); c != 0 {
			return c < 0
		}
		return x.Action < y.Action
	})
}

// ---------------------------------------------------------------------------------------
// Layout 2: the LSM timeline. `_version_` names the latest snapshot N; manifest_N lists the
// live parquet files; each row of those is a HoodieLSMTimelineInstant.

const (
	lsmVersionFile    = "_version_"
	lsmManifestPrefix = "manifest_"
)

var lsmManifestRE = regexp.MustCompile(`^manifest_([0-9]+)$`)

// Columns of HoodieLSMTimelineInstant (HoodieLSMTimelineInstant.avsc). The `version`
// column (always 1 so far) carries nothing a reader needs.
const (
	lsmColInstantTime    = "instantTime"
	lsmColCompletionTime = "completionTime"
	lsmColAction         = "action"
	lsmColMetadata       = "metadata"
	lsmColPlan           = "plan"
)

func loadLSMTimeline(ctx context.Context, st storage.Storage, dir string) ([]ArchivedInstant, error) {
	version, err := latestLSMVersion(ctx, st, dir)
	if err != nil {
		return nil, err
	}
	if version < 0 {
		return nil, nil // no snapshot yet (Java: HoodieLSMTimelineManifest.EMPTY)
	}
	mp := storage.Join(dir, lsmManifestPrefix+strconv.FormatInt(version, 10))
	data, err := st.ReadFile(ctx, mp)
	if err != nil {
		return nil, fmt.Errorf("read archived timeline manifest %s: %w", mp, err)
	}
	files, err := parseManifest(data, mp)
	if err != nil {
		return nil, err
	}
	var out []ArchivedInstant
	seen := map[groupKey]bool{}
	for _, f := range files {
		p := storage.Join(dir, f.Name)
		rows, err := readLSMFile(ctx, st, p)
		if err != nil {
			if errors.Is(err, storage.ErrNotExist) {
				return nil, fmt.Errorf("archived timeline manifest %s lists %s, which does not exist: %w", mp, f.Name, err)
			}
			return nil, err
		}
		for _, r := range rows {
			// A snapshot's files never overlap in Hudi; should they, report each instant once.
			k := groupKey{r.Instant.Time, r.Instant.Action.CompletedAction()}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, r)
		}
	}
	sortArchived(out)
	return out, nil
}

// latestLSMVersion returns the snapshot version to read, or -1 when there is none. Like
// Java's LSMTimeline.latestSnapshotVersion it trusts `_version_` when it parses as an int
// and otherwise (missing, unreadable, not a number) falls back to the highest manifest_N.
// The content is parsed as Integer.parseInt does, without trimming: a version file being
// rewritten may be empty, and the listing is then the better answer.
func latestLSMVersion(ctx context.Context, st storage.Storage, dir string) (int64, error) {
	data, err := st.ReadFile(ctx, storage.Join(dir, lsmVersionFile))
	if err == nil {
		if v, perr := strconv.ParseInt(string(data), 10, 32); perr == nil {
			return v, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	infos, err := st.List(ctx, dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return -1, nil
		}
		return 0, fmt.Errorf("list archived timeline %s: %w", dir, err)
	}
	latest := int64(-1)
	for _, fi := range infos {
		m := lsmManifestRE.FindStringSubmatch(fi.Name)
		if fi.IsDir || m == nil {
			continue
		}
		// Java parses the number as an int; a manifest number beyond that was not written
		// by Hudi and is ignored.
		if v, err := strconv.ParseInt(m[1], 10, 32); err == nil && v > latest {
			latest = v
		}
	}
	return latest, nil
}

// manifestFile is one entry of an LSM manifest (HoodieLSMTimelineManifest.LSMFileEntry).
type manifestFile struct {
	Name string
	// Len is fileLen, the file's length as recorded by the writer (informational).
	Len int64
}

// parseManifest parses an LSM manifest, Jackson JSON of HoodieLSMTimelineManifest:
// {"files":[{"fileName":"<min>_<max>_<level>.parquet","fileLen":N}, …]}. Property names
// are matched exactly (Jackson is case-sensitive) and unknown ones ignored
// (@JsonIgnoreProperties(ignoreUnknown = true)). Empty content is an empty manifest, as in
// Java's fromJsonString. File names must be plain names inside the history folder.
func parseManifest(data []byte, name string) ([]manifestFile, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("archived timeline manifest %s: not a JSON object: %w", name, err)
	}
	raw, ok := top["files"]
	if !ok || isJSONNull(raw) {
		return nil, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("archived timeline manifest %s: \"files\" is not an array: %w", name, err)
	}
	out := make([]manifestFile, 0, len(entries))
	for i, er := range entries {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(er, &e); err != nil || e == nil {
			return nil, fmt.Errorf("archived timeline manifest %s: files[%d] is not an object", name, i)
		}
		var mf manifestFile
		fn, ok := e["fileName"]
		if !ok || isJSONNull(fn) {
			return nil, fmt.Errorf("archived timeline manifest %s: files[%d] has no fileName", name, i)
		}
		if err := json.Unmarshal(fn, &mf.Name); err != nil {
			return nil, fmt.Errorf("archived timeline manifest %s: files[%d].fileName is not a string", name, i)
		}
		if !isPlainFileName(mf.Name) {
			return nil, fmt.Errorf("archived timeline manifest %s: files[%d].fileName %q is not a file name in the history folder", name, i, mf.Name)
		}
		if fl, ok := e["fileLen"]; ok && !isJSONNull(fl) {
			n, err := parseJSONLong(fl)
			if err != nil {
				return nil, fmt.Errorf("archived timeline manifest %s: files[%d].fileLen: %w", name, i, err)
			}
			mf.Len = n
		}
		out = append(out, mf)
	}
	return out, nil
}

func isJSONNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// parseJSONLong reads a long as Jackson does: a JSON integer, or a string holding one.
func parseJSONLong(raw json.RawMessage) (int64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(bytes.TrimSpace(raw))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a long", raw)
	}
	return n, nil
}

// isPlainFileName rejects names that would leave the history folder when joined to it.
func isPlainFileName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\\\x00")
}

// readLSMFile reads the rows of one LSM timeline parquet file. Every row is a completed
// instant: Java archives ActiveActions, which always have a completed instant.
func readLSMFile(ctx context.Context, st storage.Storage, p string) ([]ArchivedInstant, error) {
	f, err := st.Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("open archived timeline file %s: %w", p, err)
	}
	defer f.Close()
	pf, err := parquet.Open(f, f.Size(), p, memory.DefaultAllocator, 0)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	rr, err := pf.RecordReader(ctx, nil, nil)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []ArchivedInstant
	row := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		cols, err := lsmColumns(rec)
		if err != nil {
			return nil, fmt.Errorf("archived timeline file %s: %w", p, err)
		}
		for i := 0; i < int(rec.NumRows()); i, row = i+1, row+1 {
			ts, ok := cols.instantTime.value(i)
			if !ok || len(ts) == 0 {
				return nil, fmt.Errorf("archived timeline file %s: row %d has no instantTime", p, row)
			}
			action, _ := cols.action.value(i)
			if len(action) == 0 {
				return nil, fmt.Errorf("archived timeline file %s: instant %s (row %d) has no action", p, ts, row)
			}
			completion, _ := cols.completionTime.value(i)
			in := ArchivedInstant{
				Instant: Instant{
					Time:       spec.InstantTime(ts),
					Action:     spec.Action(action),
					State:      spec.StateCompleted,
					Completion: spec.InstantTime(completion),
				},
				Metadata: cols.metadata.bytes(i),
				Plan:     cols.plan.bytes(i),
				Source:   p,
			}
			in.Instant.Requested = lsmRequestedAction(in.Instant.Action, in.Plan != nil)
			out = append(out, in)
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("archived timeline file %s: %w", p, err)
	}
	return out, nil
}

// lsmRequestedAction infers the action an archived instant was requested as. The LSM row
// keeps only the completed action, but createLSMTimelineInstant stores a plan for a commit
// only when it was a compaction, and for a deltacommit only when it was a log compaction.
// A replacecommit may have been a clustering or a plain replace either way; telling them
// apart would take decoding the plan, so it is reported as a replacecommit.
func lsmRequestedAction(completed spec.Action, hasPlan bool) spec.Action {
	if hasPlan {
		switch completed {
		case spec.ActionCommit:
			return spec.ActionCompaction
		case spec.ActionDeltaCommit:
			return spec.ActionLogCompaction
		}
	}
	return completed
}

type lsmCols struct {
	instantTime, completionTime, action, metadata, plan binaryCol
}

// lsmColumns finds the columns by name. Parquet-avro should write Avro strings as
// UTF8-annotated binary (read as arrow strings) and Avro bytes as plain binary (UNVERIFIED
// on Java-written bytes: no fixture has an LSM timeline), so any binary-like column is
// accepted for each.
func lsmColumns(rec arrow.RecordBatch) (lsmCols, error) {
	var c lsmCols
	sc := rec.Schema()
	bind := func(name string, dst *binaryCol, required bool) error {
		idx := sc.FieldIndices(name)
		if len(idx) == 0 {
			if required {
				return fmt.Errorf("no %s column", name)
			}
			return nil
		}
		col := rec.Column(idx[0])
		switch a := col.(type) {
		case *array.String:
			dst.get = func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }
		case *array.LargeString:
			dst.get = func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }
		case *array.Binary:
			dst.get = func(i int) (string, bool) { return string(a.Value(i)), a.IsValid(i) }
		case *array.LargeBinary:
			dst.get = func(i int) (string, bool) { return string(a.Value(i)), a.IsValid(i) }
		default:
			return fmt.Errorf("column %s has type %s, not string or binary", name, col.DataType())
		}
		return nil
	}
	for _, b := range []struct {
		name     string
		dst      *binaryCol
		required bool
	}{
		{lsmColInstantTime, &c.instantTime, true},
		{lsmColAction, &c.action, true},
		{lsmColCompletionTime, &c.completionTime, false},
		{lsmColMetadata, &c.metadata, false},
		{lsmColPlan, &c.plan, false},
	} {
		if err := bind(b.name, b.dst, b.required); err != nil {
			return c, err
		}
	}
	return c, nil
}

// binaryCol reads one string/binary column; a column the file lacks reads as all null.
type binaryCol struct {
	get func(i int) (string, bool)
}

func (c binaryCol) value(i int) (string, bool) {
	if c.get == nil {
		return "", false
	}
	return c.get(i)
}

// bytes copies the value out of the arrow buffers, which are released with the batch.
// Null and empty values are nil: Java stores no metadata for an empty instant file.
func (c binaryCol) bytes(i int) []byte {
	s, ok := c.value(i)
	if !ok || s == "" {
		return nil
	}
	return []byte(s)
}
