// Package clean is the cleaning table service (table version 6): it deletes file slices
// that no query within the retention can need any more, following Java 0.14's
// CleanPlanner, CleanPlanActionExecutor and CleanActionExecutor
// (hudi-client/hudi-client-common/src/main/java/org/apache/hudi/table/action/clean/).
//
// A clean is planned (Plan), recorded as <T>.clean.requested holding a HoodieCleanerPlan
// (Schedule), and executed: <T>.clean.inflight (the plan again), the deletions, then
// <T>.clean holding HoodieCleanMetadata (Execute). Run does what Java's inline clean does
// after a commit; DryRun reports the same without changing anything.
//
// Planning lists only the partitions written since the last clean when it can, as Java's
// incremental mode does (hoodie.cleaner.incremental.mode, default true): a slice can only
// become cleanable when a later commit writes its file group, so the partitions of the
// commits between the last clean's earliest retained instant and the new one hold every
// newly cleanable file. That keeps the clean that follows each write proportional to the
// write, not to the table. hoodie.clean.async is ignored: cleaning is inline.
package clean

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/hudi-go/hudi/commit"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/format/commitmeta"
	"github.com/hudi-go/hudi/fsview"
	"github.com/hudi-go/hudi/spec"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/table"
	"github.com/hudi-go/hudi/timeline"
)

// Policy is hoodie.cleaner.policy.
type Policy string

// Cleaning policies (Java's HoodieCleaningPolicy).
const (
	// KeepLatestCommits keeps every slice a query at any of the last N completed commits
	// can read (hoodie.cleaner.commits.retained).
	KeepLatestCommits Policy = "KEEP_LATEST_COMMITS"
	// KeepLatestFileVersions keeps the latest N slices of every file group
	// (hoodie.cleaner.fileversions.retained).
	KeepLatestFileVersions Policy = "KEEP_LATEST_FILE_VERSIONS"
	// KeepLatestByHours keeps every slice a query at any commit of the last N hours can
	// read (hoodie.cleaner.hours.retained).
	KeepLatestByHours Policy = "KEEP_LATEST_BY_HOURS"
)

// Failed-writes policies (hoodie.cleaner.policy.failed.writes).
const (
	FailedWritesEager = "EAGER" // the writer rolls failed writes back before writing
	FailedWritesLazy  = "LAZY"  // the cleaner rolls back writes whose heartbeat expired
	FailedWritesNever = "NEVER"
)

// ErrUnsupported marks tables this service does not clean.
var ErrUnsupported = errors.New("not supported")

// Options configure a clean.
type Options struct {
	Policy               Policy
	CommitsRetained      int // KEEP_LATEST_COMMITS
	FileVersionsRetained int // KEEP_LATEST_FILE_VERSIONS
	HoursRetained        int // KEEP_LATEST_BY_HOURS
	// MaxCommits is hoodie.clean.max.commits: completed commits since the last clean
	// before a new clean is planned (trigger strategy NUM_COMMITS).
	MaxCommits int
	// FullScan turns incremental planning off (hoodie.cleaner.incremental.mode=false):
	// every partition is listed on every plan.
	FullScan bool
	// FailedWrites is hoodie.cleaner.policy.failed.writes; with LAZY, Run first rolls
	// back pending writes whose heartbeat expired.
	FailedWrites string
	Heartbeat    commit.HeartbeatOptions
	// Now replaces the clock (tests); it also anchors KEEP_LATEST_BY_HOURS.
	Now func() time.Time
	// TimelineZone is the timeline's time zone; nil takes the table's
	// (hoodie.table.timeline.timezone: UTC, else local).
	TimelineZone *time.Location
	Logger       *slog.Logger
	// Instant is the instant time a new clean plan takes ("": a new one from the clock).
	// The metadata table's cleans take its latest deltacommit's plus Java's suffix "002".
	Instant spec.InstantTime
	// Metadata keeps the table's metadata table current (hoodie.metadata.enable; nil: the
	// operation deletes the metadata table, as Java does with it disabled).
	Metadata table.MetadataWriter
}

// OptionsFromConfig reads the cleaning keys. Like Java 0.14 (HUDI-5954), when
// hoodie.cleaner.policy is not set explicitly and exactly one retention key is, that key
// picks the policy.
func OptionsFromConfig(cfg *config.Config) (Options, error) {
	o := Options{
		Policy:               Policy(strings.ToUpper(cfg.String(config.CleanerPolicy))),
		CommitsRetained:      cfg.Int(config.CleanerCommitsRetained),
		FileVersionsRetained: cfg.Int(config.CleanerFileVersionsRetained),
		HoursRetained:        cfg.Int(config.CleanerHoursRetained),
		MaxCommits:           cfg.Int(config.CleanMaxCommits),
		FullScan:             !cfg.Bool(config.CleanerIncrementalMode),
		FailedWrites:         strings.ToUpper(cfg.String(config.FailedWritesCleanerPolicy)),
	}
	if !cfg.IsSet(config.CleanerPolicy) {
		var inferred []Policy
		if cfg.IsSet(config.CleanerCommitsRetained) {
			inferred = append(inferred, KeepLatestCommits)
		}
		if cfg.IsSet(config.CleanerHoursRetained) {
			inferred = append(inferred, KeepLatestByHours)
		}
		if cfg.IsSet(config.CleanerFileVersionsRetained) {
			inferred = append(inferred, KeepLatestFileVersions)
		}
		if len(inferred) == 1 {
			o.Policy = inferred[0]
		}
	}
	return o, o.validate()
}

func (o Options) validate() error {
	switch o.Policy {
	case KeepLatestCommits:
		if o.CommitsRetained < 1 {
			return fmt.Errorf("%s=%d: want at least 1", config.CleanerCommitsRetained.Name, o.CommitsRetained)
		}
	case KeepLatestFileVersions:
		if o.FileVersionsRetained < 1 {
			return fmt.Errorf("%s=%d: want at least 1", config.CleanerFileVersionsRetained.Name, o.FileVersionsRetained)
		}
	case KeepLatestByHours:
		if o.HoursRetained < 0 {
			return fmt.Errorf("%s=%d: want 0 or more", config.CleanerHoursRetained.Name, o.HoursRetained)
		}
	default:
		return fmt.Errorf("%s=%q: want KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS", config.CleanerPolicy.Name, o.Policy)
	}
	switch o.FailedWrites {
	case "", FailedWritesEager, FailedWritesLazy, FailedWritesNever:
	default:
		return fmt.Errorf("%s=%q: want EAGER, LAZY or NEVER", config.FailedWritesCleanerPolicy.Name, o.FailedWrites)
	}
	return nil
}

func (o Options) withDefaults(t *table.Table) Options {
	if o.Policy == "" {
		o.Policy = KeepLatestCommits
	}
	if o.CommitsRetained == 0 {
		o.CommitsRetained = 10
	}
	if o.FileVersionsRetained == 0 {
		o.FileVersionsRetained = 3
	}
	if o.MaxCommits <= 0 {
		o.MaxCommits = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.TimelineZone == nil {
		o.TimelineZone = time.Local
		if tz, _ := t.Config.Props.Get(table.KeyTimelineTimezone); strings.EqualFold(tz, "UTC") {
			o.TimelineZone = time.UTC
		}
	}
	return o
}

// timeline is the handle a clean changes the timeline of the table rooted at st through
// (o with its defaults). A clean takes no lock of its own: its callers hold it.
func (o Options) timeline(st storage.Storage) *commit.Timeline {
	return commit.NewTimeline(st, commit.TimelineOptions{Now: o.Now, Zone: o.TimelineZone, Heartbeat: o.Heartbeat, Logger: o.Logger, Metadata: o.Metadata})
}

// Result summarizes a clean (the CLI's --format json object).
type Result struct {
	// Instant is the last clean instant completed ("" when nothing was cleaned, or in a
	// dry run).
	Instant      string `json:"instant,omitempty"`
	Action       string `json:"action"`
	Operation    string `json:"operation"`
	FilesDeleted int    `json:"files_deleted"`
	BytesDeleted int64  `json:"bytes_deleted"`
	Policy       string `json:"policy,omitempty"`
	// EarliestInstantToRetain is the oldest commit still fully queryable after the clean
	// (KEEP_LATEST_COMMITS / KEEP_LATEST_BY_HOURS).
	EarliestInstantToRetain string   `json:"earliest_instant_to_retain,omitempty"`
	PartitionsDeleted       []string `json:"partitions_deleted,omitempty"`
	// FailedDeletes counts planned files that were already gone or could not be deleted.
	FailedDeletes int  `json:"failed_deletes,omitempty"`
	DryRun        bool `json:"dry_run,omitempty"`
	// Files lists, in a dry run, the files that would be deleted (relative paths).
	Files []string `json:"files,omitempty"`
	// RolledBack lists failed writes rolled back first (LAZY failed-writes policy).
	RolledBack []string `json:"rolled_back,omitempty"`
	Message    string   `json:"message,omitempty"`
}

func newResult() *Result {
	return &Result{Action: string(spec.ActionClean), Operation: "clean"}
}

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
// under root (the storage root), as Java's are.
func (s *Selection) CleanerPlan(root string) *commitmeta.CleanerPlan {
	p := &commitmeta.CleanerPlan{
		EarliestInstantToRetain:          s.EarliestInstantToRetain,
		LastCompletedCommitTimestamp:     string(s.LastCompletedCommit),
		Policy:                           string(s.Policy),
		FilesToBeDeletedPerPartition:     map[string][]string{},
		Version:                          commitmeta.CleanPlanVersion,
		FilePathsToBeDeletedPerPartition: map[string][]commitmeta.CleanFileInfo{},
		PartitionsToBeDeleted:            append([]string{}, s.PartitionsToDelete...),
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

func check(t *table.Table) error {
	if t.Timeline.Layout != 1 {
		return fmt.Errorf("table %s is version %d: cleaning is %w for table versions 8+ (version 6 only)", t.Config.Name(), t.Version, ErrUnsupported)
	}
	return nil
}

// ---------------------------------------------------------------------------------------
// Planning

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
func (s *tableState) groups(p fsview.PartitionFiles) map[spec.FileID]*group {
	vis := fsview.NewVisibility(s.t.Timeline, "")
	type acc struct {
		slices map[spec.InstantTime]*slice
	}
	accs := map[spec.FileID]*acc{}
	get := func(id spec.FileID, base spec.InstantTime) *slice {
		a := accs[id]
		if a == nil {
			a = &acc{slices: map[spec.InstantTime]*slice{}}
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
	for _, lf := range logs {
		f := logInfo[lf.String()]
		sl := get(lf.FileID, lf.Instant)
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
	return out
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
	sel := &Selection{Policy: o.Policy}
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
		listing, err = fsview.ListPartitionsIn(ctx, t.Storage, parts)
	} else {
		listing, err = t.List(ctx)
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
		files, deletePartition := s.partition(p, o, earliest)
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
func (s *tableState) partition(p fsview.PartitionFiles, o Options, earliest *timeline.Instant) ([]File, bool) {
	groups := s.groups(p)
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
	return out, deletePartition
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

// ---------------------------------------------------------------------------------------
// Scheduling and execution

// Schedule plans a clean and, when it deletes anything, writes <T>.clean.requested (Java
// 0.14 writes no plan that deletes nothing). It returns "" when there is nothing to clean.
func Schedule(ctx context.Context, st storage.Storage, o Options) (spec.InstantTime, *Selection, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return "", nil, err
	}
	if err := check(t); err != nil {
		return "", nil, err
	}
	if t, err = prepare(ctx, t, o); err != nil {
		return "", nil, err
	}
	return schedule(ctx, t, o)
}

func schedule(ctx context.Context, t *table.Table, o Options) (spec.InstantTime, *Selection, error) {
	o = o.withDefaults(t)
	sel, err := Plan(ctx, t, o)
	if err != nil {
		return "", nil, err
	}
	for _, p := range sel.Leftovers {
		if err := t.Storage.Delete(ctx, p); err != nil {
			return "", nil, fmt.Errorf("remove a dead writer's temp file: %w", err)
		}
	}
	if len(sel.Files) == 0 {
		return "", sel, nil
	}
	body, err := commitmeta.EncodeCleanerPlan(sel.CleanerPlan(storage.URI(t.Storage, "")))
	if err != nil {
		return "", nil, err
	}
	if o.Instant != "" {
		if err := o.timeline(t.Storage).RequestCleanAt(ctx, t.Timeline, o.Instant, body); err != nil {
			return "", nil, err
		}
		return o.Instant, sel, nil
	}
	inst, err := o.timeline(t.Storage).RequestClean(ctx, t.Timeline, body)
	if err != nil {
		return "", nil, err
	}
	return inst, sel, nil
}

// Execute runs every pending clean, oldest first (including one a killed run left
// inflight), and returns one result per clean completed.
func Execute(ctx context.Context, st storage.Storage, o Options) ([]*Result, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := check(t); err != nil {
		return nil, err
	}
	if t, err = prepare(ctx, t, o); err != nil {
		return nil, err
	}
	out, _, err := executePending(ctx, t, o.withDefaults(t))
	return out, err
}

// executePending completes the pending cleans of t's timeline, as Execute does, on a
// table the caller has just opened (Run after a commit: one listing of .hoodie instead
// of one per step). touched reports whether there was any pending clean (completed or,
// when it had no plan, removed): then t's timeline is stale.
func executePending(ctx context.Context, t *table.Table, o Options) (out []*Result, touched bool, err error) {
	for _, in := range t.Timeline.Instants {
		if in.Action != spec.ActionClean || in.IsCompleted() {
			continue
		}
		touched = true
		r, err := execute(ctx, t, in, o)
		if err != nil {
			return out, touched, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, touched, nil
}

// readPlan reads a pending clean's plan: the requested file, else (a requested file
// already removed by hand) the inflight one. nil means the instant has no plan content.
func readPlan(ctx context.Context, t *table.Table, in timeline.Instant) ([]byte, *commitmeta.CleanerPlan, error) {
	state := spec.StateRequested
	if _, ok := in.File(state); !ok {
		state = spec.StateInflight
	}
	p, _ := in.File(state)
	b, err := t.Storage.ReadFile(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("read clean plan %s: %w", p, err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, nil, nil
	}
	plan, err := commitmeta.DecodeCleanerPlan(b)
	if err != nil {
		return nil, nil, fmt.Errorf("clean plan %s: %w", p, err)
	}
	return b, plan, nil
}

// planFile turns a plan entry (a full path or URI as Java writes it) into a path relative
// to the table root: the plan's partition plus the file name.
func planFile(partition, filePath string) string {
	return storage.Join(partition, path.Base(filePath))
}

func execute(ctx context.Context, t *table.Table, in timeline.Instant, o Options) (*Result, error) {
	st := t.Storage
	start := o.Now()
	body, plan, err := readPlan(ctx, t, in)
	if err != nil {
		return nil, err
	}
	ct := o.timeline(st)
	if plan == nil {
		return nil, ct.RemoveEmptyClean(ctx, in)
	}
	if err := ct.BeginClean(ctx, t.Timeline, in, body); err != nil {
		return nil, err
	}
	res := newResult()
	res.Instant, res.Policy = string(in.Time), plan.Policy
	meta := &commitmeta.CleanMetadata{
		StartCleanTime:               string(in.Time),
		LastCompletedCommitTimestamp: plan.LastCompletedCommitTimestamp,
		PartitionMetadata:            map[string]commitmeta.CleanPartitionMetadata{},
		Version:                      commitmeta.CleanMetadataVersion,
		BootstrapPartitionMetadata:   map[string]commitmeta.CleanPartitionMetadata{},
	}
	if e := plan.EarliestInstantToRetain; e != nil {
		meta.EarliestCommitToRetain = e.Timestamp
		res.EarliestInstantToRetain = e.Timestamp
	}
	files := plan.FilePathsToBeDeletedPerPartition
	if files == nil && len(plan.FilesToBeDeletedPerPartition) > 0 {
		// A version-1 plan (Java before 0.8) lists file names only.
		files = map[string][]commitmeta.CleanFileInfo{}
		for p, names := range plan.FilesToBeDeletedPerPartition {
			for _, n := range names {
				files[p] = append(files[p], commitmeta.CleanFileInfo{FilePath: n})
			}
		}
	}
	toDelete := map[string]bool{}
	for _, p := range plan.PartitionsToBeDeleted {
		toDelete[p] = true
	}
	partitions := make([]string, 0, len(files))
	for p := range files {
		partitions = append(partitions, p)
	}
	sort.Strings(partitions)
	for _, part := range partitions {
		pm := commitmeta.CleanPartitionMetadata{PartitionPath: part, Policy: plan.Policy, DeletePathPatterns: []string{},
			SuccessDeleteFiles: []string{}, FailedDeleteFiles: []string{}, IsPartitionDeleted: toDelete[part]}
		for _, f := range files[part] {
			if f.IsBootstrapBaseFile {
				o.Logger.Warn("clean plan names a bootstrap base file; bootstrap tables are not supported, leaving it", "instant", in.Time, "file", f.FilePath)
				continue
			}
			rel := planFile(part, f.FilePath)
			name := path.Base(rel)
			pm.DeletePathPatterns = append(pm.DeletePathPatterns, name)
			// Like Java, a file already gone (a retried clean) is reported as failed.
			fi, err := st.Stat(ctx, rel)
			if err == nil {
				err = st.Delete(ctx, rel)
			}
			if err != nil {
				if !errors.Is(err, storage.ErrNotExist) {
					o.Logger.Warn("clean could not delete a file", "instant", in.Time, "file", rel, "error", err)
				}
				pm.FailedDeleteFiles = append(pm.FailedDeleteFiles, name)
				res.FailedDeletes++
				continue
			}
			pm.SuccessDeleteFiles = append(pm.SuccessDeleteFiles, name)
			res.FilesDeleted++
			res.BytesDeleted += fi.Size
		}
		meta.PartitionMetadata[part] = pm
	}
	for _, part := range plan.PartitionsToBeDeleted {
		if part == "" {
			continue // never the table root
		}
		if err := storage.DeleteTree(ctx, st, part); err != nil {
			o.Logger.Warn("clean could not delete a partition", "instant", in.Time, "partition", part, "error", err)
			continue
		}
		res.PartitionsDeleted = append(res.PartitionsDeleted, part)
	}
	meta.TotalFilesDeleted = int32(res.FilesDeleted)
	meta.TimeTakenInMillis = o.Now().Sub(start).Milliseconds()
	mb, err := commitmeta.EncodeCleanMetadata(meta)
	if err != nil {
		return nil, err
	}
	if err := ct.CompleteClean(ctx, t.Timeline, in.Time, mb); err != nil {
		return nil, err
	}
	return res, nil
}

// Run is the clean Java runs after a commit: with LAZY failed-writes it first rolls back
// writes whose heartbeat expired; it finishes pending cleans, then, when enough commits
// happened since the last clean, plans a new one and executes it. (Java schedules the new
// plan before finishing older ones; finishing first avoids planning files an older plan
// is about to delete. The end state is the same.)
func Run(ctx context.Context, st storage.Storage, o Options) (*Result, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := commit.CheckNoPendingRestore(ctx, st, t.Timeline, "clean"); err != nil {
		return nil, err
	}
	if err := check(t); err != nil {
		return nil, err
	}
	if t, err = prepare(ctx, t, o); err != nil {
		return nil, err
	}
	o = o.withDefaults(t)
	if err := o.validate(); err != nil {
		return nil, err
	}
	// What dead writers left under .hoodie; their temp files in the partitions the plan
	// scans go as it is scheduled (Selection.Leftovers).
	ct := o.timeline(st)
	ct.RemoveLeftovers(ctx, t.Timeline)
	res := newResult()
	res.Policy = string(o.Policy)
	if o.FailedWrites == FailedWritesLazy {
		rolled, err := ct.RollbackExpiredWrites(ctx, t.Timeline)
		if err != nil {
			return nil, err
		}
		for _, r := range rolled {
			res.RolledBack = append(res.RolledBack, string(r))
		}
	}
	add := func(r *Result) {
		res.Instant = r.Instant
		res.FilesDeleted += r.FilesDeleted
		res.BytesDeleted += r.BytesDeleted
		res.FailedDeletes += r.FailedDeletes
		res.PartitionsDeleted = append(res.PartitionsDeleted, r.PartitionsDeleted...)
		if r.EarliestInstantToRetain != "" {
			res.EarliestInstantToRetain = r.EarliestInstantToRetain
		}
	}
	if len(res.RolledBack) > 0 {
		// The rollbacks changed the timeline: pending cleans and the commits to count are
		// read from storage again.
		if t, err = table.Open(ctx, st); err != nil {
			return res, err
		}
	}
	done, touched, err := executePending(ctx, t, o)
	for _, r := range done {
		add(r)
	}
	if err != nil {
		return res, err
	}
	if touched {
		// Completed cleans move the point from which commits are counted; re-read the
		// timeline. With nothing pending (the usual case after a commit) t is current.
		if t, err = table.Open(ctx, st); err != nil {
			return res, err
		}
	}
	need, err := needsCleaning(ctx, t, o)
	if err != nil {
		return res, err
	}
	if need {
		inst, sel, err := schedule(ctx, t, o)
		if err != nil {
			return res, err
		}
		if sel.EarliestInstantToRetain != nil && res.EarliestInstantToRetain == "" {
			res.EarliestInstantToRetain = sel.EarliestInstantToRetain.Timestamp
		}
		if inst != "" {
			done, err := Execute(ctx, st, o)
			for _, r := range done {
				add(r)
			}
			if err != nil {
				return res, err
			}
		}
	}
	if res.Instant == "" {
		res.Message = "nothing to clean"
	}
	return res, nil
}

// DryRun reports what Run would delete now — the files of pending clean plans and of a
// new plan — and changes nothing (no rollback, no timeline file, no deletion).
func DryRun(ctx context.Context, st storage.Storage, o Options) (*Result, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := check(t); err != nil {
		return nil, err
	}
	o = o.withDefaults(t)
	if err := o.validate(); err != nil {
		return nil, err
	}
	res := newResult()
	res.Policy, res.DryRun = string(o.Policy), true
	seen := map[string]bool{}
	addFile := func(rel string, size int64) {
		if !seen[rel] {
			seen[rel] = true
			res.Files = append(res.Files, rel)
			res.FilesDeleted++
			res.BytesDeleted += size
		}
	}
	for _, in := range t.Timeline.Instants {
		if in.Action != spec.ActionClean || in.IsCompleted() {
			continue
		}
		_, plan, err := readPlan(ctx, t, in)
		if err != nil || plan == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		for part, files := range plan.FilePathsToBeDeletedPerPartition {
			for _, f := range files {
				rel := planFile(part, f.FilePath)
				if fi, err := st.Stat(ctx, rel); err == nil {
					addFile(rel, fi.Size)
				}
			}
		}
	}
	need, err := needsCleaning(ctx, t, o)
	if err != nil {
		return nil, err
	}
	if need {
		sel, err := Plan(ctx, t, o)
		if err != nil {
			return nil, err
		}
		if sel.EarliestInstantToRetain != nil {
			res.EarliestInstantToRetain = sel.EarliestInstantToRetain.Timestamp
		}
		for _, f := range sel.Files {
			addFile(f.Path, f.Size)
		}
		if len(sel.Files) > 0 {
			res.PartitionsDeleted = sel.PartitionsToDelete
		}
	}
	sort.Strings(res.Files)
	if len(res.Files) == 0 {
		res.Message = "nothing to clean"
	}
	return res, nil
}

// prepare is table.PrepareChange with o's clock and logger: a clean deletes files, so it
// first refuses tables hudi-go cannot write and disables a metadata table.
func prepare(ctx context.Context, t *table.Table, o Options) (*table.Table, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	return t.PrepareChangeFor(ctx, now(), o.Logger, o.Metadata)
}
