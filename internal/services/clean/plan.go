package clean

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// File is one file a clean deletes.
type File struct {
	Partition string
	Path      string // relative to the table root
	Size      int64
}

// Selection is what a clean plan deletes.
type Selection struct {
	Policy Policy
	// EarliestInstantToRetain is nil for KEEP_LATEST_FILE_VERSIONS, and when there are
	// too few commits to clean anything.
	EarliestInstantToRetain *commitmeta.ActionInstant
	LastCompletedCommit     spec.InstantTime
	// Partitions are the partitions the plan covers (Java 0.14 lists every partition it
	// scanned, with or without files to delete).
	Partitions []string
	Files      []File // sorted by path
	// PartitionsToDelete are partitions left without file groups, deleted whole.
	PartitionsToDelete []string
	// Savepoints are the completed savepoints whose files the selection keeps; Hudi 1.x
	// records them in the plan's extraMetadata (CleanerPlan with extra).
	Savepoints []spec.InstantTime
	// Leftovers are temp files of atomic creates that dead writers left in the partitions
	// scanned (commit.DeadPartitionTempFile). They are not part of the plan (Java's has no
	// such entry): a clean that is not a dry run deletes them as it schedules.
	Leftovers []string
}

// Bytes is the total size of the selected files.
func (s *Selection) Bytes() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.Size
	}
	return n
}

// CleanerPlan is the selection as the Avro plan Java writes; file paths are absolute
// under root (the storage root), as Java's are. With extra (Hudi 1.x, timeline layout 2)
// the plan carries extraMetadata as CleanPlanActionExecutor.prepareExtraMetadata fills it:
// the savepointed instants, comma-separated, under "savepointed_timestamps", or an empty
// map when there are none.
func (s *Selection) CleanerPlan(root string, extra bool) *commitmeta.CleanerPlan {
	p := &commitmeta.CleanerPlan{
		EarliestInstantToRetain:          s.EarliestInstantToRetain,
		LastCompletedCommitTimestamp:     string(s.LastCompletedCommit),
		Policy:                           string(s.Policy),
		FilesToBeDeletedPerPartition:     map[string][]string{},
		Version:                          commitmeta.CleanPlanVersion,
		FilePathsToBeDeletedPerPartition: map[string][]commitmeta.CleanFileInfo{},
		PartitionsToBeDeleted:            append([]string{}, s.PartitionsToDelete...),
	}
	if extra {
		p.ExtraMetadata = map[string]string{}
		if len(s.Savepoints) > 0 {
			ts := make([]string, len(s.Savepoints))
			for i, sp := range s.Savepoints {
				ts[i] = string(sp)
			}
			p.ExtraMetadata[commitmeta.SavepointedTimestampsKey] = strings.Join(ts, ",")
		}
	}
	for _, part := range s.Partitions {
		p.FilePathsToBeDeletedPerPartition[part] = []commitmeta.CleanFileInfo{}
	}
	for _, f := range s.Files {
		p.FilePathsToBeDeletedPerPartition[f.Partition] = append(p.FilePathsToBeDeletedPerPartition[f.Partition],
			commitmeta.CleanFileInfo{FilePath: absPath(root, f.Path)})
	}
	return p
}

// absPath names a file of the clean plan as Java's CleanPlanner does (CleanFileInfo of
// HoodieBaseFile.getPath / HoodieLogFile.getPath().toString(): the full path with its
// scheme, "file:/…"; UNVERIFIED against a 0.14 plan: no fixture has a clean). root is
// the storage's URI.
func absPath(root, rel string) string {
	return strings.TrimSuffix(root, "/") + "/" + rel
}

// slice is one file slice as Java's file-system view holds it on layout 1: the base file
// of a committed base instant (if any) and the log files named with that base instant.
type slice struct {
	base    spec.InstantTime
	files   []File // base file first, then logs
	names   []string
	hasBase bool
}

// group is a file group with its committed slices, newest first (Java's getAllFileSlices
// order).
type group struct {
	partition string
	id        spec.FileID
	slices    []*slice
}

// tableState is what planning needs from the timeline.
type tableState struct {
	t              *table.Table
	completed      []timeline.Instant                          // completed commits, deltacommits, replacecommits
	replacedAt     map[string]map[spec.FileID]spec.InstantTime // partition → replaced group → replacing instant
	pendingCompact map[string]spec.InstantTime                 // partition/fileID → base instant of the pending (log) compaction
	protected      map[string]bool                             // names of savepointed or pending-clustering files
	protectedParts map[string]bool                             // partitions holding protected files
	savepoints     []spec.InstantTime                          // completed savepoints, oldest first
}

func loadState(ctx context.Context, t *table.Table) (*tableState, error) {
	s := &tableState{t: t, completed: t.Timeline.DataInstants(), replacedAt: map[string]map[spec.FileID]spec.InstantTime{},
		pendingCompact: map[string]spec.InstantTime{}, protected: map[string]bool{}, protectedParts: map[string]bool{}}
	for _, in := range s.completed {
		if in.Action != spec.ActionReplaceCommit {
			continue
		}
		cm, err := t.CommitMetadata(ctx, in)
		if err != nil {
			return nil, err
		}
		for p, ids := range cm.PartitionToReplaceFileIDs {
			if s.replacedAt[p] == nil {
				s.replacedAt[p] = map[spec.FileID]spec.InstantTime{}
			}
			for _, id := range ids {
				if _, ok := s.replacedAt[p][spec.FileID(id)]; !ok {
					s.replacedAt[p][spec.FileID(id)] = in.Time
				}
			}
		}
	}
	for _, in := range t.Timeline.PendingCompactions() {
		b, err := t.Timeline.ReadRequested(ctx, t.Storage, in)
		if err != nil {
			return nil, err
		}
		plan, err := commitmeta.DecodeCompactionPlan(b)
		if err != nil {
			return nil, fmt.Errorf("%s plan %s: %w", in.Action, in.Time, err)
		}
		for _, op := range plan.Operations {
			s.pendingCompact[op.PartitionPath+"/"+op.FileID] = spec.InstantTime(op.BaseInstantTime)
		}
	}
	for _, in := range t.Timeline.Instants {
		switch {
		case in.Action == spec.ActionSavepoint && in.IsCompleted():
			s.savepoints = append(s.savepoints, in.Time)
			b, err := t.Timeline.ReadCompleted(ctx, t.Storage, in)
			if err != nil {
				return nil, err
			}
			m, err := commitmeta.DecodeSavepointMetadata(b)
			if err != nil {
				return nil, fmt.Errorf("savepoint %s: %w", in.Time, err)
			}
			for p, names := range m.Partitions {
				for _, n := range names {
					s.protected[path.Base(n)] = true
				}
				if len(names) > 0 {
					s.protectedParts[p] = true
				}
			}
		case !in.IsCompleted() && (in.Action == spec.ActionReplaceCommit || in.Action == spec.ActionClustering):
			// Java protects a pending clustering's input only by keeping every group's
			// latest slice (clustering plans latest slices, and writers may not touch
			// groups under clustering). Naming the plan's files here keeps them even
			// if that invariant is ever broken; in a valid table it selects nothing more.
			if _, ok := in.File(spec.StateRequested); !ok {
				continue
			}
			b, err := t.Timeline.ReadRequested(ctx, t.Storage, in)
			if err != nil {
				return nil, err
			}
			r, err := commitmeta.DecodeRequestedReplace(b)
			if err != nil {
				return nil, fmt.Errorf("requested replace metadata of %s: %w", in.Time, err)
			}
			if r.ClusteringPlan == nil {
				continue
			}
			for _, g := range r.ClusteringPlan.InputGroups {
				for _, sl := range g.Slices {
					if sl.DataFilePath != "" {
						s.protected[path.Base(sl.DataFilePath)] = true
					}
					for _, d := range sl.DeltaFilePaths {
						s.protected[path.Base(d)] = true
					}
					s.protectedParts[sl.PartitionPath] = true
				}
			}
		}
	}
	return s, nil
}

// earliestToRetain is CleanerUtils.getEarliestCommitToRetain.
func (s *tableState) earliestToRetain(o Options) *timeline.Instant {
	switch o.Policy {
	case KeepLatestCommits:
		n := len(s.completed)
		if n <= o.CommitsRetained {
			return nil
		}
		nth := s.completed[n-o.CommitsRetained]
		// The earliest commit to retain must not be later than the earliest pending
		// commit, deltacommit, replacecommit or compaction: its files are still being
		// written against older slices. UNVERIFIED that 0.14.1 has this rule (it is in
		// the stored CleanerUtils); it only ever retains more.
		for _, in := range s.t.Timeline.Instants {
			if in.IsCompleted() || !in.Action.IsDataAction() {
				continue
			}
			if nth.Time.Compare(in.Time) <= 0 {
				return &nth
			}
			var before *timeline.Instant
			for i := range s.completed {
				if s.completed[i].Time.Less(in.Time) {
					before = &s.completed[i]
				}
			}
			return before
		}
		return &nth
	case KeepLatestByHours:
		cutoff := spec.InstantTimeOf(o.Now().Add(-time.Duration(o.HoursRetained)*time.Hour), o.TimelineZone)
		for i := range s.completed {
			if s.completed[i].Time.Compare(cutoff) >= 0 {
				return &s.completed[i]
			}
		}
	}
	return nil
}

// groups forms the partition's file groups from its listing the way Java's view does on
// layout 1: a slice per committed base instant, holding the committed base file of that
// instant and every log file named with it.
func (s *tableState) groups(ctx context.Context, p fsview.PartitionFiles) (map[spec.FileID]*group, error) {
	vis := fsview.NewVisibility(s.t.Timeline, "")
	accs := map[spec.FileID]*sliceAcc{}
	get := func(id spec.FileID, base spec.InstantTime) *slice {
		a := accs[id]
		if a == nil {
			a = &sliceAcc{slices: map[spec.InstantTime]*slice{}}
			accs[id] = a
		}
		sl := a.slices[base]
		if sl == nil {
			sl = &slice{base: base}
			a.slices[base] = sl
		}
		return sl
	}
	// Base files first (sorted by name, so of two committed files of one instant the
	// later write token wins like in fsview), then logs in version order.
	files := append([]storage.FileInfo(nil), p.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		if b, ok := spec.ParseBaseFileName(f.Name); ok {
			sl := get(b.FileID, b.Instant)
			file := File{Partition: p.Path, Path: storage.Join(p.Path, f.Name), Size: f.Size}
			if sl.hasBase {
				// A retried task left a second base file: like fsview, the later token
				// is the slice's; the earlier one is garbage Java never sees either.
				sl.files[0], sl.names[0] = file, f.Name
				continue
			}
			sl.hasBase = true
			sl.files = append([]File{file}, sl.files...)
			sl.names = append([]string{f.Name}, sl.names...)
		}
	}
	var logs []spec.LogFileName
	logInfo := map[string]storage.FileInfo{}
	for _, f := range files {
		if lf, ok := spec.ParseLogFileName(f.Name); ok {
			logs = append(logs, lf)
			logInfo[lf.String()] = f
		}
	}
	sort.Slice(logs, func(i, j int) bool { return spec.CompareLogFiles(logs[i], logs[j]) < 0 })
	byCompletion := s.t.Timeline.Layout.CompletionTimes()
	for _, lf := range logs {
		f := logInfo[lf.String()]
		slot := lf.Instant
		if byCompletion {
			var err error
			if slot, err = logSlot(ctx, accs[lf.FileID], lf.Instant, vis); err != nil {
				return nil, fmt.Errorf("place log file %s: %w", storage.Join(p.Path, f.Name), err)
			}
		}
		sl := get(lf.FileID, slot)
		sl.files = append(sl.files, File{Partition: p.Path, Path: storage.Join(p.Path, f.Name), Size: f.Size})
		sl.names = append(sl.names, f.Name)
	}
	out := map[spec.FileID]*group{}
	for id, a := range accs {
		g := &group{partition: p.Path, id: id}
		for base, sl := range a.slices {
			// Java's getAllFileSlices: only slices of committed base instants (a pending
			// compaction's slice and a failed write's files are not in the view).
			if !vis.Committed(base) {
				continue
			}
			g.slices = append(g.slices, sl)
		}
		if len(g.slices) == 0 {
			continue
		}
		sort.Slice(g.slices, func(i, j int) bool { return g.slices[j].base.Less(g.slices[i].base) })
		out[id] = g
	}
	return out, nil
}

// sliceAcc collects the slices of one file group by base instant.
type sliceAcc struct {
	slices map[spec.InstantTime]*slice
}

// logSlot is the base instant of the slice a layout-2 log file belongs to. Its name
// carries the deltacommit that wrote it, not a base instant: like the reader (fsview), it
// joins the slice of the latest committed base file at or before that deltacommit's
// completion time. A log of a write not completed (still running, or failed and not yet
// rolled back) joins the latest slice, which is never cleaned; a log older than every
// base file keeps its own instant (a log-only slice, as on layout 1).
func logSlot(ctx context.Context, a *sliceAcc, written spec.InstantTime, vis *fsview.Visibility) (spec.InstantTime, error) {
	at, err := vis.CompletionTime(ctx, written)
	if err != nil {
		return "", err
	}
	pending := !vis.Committed(written) || at == ""
	var best spec.InstantTime
	if a != nil {
		for base, sl := range a.slices {
			if !sl.hasBase || !vis.Committed(base) {
				continue
			}
			if (pending || base.Compare(at) <= 0) && best.Less(base) {
				best = base
			}
		}
	}
	if best == "" {
		return written, nil
	}
	return best, nil
}

func (s *tableState) isProtected(sl *slice) bool {
	for _, n := range sl.names {
		if s.protected[n] {
			return true
		}
	}
	return false
}

// neededForPendingCompaction: a slice at or after the base instant of a pending
// (log) compaction of its group is the compaction's input or output.
func (s *tableState) neededForPendingCompaction(g *group, sl *slice) bool {
	base, ok := s.pendingCompact[g.partition+"/"+string(g.id)]
	return ok && sl.base.Compare(base) >= 0
}

// Plan selects the files a clean of t would delete now (CleanPlanner), without writing.
func Plan(ctx context.Context, t *table.Table, o Options) (*Selection, error) {
	if err := check(t); err != nil {
		return nil, err
	}
	o = o.withDefaults(t)
	if err := o.validate(); err != nil {
		return nil, err
	}
	s, err := loadState(ctx, t)
	if err != nil {
		return nil, err
	}
	sel := &Selection{Policy: o.Policy, Savepoints: s.savepoints}
	if n := len(s.completed); n > 0 {
		sel.LastCompletedCommit = s.completed[n-1].Time
	}
	var earliest *timeline.Instant
	if o.Policy != KeepLatestFileVersions {
		earliest = s.earliestToRetain(o)
		if earliest == nil {
			return sel, nil // too few commits: nothing to scan
		}
		sel.EarliestInstantToRetain = &commitmeta.ActionInstant{Timestamp: string(earliest.Time),
			Action: string(earliest.Action), State: "COMPLETED"}
	}
	var listing *fsview.Listing
	parts, incremental, err := s.incrementalPartitions(ctx, o, earliest)
	if err != nil {
		return nil, err
	}
	if incremental {
		listing, err = t.FilesIn(ctx, table.FilesOptions{Logger: o.Logger}, parts)
	} else {
		listing, err = t.Files(ctx, table.FilesOptions{Logger: o.Logger})
	}
	if err != nil {
		return nil, err
	}
	for _, p := range listing.Partitions {
		for _, f := range p.Files {
			if !f.IsDir && commit.DeadPartitionTempFile(ctx, t.Storage, t.Timeline, f.Name, f.ModTime, o.Now(), o.Heartbeat) {
				sel.Leftovers = append(sel.Leftovers, storage.Join(p.Path, f.Name))
			}
		}
		sel.Partitions = append(sel.Partitions, p.Path)
		files, deletePartition, err := s.partition(ctx, p, o, earliest)
		if err != nil {
			return nil, err
		}
		sel.Files = append(sel.Files, files...)
		if deletePartition {
			sel.PartitionsToDelete = append(sel.PartitionsToDelete, p.Path)
		}
	}
	sort.Slice(sel.Files, func(i, j int) bool { return sel.Files[i].Path < sel.Files[j].Path })
	return sel, nil
}

// incrementalPartitions is CleanPlanner.getPartitionPathsToClean in incremental mode:
// for the commit-based policies, when the last completed clean recorded an earliest
// commit to retain that is still on the active timeline, the partitions written (or
// replaced) by completed commits from that instant up to, not including, the new earliest
// instant to retain. ok is false where Java lists every partition instead.
func (s *tableState) incrementalPartitions(ctx context.Context, o Options, earliest *timeline.Instant) (parts []string, ok bool, err error) {
	if o.FullScan || earliest == nil || (o.Policy != KeepLatestCommits && o.Policy != KeepLatestByHours) {
		return nil, false, nil
	}
	var last *timeline.Instant
	for _, in := range s.t.Timeline.Instants {
		if in.Action == spec.ActionClean && in.IsCompleted() {
			in := in
			last = &in
		}
	}
	if last == nil {
		return nil, false, nil
	}
	b, err := s.t.Timeline.ReadCompleted(ctx, s.t.Storage, *last)
	if err != nil {
		return nil, false, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, false, nil // an empty clean file (Java deletes it and scans fully)
	}
	m, err := commitmeta.DecodeClean(b)
	if err != nil {
		return nil, false, fmt.Errorf("clean metadata %s: %w", last.Time, err)
	}
	from := spec.InstantTime(m.EarliestCommitToRetain)
	if from == "" || s.t.Timeline.IsBeforeStart(from) {
		return nil, false, nil
	}
	seen := map[string]bool{}
	for _, in := range s.completed {
		if in.Time.Less(from) || !in.Time.Less(earliest.Time) {
			continue
		}
		cm, err := s.t.CommitMetadata(ctx, in)
		if err != nil {
			return nil, false, err
		}
		for p := range cm.PartitionToWriteStats {
			seen[p] = true
		}
		for p := range cm.PartitionToReplaceFileIDs {
			seen[p] = true
		}
	}
	for p := range seen {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return parts, true, nil
}

// partition is CleanPlanner.getDeletePaths for one partition.
func (s *tableState) partition(ctx context.Context, p fsview.PartitionFiles, o Options, earliest *timeline.Instant) ([]File, bool, error) {
	groups, err := s.groups(ctx, p)
	if err != nil {
		return nil, false, err
	}
	replaced := s.replacedAt[p.Path]
	var active []*group
	var replacedGroups []*group
	ids := make([]spec.FileID, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if at, ok := replaced[id]; ok {
			// Replaced groups are deleted whole once their replacing commit is older
			// than the earliest commit to retain (any age for FILE_VERSIONS).
			if earliest == nil || at.Less(earliest.Time) {
				replacedGroups = append(replacedGroups, groups[id])
			}
			continue
		}
		active = append(active, groups[id])
	}
	var out []File
	for _, g := range replacedGroups {
		for _, sl := range g.slices {
			if !s.isProtected(sl) {
				out = append(out, sl.files...)
			}
		}
	}
	switch o.Policy {
	case KeepLatestFileVersions:
		for _, g := range active {
			keep := o.FileVersionsRetained
			if _, ok := s.pendingCompact[g.partition+"/"+string(g.id)]; ok {
				keep-- // the slice kept for the pending compaction counts as a version
			}
			for _, sl := range g.slices {
				if s.neededForPendingCompaction(g, sl) {
					continue
				}
				if keep > 0 {
					keep--
					continue
				}
				if !s.isProtected(sl) {
					out = append(out, sl.files...)
				}
			}
		}
	default: // KEEP_LATEST_COMMITS, KEEP_LATEST_BY_HOURS
		for _, g := range active {
			latest := g.slices[0].base
			var lastBeforeEarliest spec.InstantTime
			for _, sl := range g.slices {
				if sl.base.Less(earliest.Time) {
					lastBeforeEarliest = sl.base
					break
				}
			}
			for _, sl := range g.slices {
				// Kept: savepointed slices, the latest slice, the slice a query at the
				// earliest retained commit reads, slices at or after that commit, and
				// slices a pending compaction needs.
				if s.isProtected(sl) || sl.base == latest || sl.base == lastBeforeEarliest {
					continue
				}
				if !s.neededForPendingCompaction(g, sl) && sl.base.Less(earliest.Time) {
					out = append(out, sl.files...)
				}
			}
		}
	}
	// Java deletes a partition left without file groups. We also keep it while it holds a
	// savepointed or clustering-input file (Java would delete the directory with them).
	deletePartition := len(active) == 0 && !s.hasPendingFiles(p) && !s.protectedParts[p.Path]
	if deletePartition && earliest != nil {
		// Not while a replacecommit at or after the earliest retained commit still
		// needs the partition's replaced groups for time travel.
		for _, at := range replaced {
			if at.Compare(earliest.Time) >= 0 {
				deletePartition = false
			}
		}
	}
	return out, deletePartition, nil
}

// hasPendingFiles reports whether the partition holds data files of groups that are not
// replaced, committed or not (Java's hasPendingFiles: an inflight write's files keep the
// partition).
func (s *tableState) hasPendingFiles(p fsview.PartitionFiles) bool {
	replaced := s.replacedAt[p.Path]
	for _, f := range p.Files {
		if b, ok := spec.ParseBaseFileName(f.Name); ok {
			if _, r := replaced[b.FileID]; !r {
				return true
			}
		}
		if l, ok := spec.ParseLogFileName(f.Name); ok {
			if _, r := replaced[l.FileID]; !r {
				return true
			}
		}
	}
	return false
}

// needsCleaning is CleanPlanActionExecutor.needsCleaning with the NUM_COMMITS trigger:
// at least MaxCommits completed commits since the last completed commit the previous
// clean saw.
func needsCleaning(ctx context.Context, t *table.Table, o Options) (bool, error) {
	completed := t.Timeline.DataInstants()
	var last *timeline.Instant
	for _, in := range t.Timeline.Instants {
		if in.Action == spec.ActionClean && in.IsCompleted() {
			in := in
			last = &in
		}
	}
	n := len(completed)
	if last != nil {
		b, err := t.Timeline.ReadCompleted(ctx, t.Storage, *last)
		if err != nil {
			return false, err
		}
		if len(strings.TrimSpace(string(b))) > 0 {
			m, err := commitmeta.DecodeClean(b)
			if err != nil {
				return false, fmt.Errorf("clean metadata %s: %w", last.Time, err)
			}
			after := spec.InstantTime(m.LastCompletedCommitTimestamp)
			n = 0
			for _, in := range completed {
				if after.Less(in.Time) {
					n++
				}
			}
		}
	}
	return n >= o.MaxCommits, nil
}
