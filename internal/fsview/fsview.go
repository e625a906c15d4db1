// Package fsview builds Hudi's file-system view: partitions, file groups and file slices,
// as of an instant. It decides which files are committed and which slice each log file
// belongs to; it reads no data.
package fsview

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// PartitionMetadataFile marks a directory as a partition; Java's listing-based partition
// discovery ignores directories without it, and so do we.
const PartitionMetadataFile = ".hoodie_partition_metadata"

// BaseFile is a committed base file.
type BaseFile struct {
	Name spec.BaseFileName
	Path string // relative to the table root
	Size int64
}

// LogFile is a log file of a slice.
type LogFile struct {
	Name spec.LogFileName
	Path string
	Size int64
	// Completion is, on layout 2 tables, the completion time of the deltacommit that
	// wrote the file; it decides the slice the file belongs to.
	Completion spec.InstantTime
}

// FileSlice is one version of a file group: an optional base file and the log files
// written on top of it, oldest first.
type FileSlice struct {
	Partition   string
	FileID      spec.FileID
	BaseInstant spec.InstantTime
	Base        *BaseFile
	Logs        []LogFile
}

// FileGroup is a partition's file group with its slices, oldest first.
type FileGroup struct {
	Partition string
	FileID    spec.FileID
	Slices    []FileSlice
}

// Latest returns the group's latest slice.
func (g *FileGroup) Latest() *FileSlice {
	if len(g.Slices) == 0 {
		return nil
	}
	return &g.Slices[len(g.Slices)-1]
}

// Listing is the raw content of a table's partitions: every file name with its size.
type Listing struct {
	Partitions []PartitionFiles
	// NotPartitions are directories that hold Hudi data file names but no partition
	// metadata file. Java's listing ignores them too; callers warn, since such a
	// directory usually means a damaged or hand-copied partition.
	NotPartitions []string
}

// PartitionFiles is one partition's files.
type PartitionFiles struct {
	Path  string // relative partition path, "" for a non-partitioned table
	Files []storage.FileInfo
}

// ListPartitions walks the table directory and returns every partition (directory with a
// partition metadata file) with its files. .hoodie and other hidden directories are
// skipped; a partition's subdirectories are not searched.
func ListPartitions(ctx context.Context, st storage.Storage) (*Listing, error) {
	l := &Listing{}
	if err := walk(ctx, st, "", l); err != nil {
		return nil, err
	}
	sort.Slice(l.Partitions, func(i, j int) bool { return l.Partitions[i].Path < l.Partitions[j].Path })
	return l, nil
}

// ListPartitionsIn lists only the given partitions (relative paths, "" for a
// non-partitioned table's root) — for services that know from the timeline which
// partitions changed. A partition that no longer exists or holds no partition metadata
// file is left out; subdirectories are not searched.
func ListPartitionsIn(ctx context.Context, st storage.Storage, partitions []string) (*Listing, error) {
	l := &Listing{}
	seen := map[string]bool{}
	for _, dir := range partitions {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := st.List(ctx, dir)
		if errors.Is(err, storage.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list partition %q: %w", dir, err)
		}
		var files []storage.FileInfo
		isPartition := false
		for _, e := range entries {
			if e.IsDir {
				continue
			}
			files = append(files, e)
			if strings.HasPrefix(e.Name, PartitionMetadataFile) {
				isPartition = true
			}
		}
		if isPartition {
			l.Partitions = append(l.Partitions, PartitionFiles{Path: dir, Files: files})
		}
	}
	sort.Slice(l.Partitions, func(i, j int) bool { return l.Partitions[i].Path < l.Partitions[j].Path })
	return l, nil
}

func walk(ctx context.Context, st storage.Storage, dir string, l *Listing) error {
	entries, err := st.List(ctx, dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) && dir != "" {
			return nil // removed while we walked
		}
		return fmt.Errorf("list partition %q: %w", dir, err)
	}
	isPartition := false
	for _, e := range entries {
		if !e.IsDir && strings.HasPrefix(e.Name, PartitionMetadataFile) {
			isPartition = true
			break
		}
	}
	if !isPartition && dir != "" && holdsDataFiles(entries) {
		l.NotPartitions = append(l.NotPartitions, dir)
	}
	if isPartition {
		var files []storage.FileInfo
		for _, e := range entries {
			if !e.IsDir {
				files = append(files, e)
			}
		}
		l.Partitions = append(l.Partitions, PartitionFiles{Path: dir, Files: files})
		if dir != "" {
			return nil
		}
	}
	for _, e := range entries {
		if e.IsDir && !strings.HasPrefix(e.Name, ".") {
			if err := walk(ctx, st, storage.Join(dir, e.Name), l); err != nil {
				return err
			}
		}
	}
	return nil
}

func holdsDataFiles(entries []storage.FileInfo) bool {
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		if _, ok := spec.ParseBaseFileName(e.Name); ok {
			return true
		}
		if _, ok := spec.ParseLogFileName(e.Name); ok {
			return true
		}
	}
	return false
}

// Options say which view to build.
type Options struct {
	// AsOf limits the view to data instants with requested time <= AsOf; empty means the
	// latest state.
	AsOf spec.InstantTime
	// Replaced holds the file groups retired by visible replacecommits, per partition.
	Replaced map[string]map[spec.FileID]bool
}

// View is the file-system view as of an instant.
type View struct {
	Groups []*FileGroup // sorted by partition, then file ID
}

// Visibility decides which instants' files are committed and visible.
type Visibility struct {
	tl   *timeline.Timeline
	asOf spec.InstantTime
}

// NewVisibility returns the visibility rules of tl as of asOf ("" = latest).
func NewVisibility(tl *timeline.Timeline, asOf spec.InstantTime) *Visibility {
	return &Visibility{tl: tl, asOf: asOf}
}

// InRange reports whether ts is at or before the query instant.
func (v *Visibility) InRange(ts spec.InstantTime) bool {
	return v.asOf == "" || ts.Compare(v.asOf) <= 0
}

// Committed reports whether data written by instant ts is visible: ts is a completed data
// instant at or before the query instant, or older than every instant of the active
// timeline, which Java takes as archived and committed (containsOrBeforeTimelineStarts,
// used by the file-system view of both timeline layouts). Without that rule a table whose
// old commits were archived would lose their files.
func (v *Visibility) Committed(ts spec.InstantTime) bool {
	if !v.InRange(ts) {
		return false
	}
	if _, ok := v.tl.CompletedDataInstant(ts); ok {
		return true
	}
	return v.tl.IsBeforeStart(ts)
}

// CompletionTime returns the completion time of a visible data instant (layout 2): from
// the active timeline, or, for an instant older than it, from the archived timeline when
// the timeline has one (timeline.Timeline.WithArchive; loaded on first need). For layout 1,
// and for an instant neither timeline holds, it returns ts itself.
//
// Java (HoodieFileGroup.getBaseInstantTime) puts the log of an instant whose completion
// time it cannot find into the latest file slice, taking it as pending. hudi-go asks only
// about committed instants (Committed), and for an archived one the history does not list
// (a damaged or hand-removed history) it keeps the slice of the instant's own time, its
// placement before archived completion times were read: that is right for every write
// that completed before the next compaction was planned, while the latest slice would
// apply an already compacted log a second time.
func (v *Visibility) CompletionTime(ctx context.Context, ts spec.InstantTime) (spec.InstantTime, error) {
	c, ok, err := v.tl.CompletionTime(ctx, ts)
	if err != nil {
		return "", fmt.Errorf("completion time of %s: %w", ts, err)
	}
	if !ok {
		return ts, nil
	}
	return c, nil
}

// Build builds the view from a listing. On layout 2 a log file joins the slice its
// deltacommit's completion time falls in; for a deltacommit older than the active timeline
// that time comes from the archived timeline, which Build then reads (hence ctx and the
// error).
func Build(ctx context.Context, l *Listing, tl *timeline.Timeline, opts Options) (*View, error) {
	vis := NewVisibility(tl, opts.AsOf)
	view := &View{}
	for _, p := range l.Partitions {
		groups := map[spec.FileID]*groupBuilder{}
		get := func(id spec.FileID) *groupBuilder {
			g := groups[id]
			if g == nil {
				g = &groupBuilder{}
				groups[id] = g
			}
			return g
		}
		replaced := opts.Replaced[p.Path]
		for _, f := range p.Files {
			if b, ok := spec.ParseBaseFileName(f.Name); ok {
				if replaced[b.FileID] || !vis.Committed(b.Instant) {
					continue
				}
				get(b.FileID).bases = append(get(b.FileID).bases, BaseFile{Name: b, Path: storage.Join(p.Path, f.Name), Size: f.Size})
				continue
			}
			if lf, ok := spec.ParseLogFileName(f.Name); ok && !lf.CDC() {
				if replaced[lf.FileID] {
					continue
				}
				log := LogFile{Name: lf, Path: storage.Join(p.Path, f.Name), Size: f.Size}
				if tl.Layout.CompletionTimes() {
					// The name carries the writing deltacommit: an uncommitted or later
					// write's file is not part of this view at all.
					if !vis.Committed(lf.Instant) {
						continue
					}
					c, err := vis.CompletionTime(ctx, lf.Instant)
					if err != nil {
						return nil, fmt.Errorf("place log file %s: %w", log.Path, err)
					}
					log.Completion = c
				}
				get(lf.FileID).logs = append(get(lf.FileID).logs, log)
			}
		}
		ids := make([]spec.FileID, 0, len(groups))
		for id := range groups {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			if g := groups[id].build(p.Path, id, tl.Layout.CompletionTimes()); g != nil {
				view.Groups = append(view.Groups, g)
			}
		}
	}
	return view, nil
}

type groupBuilder struct {
	bases []BaseFile
	logs  []LogFile
}

// build forms the slices of one file group. A log file joins the slice with the largest
// base instant at or before its key — the base instant in its name (layout 1) or its
// completion time (layout 2). Logs written against a compaction that has not committed
// therefore join the previous slice, which is how Java merges a pending compaction's
// slice into the one before it.
func (b *groupBuilder) build(partition string, id spec.FileID, byCompletion bool) *FileGroup {
	sort.Slice(b.bases, func(i, j int) bool {
		if c := b.bases[i].Name.Instant.Compare(b.bases[j].Name.Instant); c != 0 {
			return c < 0
		}
		// Two committed base files of one instant (a retried task): the later token wins
		// by being last.
		return b.bases[i].Name.WriteToken < b.bases[j].Name.WriteToken
	})
	g := &FileGroup{Partition: partition, FileID: id}
	for i := range b.bases {
		base := b.bases[i]
		if n := len(g.Slices); n > 0 && g.Slices[n-1].BaseInstant == base.Name.Instant {
			g.Slices[n-1].Base = &base
			continue
		}
		g.Slices = append(g.Slices, FileSlice{Partition: partition, FileID: id, BaseInstant: base.Name.Instant, Base: &base})
	}
	key := func(l LogFile) spec.InstantTime {
		if byCompletion {
			return l.Completion
		}
		return l.Name.Instant
	}
	sort.Slice(b.logs, func(i, j int) bool {
		if byCompletion {
			if c := b.logs[i].Completion.Compare(b.logs[j].Completion); c != 0 {
				return c < 0
			}
		}
		return spec.CompareLogFiles(b.logs[i].Name, b.logs[j].Name) < 0
	})
	var headless *FileSlice // logs older than every base file: a log-only slice
	for _, l := range b.logs {
		k := key(l)
		idx := -1
		for i := len(g.Slices) - 1; i >= 0; i-- {
			if g.Slices[i].BaseInstant.Compare(k) <= 0 {
				idx = i
				break
			}
		}
		if idx < 0 {
			if headless == nil {
				headless = &FileSlice{Partition: partition, FileID: id, BaseInstant: l.Name.Instant}
			}
			headless.Logs = append(headless.Logs, l)
			continue
		}
		g.Slices[idx].Logs = append(g.Slices[idx].Logs, l)
	}
	if headless != nil {
		g.Slices = append([]FileSlice{*headless}, g.Slices...)
	}
	if len(g.Slices) == 0 {
		return nil
	}
	return g
}

// LatestSlices returns the latest slice of every file group.
func (v *View) LatestSlices() []FileSlice {
	out := make([]FileSlice, 0, len(v.Groups))
	for _, g := range v.Groups {
		out = append(out, *g.Latest())
	}
	return out
}

// Partitions returns the partitions that have at least one file group in the view.
func (v *View) Partitions() []string {
	var out []string
	for _, g := range v.Groups {
		if len(out) == 0 || out[len(out)-1] != g.Partition {
			out = append(out, g.Partition)
		}
	}
	return out
}
