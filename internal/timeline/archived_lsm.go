package timeline

// Layout 2 (table versions 8 and 9): the LSM timeline history. `_version_` names the latest
// snapshot N; manifest_N lists the live parquet files; each row of those is a
// HoodieLSMTimelineInstant (sources in archived.go's header).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

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
	lsmColVersion        = "version"
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
