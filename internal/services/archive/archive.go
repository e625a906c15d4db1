// Package archive is the timeline archival table service. On table version 6 it moves
// old instants from .hoodie/ into .hoodie/archived/.commits_.archive.<N>_<token>, Hudi
// log files whose Avro data blocks hold HoodieArchivedMetaEntry records, one record per
// timeline file (requested, inflight, completed) of each archived instant. On versions 8
// and 9 it moves them into the LSM timeline history (lsm.go).
//
// Which instants go follows Hudi 0.14's HoodieTimelineArchiver (apache/hudi,
// hudi-client-common/.../client/HoodieTimelineArchiver.java, the version with
// ArchivalUtils.getMinAndMaxInstantsToKeep and the HUDI-7207 ordered deletes), with
// CompactionUtils.getOldestInstantToRetainForCompaction and
// ClusteringUtils.getOldestInstantToRetainForClustering:
//
//   - completed commits, deltacommits and replacecommits are archived only once there
//     are more than hoodie.keep.max.commits of them, oldest first, until
//     hoodie.keep.min.commits remain, and never at or after: the latest completed commit
//     before the oldest pending write instant (or that pending instant itself), the first
//     savepoint, the delta commits a MOR table keeps to trigger compaction, and the
//     replacecommits whose replaced files the last clean has not reached;
//   - completed cleans and completed rollbacks are bounded the same way, each action on
//     its own;
//   - savepoints and pending instants are never archived.
//
// Archive-file merging (hoodie.archive.merge.*) is not implemented: Java only merges on
// storage without append, and readers handle any number of small files.
package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Options are the archival settings.
type Options struct {
	MinCommits int // hoodie.keep.min.commits
	MaxCommits int // hoodie.keep.max.commits
	BatchSize  int // hoodie.commits.archival.batch: records per log block

	CleanerPolicy          string // hoodie.cleaner.policy
	CleanerCommitsRetained int    // hoodie.cleaner.commits.retained
	CleanerHoursRetained   int    // hoodie.cleaner.hours.retained

	ArchiveBeyondSavepoint bool // hoodie.archive.beyond.savepoint

	// The LSM timeline's settings (layout 2): hoodie.timeline.compaction.batch.size and
	// the parquet writer's hoodie.parquet.compression.codec and
	// hoodie.parquet.dictionary.enabled, which Java's LSMTimelineWriter takes from the
	// write config.
	TimelineCompactionBatch int
	Compression             string
	Dictionary              bool

	CompactTriggerStrategy string // hoodie.compact.inline.trigger.strategy
	CompactDeltaCommitMax  int    // hoodie.compact.inline.max.delta.commits

	// TimelineZone is the zone instant times are written in (for KEEP_LATEST_BY_HOURS).
	TimelineZone *time.Location
	Logger       *slog.Logger
}

// OptionsFromConfig reads the archival settings and validates them with
// config.ValidateArchival (keep.max > keep.min > cleaner.commits.retained).
func OptionsFromConfig(cfg *config.Config) (Options, error) {
	if err := config.ValidateArchival(cfg); err != nil {
		return Options{}, err
	}
	o := Options{
		MinCommits:              cfg.Int(config.KeepMinCommits),
		MaxCommits:              cfg.Int(config.KeepMaxCommits),
		BatchSize:               cfg.Int(config.CommitsArchivalBatchSize),
		CleanerPolicy:           cfg.String(config.CleanerPolicy),
		CleanerCommitsRetained:  cfg.Int(config.CleanerCommitsRetained),
		CleanerHoursRetained:    cfg.Int(config.CleanerHoursRetained),
		ArchiveBeyondSavepoint:  cfg.Bool(config.ArchiveBeyondSavepoint),
		CompactTriggerStrategy:  cfg.String(config.InlineCompactTriggerStrategy),
		CompactDeltaCommitMax:   cfg.Int(config.InlineCompactNumDeltaCommits),
		TimelineCompactionBatch: cfg.Int(config.TimelineCompactionBatchSize),
		Compression:             cfg.String(config.ParquetCompressionCodec),
		Dictionary:              cfg.Bool(config.ParquetDictionaryEnabled),
	}
	if o.BatchSize <= 0 {
		return Options{}, fmt.Errorf("config: %s=%d must be positive", config.CommitsArchivalBatchSize.Name, o.BatchSize)
	}
	// Java's LSMTimelineWriter needs two files to merge; with fewer it would never compact.
	if o.TimelineCompactionBatch < 2 {
		return Options{}, fmt.Errorf("config: %s=%d must be at least 2", config.TimelineCompactionBatchSize.Name, o.TimelineCompactionBatch)
	}
	return o, nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.TimelineZone == nil {
		o.TimelineZone = time.Local
	}
	if o.BatchSize <= 0 {
		var defaults *config.Config // nil: every key reads as its default
		o.BatchSize = defaults.Int(config.CommitsArchivalBatchSize)
	}
	return o
}

// Plan is what an archival would do.
type Plan struct {
	// Instants are the instants to archive with all their timeline files, in the order
	// their entries are written: completed cleans, completed rollbacks, then commits.
	Instants []timeline.Instant
	// MinToKeep and MaxToKeep are the bounds used, after Java's adjustment to the
	// cleaner's retention (ArchivalUtils).
	MinToKeep, MaxToKeep int
	// Message says why nothing is archived, when nothing is.
	Message string
}

// ArchivedInstant names one archived instant in a Result.
type ArchivedInstant struct {
	Instant string `json:"instant"`
	Action  string `json:"action"`
	// States lists the timeline files archived for it (requested, inflight, completed).
	States []string `json:"states"`
}

// Result summarizes an archival (the CLI's --format json object). Archival has no instant
// of its own, so "instant" and "action" are omitted.
type Result struct {
	Operation        string            `json:"operation"`
	FilesWritten     int               `json:"files_written"`
	Bytes            int64             `json:"bytes,omitempty"`
	InstantsArchived []ArchivedInstant `json:"instants_archived"`
	ArchiveFile      string            `json:"archive_file,omitempty"`
	DryRun           bool              `json:"dry_run,omitempty"`
	Message          string            `json:"message,omitempty"`
}

// ErrUnsupported is returned for tables this service cannot archive
// (table.ErrUnsupportedWrite).
var ErrUnsupported = table.ErrUnsupportedWrite

// PlanArchive chooses the instants to archive from t's active timeline.
func PlanArchive(ctx context.Context, t *table.Table, o Options) (*Plan, error) {
	o = o.withDefaults()
	if err := t.CheckLayoutWrites(timeline.OpArchive); err != nil {
		return nil, err
	}
	if t.Timeline.Layout.LSMHistory() {
		return planLSM(ctx, t, o)
	}
	p := &Plan{}
	tl := t.Timeline
	commits := tl.Filter(func(in timeline.Instant) bool { return in.IsCompleted() && in.Action.IsDataAction() })
	p.MinToKeep, p.MaxToKeep = minMaxToKeepBy(commits, o, 1)

	var out []timeline.Instant
	for _, a := range []spec.Action{spec.ActionClean, spec.ActionRollback} {
		done := tl.Filter(func(in timeline.Instant) bool { return in.IsCompleted() && in.Action == a })
		if len(done) > p.MaxToKeep {
			out = append(out, done[:len(done)-p.MinToKeep]...)
		}
	}
	cs, err := commitsToArchive(ctx, t, commits, p.MinToKeep, p.MaxToKeep, o)
	if err != nil {
		return nil, err
	}
	out = append(out, cs...)
	n := len(out)
	if out, err = boundByMetadataTable(ctx, t, out); err != nil {
		return nil, err
	}
	if len(out) < n {
		p.Message = fmt.Sprintf("%d instants wait for the metadata table's next compaction (Java archives no instant at or after its latest)", n-len(out))
	}
	p.Instants = out
	if len(p.Instants) == 0 && p.Message == "" {
		p.Message = "nothing to archive"
	}
	return p, nil
}

// boundByMetadataTable keeps every instant at or after the metadata table's latest
// compaction, and all of them while it has none, as Java 0.14's archiver does when the
// table's metadata table is available (getInstantsToArchive, over cleans and rollbacks as
// well as commits): a metadata reader takes the log blocks of data instants it finds
// completed on the active timeline, so a data instant may leave it only once a compaction
// has merged its blocks into a base file. An archived clean whose block was not merged
// would bring the files it deleted back into the metadata table's listing.
func boundByMetadataTable(ctx context.Context, t *table.Table, cs []timeline.Instant) ([]timeline.Instant, error) {
	if len(cs) == 0 || !slices.Contains(t.Config.MetadataPartitions(), mdt.PartitionFiles) {
		return cs, nil
	}
	c, ok, err := mdt.LatestCompaction(ctx, t.Storage, t.Version)
	if err != nil {
		return nil, err
	}
	var out []timeline.Instant
	for _, in := range cs {
		if ok && in.Time.Compare(c) < 0 {
			out = append(out, in)
		}
	}
	return out, nil
}

// minMaxToKeepBy is ArchivalUtils.getMinAndMaxInstantsToKeep: when the cleaner retains more
// commits than keep.min would leave, both bounds move up so archival never overtakes the
// cleaner, to the commits after the cleaner's earliest commit to retain plus extra (1 as
// 0.14's HUDI-6370 did, 2 in Hudi 1.x). With keep.min > cleaner.commits.retained
// (enforced by OptionsFromConfig) this only changes anything for KEEP_LATEST_BY_HOURS.
func minMaxToKeepBy(commits []timeline.Instant, o Options, extra int) (int, int) {
	minKeep, maxKeep := o.MinCommits, o.MaxCommits
	ectr, ok := cleanerEarliestCommitToRetain(commits, o)
	if !ok {
		return minKeep, maxKeep
	}
	after := 0
	for _, c := range commits {
		if ectr.Less(c.Time) {
			after++
		}
	}
	// 0.14's HUDI-6370 counted the commits after the retained one plus one (later
	// releases add two); UNVERIFIED which one 0.14.1 shipped.
	if byCleaning := after + extra; minKeep < byCleaning {
		o.Logger.Warn("archival bounds are more aggressive than the cleaner's retention; raising them",
			"earliest_commit_to_retain", ectr, "hoodie.keep.min.commits", byCleaning,
			"hoodie.keep.max.commits", byCleaning+maxKeep-minKeep)
		return byCleaning, byCleaning + maxKeep - minKeep
	}
	return minKeep, maxKeep
}

// cleanerEarliestCommitToRetain is the earliest commit the cleaner's policy keeps
// (CleanerUtils.getEarliestCommitToRetain, reduced to the completed commits; its pending
// instant handling is UNVERIFIED here).
func cleanerEarliestCommitToRetain(commits []timeline.Instant, o Options) (spec.InstantTime, bool) {
	switch strings.ToUpper(o.CleanerPolicy) {
	case "KEEP_LATEST_COMMITS", "":
		if n := len(commits); n > o.CleanerCommitsRetained && o.CleanerCommitsRetained > 0 {
			return commits[n-o.CleanerCommitsRetained].Time, true
		}
	case "KEEP_LATEST_BY_HOURS":
		if len(commits) == 0 {
			return "", false
		}
		latest, err := commits[len(commits)-1].Time.Time(o.TimelineZone)
		if err != nil {
			return "", false
		}
		cutoff := spec.InstantTimeOf(latest.Add(-time.Duration(o.CleanerHoursRetained)*time.Hour), o.TimelineZone)
		for _, c := range commits {
			if c.Time.Compare(cutoff) >= 0 {
				return c.Time, true
			}
		}
	}
	return "", false
}

// commitsToArchive is getCommitInstantsToArchive of Java 0.14.
func commitsToArchive(ctx context.Context, t *table.Table, commits []timeline.Instant, minKeep, maxKeep int, o Options) ([]timeline.Instant, error) {
	if len(commits) <= maxKeep {
		return nil, nil
	}
	tl := t.Timeline
	isWrite := func(a spec.Action) bool {
		switch a {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit, spec.ActionCompaction, spec.ActionLogCompaction:
			return true
		}
		return false
	}
	// The oldest pending write and the latest completed commit before it: every commit
	// from there on stays, so the timeline never has a hole where the pending write sits.
	var retain []spec.InstantTime
	if pending := tl.Filter(func(in timeline.Instant) bool { return !in.IsCompleted() && isWrite(in.Action) }); len(pending) > 0 {
		oldest := pending[0].Time
		bound := oldest
		for i := len(commits) - 1; i >= 0; i-- {
			if commits[i].Time.Less(oldest) {
				bound = commits[i].Time
				break
			}
		}
		retain = append(retain, bound)
	}
	savepoints := map[spec.InstantTime]bool{}
	var firstSavepoint spec.InstantTime
	for _, in := range tl.Instants {
		if in.Action == spec.ActionSavepoint && in.IsCompleted() {
			savepoints[in.Time] = true
			if firstSavepoint == "" {
				firstSavepoint = in.Time
			}
		}
	}
	if firstSavepoint != "" && !o.ArchiveBeyondSavepoint {
		retain = append(retain, firstSavepoint)
	}
	if t.Type == spec.MergeOnRead {
		switch strings.ToUpper(o.CompactTriggerStrategy) {
		case "NUM_COMMITS", "NUM_AND_TIME":
			if in, ok := oldestToRetainForCompaction(tl, o.CompactDeltaCommitMax); ok {
				retain = append(retain, in)
			}
		}
	}
	clustering, err := oldestToRetainForClustering(ctx, t)
	if err != nil {
		return nil, err
	}
	if clustering != "" {
		retain = append(retain, clustering)
	}

	var out []timeline.Instant
	for _, c := range commits {
		if o.ArchiveBeyondSavepoint && savepoints[c.Time] {
			continue // skip the savepointed commit itself and go on past it
		}
		keep := false
		for _, r := range retain {
			if c.Time.Compare(r) >= 0 {
				keep = true
				break
			}
		}
		if !keep {
			out = append(out, c)
		}
	}
	if limit := len(commits) - minKeep; len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

// oldestToRetainForCompaction is CompactionUtils.getOldestInstantToRetainForCompaction:
// a MOR table keeps enough delta commits after its latest compaction to trigger the next
// one by count.
func oldestToRetainForCompaction(tl *timeline.Timeline, maxDeltaCommits int) (spec.InstantTime, bool) {
	var lastCompaction spec.InstantTime
	for _, in := range tl.Instants {
		if in.IsCompleted() && in.Action == spec.ActionCommit {
			lastCompaction = in.Time
		}
	}
	var deltas []timeline.Instant
	for _, in := range tl.Instants {
		if in.Action.CompletedAction() == spec.ActionDeltaCommit && in.Action != spec.ActionLogCompaction {
			if lastCompaction == "" || lastCompaction.Less(in.Time) {
				deltas = append(deltas, in)
			}
		}
	}
	var anchor spec.InstantTime
	switch {
	case lastCompaction != "":
		anchor = lastCompaction
	case len(deltas) > 0:
		anchor = deltas[0].Time
	default:
		return "", false
	}
	if len(deltas) < maxDeltaCommits {
		return anchor, true
	}
	return deltas[len(deltas)-maxDeltaCommits].Time, true
}

// oldestToRetainForClustering is ClusteringUtils.getOldestInstantToRetainForClustering: a
// replacecommit stays until the cleaner has passed it (its replaced file groups would
// otherwise come back for readers), measured by the earliestInstantToRetain of the last
// completed clean's plan, or the clean itself when the plan has none
// (KEEP_LATEST_FILE_VERSIONS); and the commit before the first inflight replacecommit stays.
func oldestToRetainForClustering(ctx context.Context, t *table.Table) (spec.InstantTime, error) {
	tl := t.Timeline
	replaces := tl.Filter(func(in timeline.Instant) bool { return in.Action.CompletedAction() == spec.ActionReplaceCommit })
	if len(replaces) == 0 {
		return "", nil
	}
	var oldest spec.InstantTime
	cleans := tl.Filter(func(in timeline.Instant) bool { return in.Action == spec.ActionClean && in.IsCompleted() })
	if len(cleans) > 0 {
		last := cleans[len(cleans)-1]
		bound, err := cleanRetainBound(ctx, t, last)
		if err != nil {
			return "", err
		}
		for _, r := range replaces {
			if r.Time.Compare(bound) >= 0 {
				oldest = r.Time
				break
			}
		}
	} else {
		oldest = replaces[0].Time
	}
	for _, r := range replaces {
		if r.State != spec.StateInflight {
			continue
		}
		var before spec.InstantTime
		for _, c := range tl.Instants {
			if c.IsCompleted() && c.Action.IsDataAction() && c.Time.Less(r.Time) {
				before = c.Time
			}
		}
		if before != "" && (oldest == "" || before.Less(oldest)) {
			oldest = before
		}
		break
	}
	return oldest, nil
}

// cleanRetainBound reads the earliestInstantToRetain of a completed clean's plan
// (<t>.clean.requested, a HoodieCleanerPlan container), falling back to the clean's own
// time when the plan has none. The plan is decoded here with internal/avro rather than
// through format/commitmeta, whose cleaner-plan decoder is being written concurrently.
func cleanRetainBound(ctx context.Context, t *table.Table, clean timeline.Instant) (spec.InstantTime, error) {
	p, ok := clean.File(spec.StateRequested)
	if !ok {
		return clean.Time, nil
	}
	data, err := t.Storage.ReadFile(ctx, p)
	if err != nil {
		return "", fmt.Errorf("read clean plan %s: %w", p, err)
	}
	ts, err := earliestInstantToRetain(data)
	if err != nil {
		return "", fmt.Errorf("clean plan %s: %w", p, err)
	}
	if ts == "" {
		return clean.Time, nil
	}
	return spec.InstantTime(ts), nil
}

// earliestInstantToRetain extracts HoodieCleanerPlan.earliestInstantToRetain.timestamp.
func earliestInstantToRetain(data []byte) (string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", nil
	}
	_, values, err := avro.ReadContainer(data)
	if err != nil {
		return "", err
	}
	if len(values) == 0 {
		return "", nil
	}
	m, _ := values[0].(map[string]any)
	e, _ := m["earliestInstantToRetain"].(map[string]any)
	ts, _ := e["timestamp"].(string)
	return ts, nil
}

// Run plans and, unless dryRun, executes an archival of the table at st.
func Run(ctx context.Context, st storage.Storage, dryRun bool, o Options) (*Result, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if !dryRun && t.CheckLayoutWrites(timeline.OpArchive) == nil {
		if t, err = FinishInterrupted(ctx, t, o); err != nil {
			return nil, err
		}
	}
	p, err := PlanArchive(ctx, t, o)
	if err != nil {
		return nil, err
	}
	if dryRun {
		return DryRun(p), nil
	}
	return Execute(ctx, t, p, o)
}

// FinishInterrupted removes from the active timeline the completed instants that the
// archived timeline already holds, and returns t reloaded when it removed any. An archival
// killed after it published its archive file but before it had removed every archived
// instant from the active timeline leaves those instants in both places (readers take the
// active copy). Java's archivers (0.14's HoodieTimelineArchiver, 1.x's
// TimelineArchiverV2) do not look at the archive before planning: their next run archives
// those instants again, into a second archive file, and the archived timeline's readers
// drop the duplicate (0.14's HoodieArchivedTimeline collects instants into a set; ours keep
// the first entry of each state). hudi-go finishes the interrupted removal first instead —
// our choice (docs/writing.md), so that each instant is archived once and the plan counts
// only instants not yet archived.
//
// What it reads is bounded: on layout 2 only the history files whose instant range reaches
// the active timeline (none after an uninterrupted archival); on layout 1 the newest
// archive log, which every archival writes anew (one archival's instants).
func FinishInterrupted(ctx context.Context, t *table.Table, o Options) (*table.Table, error) {
	first, ok := t.Timeline.First()
	if !ok {
		return t, nil
	}
	var archived []timeline.Instant
	var err error
	if t.Timeline.Layout.LSMHistory() {
		archived, err = timeline.ArchivedSince(ctx, t.Storage, t.ArchiveDir(), first.Time)
	} else {
		archived, err = timeline.LatestArchiveLogInstants(ctx, t.Storage, t.ArchiveDir())
	}
	if err != nil {
		return nil, fmt.Errorf("archive: read the archived timeline: %w", err)
	}
	if len(archived) == 0 {
		return t, nil
	}
	type key struct {
		time   spec.InstantTime
		action spec.Action
	}
	in := make(map[key]bool, len(archived))
	for _, a := range archived {
		in[key{a.Time, a.Action.CompletedAction()}] = true
	}
	var stale []timeline.Instant
	for _, a := range t.Timeline.Instants {
		if a.IsCompleted() && in[key{a.Time, a.Action.CompletedAction()}] {
			stale = append(stale, a)
		}
	}
	if len(stale) == 0 {
		return t, nil
	}
	if o.Logger != nil {
		o.Logger.Warn("an earlier archival was interrupted after writing the archived timeline: removing the instants it archived from the active timeline",
			"instants", len(stale), "first", stale[0].Time, "last", stale[len(stale)-1].Time)
	}
	ct := commit.NewTimeline(t.Storage, commit.TimelineOptions{Zone: o.TimelineZone, Logger: o.Logger})
	if err := ct.DeleteArchivedInstants(ctx, stale); err != nil {
		return nil, fmt.Errorf("archive: finish the interrupted archival: %w", err)
	}
	return t.Reopen(ctx)
}

// DryRun describes a plan as a Result without writing anything.
func DryRun(p *Plan) *Result {
	r := &Result{Operation: "archive", DryRun: true, Message: p.Message, InstantsArchived: describe(p.Instants)}
	return r
}

func describe(ins []timeline.Instant) []ArchivedInstant {
	out := []ArchivedInstant{}
	for _, in := range ins {
		a := ArchivedInstant{Instant: string(in.Time), Action: string(in.Action)}
		for _, s := range []spec.State{spec.StateRequested, spec.StateInflight, spec.StateCompleted} {
			if _, ok := in.File(s); ok {
				a.States = append(a.States, s.String())
			}
		}
		out = append(out, a)
	}
	return out
}

// Execute writes the plan's instants to a new archive log file, then deletes their
// timeline files (commit.Timeline.DeleteArchivedInstants).
func Execute(ctx context.Context, t *table.Table, p *Plan, o Options) (*Result, error) {
	o = o.withDefaults()
	res := &Result{Operation: "archive", Message: p.Message, InstantsArchived: describe(p.Instants)}
	if len(p.Instants) == 0 {
		return res, nil
	}
	if err := commit.CheckNoPendingRestore(ctx, t.Storage, t.Timeline, "archive"); err != nil {
		return nil, err
	}
	if t.Timeline.Layout.LSMHistory() {
		return res, executeLSM(ctx, t, p, o, res)
	}
	content, err := EncodeEntries(ctx, t.Storage, p.Instants, o.BatchSize)
	if err != nil {
		return nil, err
	}
	dir := storage.Join(timeline.MetaDir, archiveFolder(t))
	ct := commit.NewTimeline(t.Storage, commit.TimelineOptions{Zone: o.TimelineZone, Logger: o.Logger})
	path, err := ct.WriteArchiveLog(ctx, dir, content)
	if err != nil {
		return nil, err
	}
	res.ArchiveFile, res.FilesWritten, res.Bytes = path, 1, int64(len(content))
	if err := ct.DeleteArchivedInstants(ctx, p.Instants); err != nil {
		return res, fmt.Errorf("instants archived to %s, but removing them from the active timeline failed: %w", path, err)
	}
	return res, nil
}

func archiveFolder(t *table.Table) string {
	if f, ok := t.Config.Props.Get(table.KeyArchiveLogFolder); ok && f != "" {
		return f
	}
	return timeline.DefaultArchiveFolder
}

// EncodeEntries converts every timeline file of the instants into a
// HoodieArchivedMetaEntry and frames them as AVRO_DATA blocks of batch records each
// (Java's writeToFile: SCHEMA header only), ready to be written as one log file.
func EncodeEntries(ctx context.Context, st storage.Storage, instants []timeline.Instant, batch int) ([]byte, error) {
	b, err := newEntryBlocks(batch)
	if err != nil {
		return nil, err
	}
	for _, in := range instants {
		for _, s := range []spec.State{spec.StateRequested, spec.StateInflight, spec.StateCompleted} {
			p, ok := in.File(s)
			if !ok {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			data, err := st.ReadFile(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("archive instant %s: %w", in.Time, err)
			}
			name := p[strings.LastIndexByte(p, '/')+1:]
			f, ok := spec.ParseInstantFileName(name)
			if !ok {
				return nil, fmt.Errorf("archive instant %s: %s is not an instant file", in.Time, p)
			}
			entry, err := b.conv.entry(ctx, st, in, f, data)
			if err != nil {
				return nil, fmt.Errorf("archive instant %s (%s): %w", in.Time, p, err)
			}
			if err := b.add(entry); err != nil {
				return nil, fmt.Errorf("archive instant %s (%s): %w", in.Time, p, err)
			}
		}
	}
	return b.bytes()
}

// entryBlocks frames HoodieArchivedMetaEntry records as AVRO_DATA blocks of batch records
// each (Java's writeToFile: SCHEMA header only), ready to be written as one log file; conv
// makes the entries.
type entryBlocks struct {
	schemaJSON string
	schema     *avro.Schema
	conv       *converter
	batch      int
	out        []byte
	records    [][]byte
}

func newEntryBlocks(batch int) (*entryBlocks, error) {
	schemaJSON, err := entrySchemaJSON()
	if err != nil {
		return nil, err
	}
	es, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("archived entry schema: %w", err)
	}
	conv, err := newConverter()
	if err != nil {
		return nil, err
	}
	return &entryBlocks{schemaJSON: schemaJSON, schema: es, conv: conv, batch: batch}, nil
}

// add encodes one entry, closing a block once it holds batch records.
func (b *entryBlocks) add(entry map[string]any) error {
	rec, err := b.schema.Encode(entry)
	if err != nil {
		return fmt.Errorf("encode archived entry: %w", err)
	}
	b.records = append(b.records, rec)
	if len(b.records) >= b.batch {
		return b.flush()
	}
	return nil
}

func (b *entryBlocks) flush() error {
	if len(b.records) == 0 {
		return nil
	}
	var err error
	b.out, err = logfile.AppendBlock(b.out, &logfile.Block{
		Type:    logfile.AvroDataBlock,
		Header:  map[logfile.HeaderKey]string{logfile.Schema: b.schemaJSON},
		Content: logfile.EncodeAvroDataBlock(b.records),
	})
	b.records = b.records[:0]
	return err
}

// bytes closes the last block and returns the log file's content.
func (b *entryBlocks) bytes() ([]byte, error) {
	if err := b.flush(); err != nil {
		return nil, err
	}
	return b.out, nil
}

// converter turns instant files into entry values (MetadataConversionUtils.createMetaWrapper).
type converter struct {
	nested map[string]schemaNode // entry field → its self-contained record schema
}

func newConverter() (*converter, error) {
	c := &converter{nested: map[string]schemaNode{}}
	for _, f := range entryFields() {
		if f.schema == "" {
			continue
		}
		n, err := parseSchemaNode(f.schema)
		if err != nil {
			return nil, fmt.Errorf("schema of %s: %w", f.name, err)
		}
		c.nested[f.name] = n
	}
	c.nested[fInflightReplaceMetadata] = c.nested[fCommitMetadata]
	return c, nil
}

var stateNames = map[spec.State]string{spec.StateRequested: "REQUESTED", spec.StateInflight: "INFLIGHT", spec.StateCompleted: "COMPLETED"}

// entry builds the entry of one timeline file f of instant in with content data.
func (c *converter) entry(ctx context.Context, st storage.Storage, in timeline.Instant, f spec.InstantFileName, data []byte) (map[string]any, error) {
	e := map[string]any{}
	for _, fd := range entryFields() {
		e[fd.name] = nil
	}
	e[fCommitTime] = string(f.Instant)
	e[fActionState] = stateNames[f.State]
	action := f.Action
	if f.State == spec.StateCompleted {
		action = action.CompletedAction()
	}
	switch action {
	case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionClean, spec.ActionReplaceCommit,
		spec.ActionRollback, spec.ActionSavepoint, spec.ActionCompaction, spec.ActionLogCompaction:
		e[fActionType] = string(action)
	default:
		return nil, fmt.Errorf("action %s cannot be archived", action)
	}
	empty := len(bytes.TrimSpace(data)) == 0
	if f.State == spec.StateCompleted && empty {
		// A completed file can be empty after a crash on HDFS or local storage: Java still
		// archives the instant, without metadata (createMetaWrapperForEmptyInstant).
		return e, nil
	}
	var err error
	set := func(field string) func(any, error) {
		return func(v any, e2 error) {
			if e2 != nil {
				err = fmt.Errorf("%s: %w", field, e2)
				return
			}
			e[field] = v
		}
	}
	switch action {
	case spec.ActionClean:
		if f.State == spec.StateCompleted {
			set(fCleanMetadata)(c.fromContainer(fCleanMetadata, data))
		} else {
			if empty && f.State == spec.StateInflight {
				if p, ok := in.File(spec.StateRequested); ok {
					if data, err = st.ReadFile(ctx, p); err != nil {
						return nil, err
					}
				}
			}
			set(fCleanerPlan)(c.fromContainer(fCleanerPlan, data))
		}
	case spec.ActionCommit, spec.ActionDeltaCommit:
		set(fCommitMetadata)(c.fromCommitJSON(fCommitMetadata, data))
	case spec.ActionReplaceCommit:
		switch {
		case f.State == spec.StateCompleted:
			set(fReplaceCommitMetadata)(c.fromCommitJSON(fReplaceCommitMetadata, data))
		case empty:
			// empty inflight (clustering) or requested (insert_overwrite) files carry nothing
		case f.State == spec.StateInflight:
			set(fInflightReplaceMetadata)(c.fromCommitJSON(fInflightReplaceMetadata, data))
		default:
			set(fRequestedReplaceMetadata)(c.fromContainer(fRequestedReplaceMetadata, data))
		}
	case spec.ActionRollback:
		if f.State == spec.StateCompleted {
			set(fRollbackMetadata)(c.fromContainer(fRollbackMetadata, data))
		}
	case spec.ActionSavepoint:
		if !empty {
			set(fSavepointMetadata)(c.fromContainer(fSavepointMetadata, data))
		}
	case spec.ActionCompaction, spec.ActionLogCompaction:
		if f.State == spec.StateRequested {
			set(fCompactionPlan)(c.fromContainer(fCompactionPlan, data))
		}
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// fromContainer re-expresses the datum of an Avro object container (a timeline file of
// Avro metadata) in the entry's schema for field: Avro resolution by field name, so a
// file written by another Hudi release still fits.
func (c *converter) fromContainer(field string, data []byte) (any, error) {
	_, values, err := avro.ReadContainer(data)
	if err != nil {
		return nil, err
	}
	if len(values) != 1 {
		return nil, fmt.Errorf("avro container holds %d datums, want 1", len(values))
	}
	return project(c.nested[field], values[0], field)
}

// fromCommitJSON converts v6 JSON commit metadata into the Avro record as
// MetadataConversionUtils.convertCommitMetadata does: Jackson maps properties by name
// (absent ones stay null), a compaction's operationType becomes COMPACT, and an empty
// ROLLING_STAT entry is added to extraMetadata (that last step is from the 0.13-era source
// read; whether 0.14.1 still does it is UNVERIFIED). An empty file is an empty
// HoodieCommitMetadata (operationType UNKNOWN), as Java's fromBytes makes it.
func (c *converter) fromCommitJSON(field string, data []byte) (any, error) {
	var m map[string]any
	if len(bytes.TrimSpace(data)) == 0 {
		m = map[string]any{"partitionToWriteStats": map[string]any{}, "compacted": false,
			"extraMetadata": map[string]any{}, "operationType": "UNKNOWN"}
	} else {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return nil, fmt.Errorf("decode commit metadata JSON: %w", err)
		}
	}
	if compacted, _ := m["compacted"].(bool); compacted {
		m["operationType"] = "COMPACT"
	}
	extra, _ := m["extraMetadata"].(map[string]any)
	if extra == nil {
		extra = map[string]any{}
	}
	extra["ROLLING_STAT"] = ""
	m["extraMetadata"] = extra
	return projectJackson(c.nested[field], m, field)
}

// projectJackson is project for Jackson-converted records: a property the JSON lacks is
// null (Java's no-arg constructor), not the Avro default.
func projectJackson(s schemaNode, v map[string]any, path string) (any, error) {
	return project(withoutDefaults(s), v, path)
}

// withoutDefaults copies a schema tree dropping the defaults of nullable fields.
func withoutDefaults(s schemaNode) schemaNode {
	switch t := s.(type) {
	case []any:
		out := make([]any, len(t))
		for i, b := range t {
			out[i] = withoutDefaults(b)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			out[k] = v
		}
		if fields, ok := t["fields"].([]any); ok {
			nf := make([]any, len(fields))
			for i, f := range fields {
				fmap, ok := f.(map[string]any)
				if !ok {
					nf[i] = f
					continue
				}
				fm := make(map[string]any, len(fmap))
				for k, v := range fmap {
					fm[k] = v
				}
				if u, ok := fm["type"].([]any); ok && slices.Contains(u, any("null")) {
					delete(fm, "default")
				}
				fm["type"] = withoutDefaults(fm["type"])
				nf[i] = fm
			}
			out["fields"] = nf
		}
		if it, ok := t["items"]; ok {
			out["items"] = withoutDefaults(it)
		}
		if vv, ok := t["values"]; ok {
			out["values"] = withoutDefaults(vv)
		}
		return out
	}
	return s
}
