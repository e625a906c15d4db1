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
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
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

// ErrUnsupported marks tables this service does not clean (table.ErrUnsupportedWrite).
var ErrUnsupported = table.ErrUnsupportedWrite

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
	var defaults *config.Config // nil: every key reads as its default
	if o.CommitsRetained == 0 {
		o.CommitsRetained = defaults.Int(config.CleanerCommitsRetained)
	}
	if o.FileVersionsRetained == 0 {
		o.FileVersionsRetained = defaults.Int(config.CleanerFileVersionsRetained)
	}
	if o.MaxCommits <= 0 {
		o.MaxCommits = defaults.Int(config.CleanMaxCommits)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.TimelineZone == nil {
		o.TimelineZone = t.Config.TimelineZone()
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

func check(t *table.Table) error {
	return t.CheckLayoutWrites(timeline.OpClean)
}

// ---------------------------------------------------------------------------------------
// Planning

// ---------------------------------------------------------------------------------------
// Scheduling and execution

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

// prepare is table.PrepareChange with o's clock and logger: a clean deletes files, so it
// first refuses tables hudi-go cannot write and disables a metadata table.
func prepare(ctx context.Context, t *table.Table, o Options) (*table.Table, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	return t.PrepareChangeFor(ctx, now(), o.Logger, o.Metadata)
}
