package mdtwrite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/mdt"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage"
)

// Validation is what Validate found: the counts it compared and every difference, one line
// each ("partition p: …", "p/fileID: …").
type Validation struct {
	Partitions int `json:"partitions"`
	FileGroups int `json:"file_groups"`
	FileSlices int `json:"file_slices"`
	Files      int `json:"files"`
	// RecordIndex: hoodie.properties lists record_index, and RecordIndexKeys counts the
	// snapshot's keys compared with it.
	RecordIndex     bool `json:"record_index,omitempty"`
	RecordIndexKeys int  `json:"record_index_keys,omitempty"`
	// RecordIndexSkipped says why the record index was not compared (a snapshot hudi-go
	// cannot read).
	RecordIndexSkipped string `json:"record_index_skipped,omitempty"`
	// ColumnStats: hoodie.properties lists column_stats; ColumnStatsFiles and
	// ColumnStatsRecords count the files and records compared with it; ColumnStatsGoneLogs
	// the log files gone from storage that still have live records (Java 0.14's clean
	// leaves them); ColumnStatsUnindexed the base files without any record.
	ColumnStats          bool `json:"column_stats,omitempty"`
	ColumnStatsUnindexed int  `json:"column_stats_unindexed,omitempty"`
	ColumnStatsFiles     int  `json:"column_stats_files,omitempty"`
	ColumnStatsRecords   int  `json:"column_stats_records,omitempty"`
	ColumnStatsGoneLogs  int  `json:"column_stats_gone_logs,omitempty"`
	// BloomFilters: hoodie.properties lists bloom_filters; BloomFilterFiles counts the base
	// files compared with it.
	BloomFilters     bool     `json:"bloom_filters,omitempty"`
	BloomFilterFiles int      `json:"bloom_filter_files,omitempty"`
	Differences      []string `json:"differences,omitempty"`
}

// OK reports whether the metadata table matched the listing.
func (v *Validation) OK() bool { return len(v.Differences) == 0 }

// ErrNoMetadataTable: the table has no metadata table to validate (none, or
// hoodie.properties does not list its files partition).
var ErrNoMetadataTable = mdt.ErrNoMetadataTable

// Validate compares the files partition of the table's metadata table with a listing of
// the table, as Java's HoodieMetadataTableValidator does with its file-slice checks: the
// file-system view planned from each — committed instants only, replaced file groups
// retired, log files of failed writes left out (logCommits) — must have the same
// partitions and file groups, with the same file slices: the same base file and log
// files, with the same sizes. Every slice is compared, not only the latest, so that files
// a clean deleted but the metadata table still lists show up too.
func Validate(ctx context.Context, st storage.Storage) (*Validation, error) {
	t, err := table.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	if !filesAvailable(t.Config) {
		return nil, fmt.Errorf("%s: hoodie.table.metadata.partitions does not list %s: %w", st.Root(), mdt.PartitionFiles, ErrNoMetadataTable)
	}
	m, err := mdt.Open(ctx, st)
	if err != nil {
		return nil, err
	}
	fromMDT, err := m.Listing(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := t.List(ctx)
	if err != nil {
		return nil, err
	}
	v := &Validation{}
	diff := func(format string, a ...any) { v.Differences = append(v.Differences, fmt.Sprintf(format, a...)) }
	dv, err := t.View(ctx, dir, "")
	if err != nil {
		return nil, fmt.Errorf("plan from the listing: %w", err)
	}
	// The metadata table's view is planned without checking that its files exist (that
	// check is the comparison below).
	replaced, err := t.ReplacedFileGroups(ctx, "")
	if err != nil {
		return nil, err
	}
	mv, err := fsview.Build(ctx, fromMDT, t.Timeline, fsview.Options{Replaced: replaced})
	if err != nil {
		return nil, fmt.Errorf("plan from the metadata table: %w", err)
	}
	lc := logCommits{ctx: ctx, st: st, t: t, known: map[string]bool{}}
	fromDir, fromMeta := lc.slicesByGroup(dv), lc.slicesByGroup(mv)
	if lc.err != nil {
		return nil, lc.err
	}
	// Partitions: those with a committed file group in each view (a partition folder a
	// failed write created holds no committed file and is in no metadata table).
	parts := func(view *fsview.View) map[string]bool {
		out := map[string]bool{}
		for _, g := range view.Groups {
			out[g.Partition] = true
		}
		return out
	}
	dp, mp := parts(dv), parts(mv)
	v.Partitions = len(dp)
	for p := range dp {
		if !mp[p] {
			diff("partition %q: on storage, missing from the metadata table", p)
		}
	}
	for p := range mp {
		if !dp[p] {
			diff("partition %q: in the metadata table, not on storage", p)
		}
	}
	for g, want := range fromDir {
		v.FileGroups++
		v.FileSlices += len(want)
		for _, s := range want {
			v.Files += strings.Count(s, "(")
		}
		got, ok := fromMeta[g]
		if !ok {
			diff("%s: file group on storage, missing from the metadata table", g)
			continue
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			diff("%s: slices on storage [%s], in the metadata table [%s]", g, strings.Join(want, "; "), strings.Join(got, "; "))
		}
		delete(fromMeta, g)
	}
	for g := range fromMeta {
		diff("%s: file group in the metadata table, not on storage", g)
	}
	if hasPartition(t.Config, mdt.PartitionRecordIndex) {
		if err := validateRecordIndex(ctx, t, m, v, diff); err != nil {
			return nil, err
		}
	}
	if hasPartition(t.Config, mdt.PartitionColumnStats) {
		if err := validateColumnStats(ctx, t, m, dir, dv, v, diff); err != nil {
			return nil, fmt.Errorf("column_stats: %w", err)
		}
	}
	if hasPartition(t.Config, mdt.PartitionBloomFilters) {
		if err := validateBloomFilters(ctx, t, m, dir, dv, v, diff); err != nil {
			return nil, fmt.Errorf("bloom_filters: %w", err)
		}
	}
	sort.Strings(v.Differences)
	return v, nil
}

// maxKeyDifferences bounds the record-index differences reported one by one.
const maxKeyDifferences = 20

// validateRecordIndex compares the record index with the keys of the table's snapshot read
// from a listing (HoodieMetadataTableValidator's record index check): every key maps to the
// partition and file group holding it, and the index has no other key.
func validateRecordIndex(ctx context.Context, t *table.Table, m *mdt.Table, v *Validation, diff func(string, ...any)) error {
	want, err := snapshotKeys(ctx, t, true)
	if errors.Is(err, spec.ErrUnsupported) {
		// A snapshot hudi-go cannot read (Lance base files) leaves nothing to compare with.
		v.RecordIndexSkipped = err.Error()
		return nil
	}
	if err != nil {
		return fmt.Errorf("record index: %w", err)
	}
	got, err := m.ReadPartition(ctx, mdt.PartitionRecordIndex)
	if err != nil {
		return err
	}
	v.RecordIndex, v.RecordIndexKeys = true, len(want)
	var wrong, missing, extra int
	report := func(n *int, format string, a ...any) {
		if *n < maxKeyDifferences {
			diff(format, a...)
		}
		*n++
	}
	for _, k := range sortedKeys(want) {
		locs := want[k]
		r, ok := got[k]
		// A key the table holds in several file groups (a non-global index let it into two
		// partitions; Spark fixtures have such) may map to any of them.
		in := func(ri *mdt.RecordIndexInfo) bool {
			for _, l := range locs {
				if ri.PartitionName == l.partition && ri.FileGroupID() == string(l.fileID) {
					return true
				}
			}
			return false
		}
		switch {
		case !ok:
			report(&missing, "record_index: key %q (in %s/%s) is missing", k, locs[0].partition, locs[0].fileID)
		case r.RecordIndex == nil:
			report(&wrong, "record_index: key %q: not a record index entry (type %d)", k, r.Type)
		case !in(r.RecordIndex):
			report(&wrong, "record_index: key %q maps to %s/%s, the snapshot has it in %s/%s", k, r.RecordIndex.PartitionName,
				r.RecordIndex.FileGroupID(), locs[0].partition, locs[0].fileID)
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			report(&extra, "record_index: key %q is not in the snapshot", k)
		}
	}
	for _, c := range []struct {
		n    int
		what string
	}{{missing, "missing"}, {wrong, "mapped to another file group"}, {extra, "not in the snapshot"}} {
		if c.n > maxKeyDifferences {
			diff("record_index: %d keys %s in all (the first %d listed)", c.n, c.what, maxKeyDifferences)
		}
	}
	return nil
}

// logCommits tells log files that hold committed blocks from those of failed or
// rolled-back writes, which a layout-1 view keeps in their slice (readers skip their
// blocks) and the metadata table rightly omits: Java's HoodieMetadataTableValidator
// compares only committed log files (areFileSliceCommittedLogFilesMatching). A log file
// counts when one of its blocks was written by an instant completed on the data table
// (any action: a rollback's command block too) or older than its active timeline.
type logCommits struct {
	ctx   context.Context
	st    storage.Storage
	t     *table.Table
	known map[string]bool
	err   error
}

func (lc *logCommits) committed(l fsview.LogFile) bool {
	if lc.t.Timeline.Layout.CompletionTimes() {
		return true // the view keeps only logs of committed deltacommits
	}
	if c, ok := lc.known[l.Path]; ok {
		return c
	}
	c := lc.read(l.Path)
	lc.known[l.Path] = c
	return c
}

func (lc *logCommits) read(p string) bool {
	f, err := lc.st.Open(lc.ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return true // listed by the metadata table only: compared, and reported
	}
	if err != nil {
		lc.err = err
		return true
	}
	defer f.Close()
	r := logfile.NewReader(f, f.Size(), p)
	for {
		b, err := r.Next()
		if err != nil || b == nil {
			return false
		}
		ts := spec.InstantTime(b.InstantTime())
		if ts == "" {
			continue
		}
		for _, in := range lc.t.Timeline.At(ts) {
			if in.IsCompleted() {
				return true
			}
		}
		if lc.t.Timeline.IsBeforeStart(ts) {
			return true
		}
	}
}

// slicesByGroup describes each file group's slices (base file and committed log files
// with sizes).
func (lc *logCommits) slicesByGroup(view *fsview.View) map[string][]string {
	out := map[string][]string{}
	for _, g := range view.Groups {
		key := storage.Join(g.Partition, string(g.FileID))
		for _, s := range g.Slices {
			line := string(s.BaseInstant) + ":"
			if s.Base != nil {
				line += fmt.Sprintf(" %s(%d)", s.Base.Name, s.Base.Size)
			}
			for _, l := range s.Logs {
				if lc.committed(l) {
					line += fmt.Sprintf(" %s(%d)", l.Name, l.Size)
				}
			}
			if line == string(s.BaseInstant)+":" {
				continue // a slice of uncommitted logs only
			}
			out[key] = append(out[key], line)
		}
		if len(out[key]) == 0 {
			delete(out, key)
		}
	}
	return out
}

// IsNoMetadataTable reports whether err says the table has no metadata table.
func IsNoMetadataTable(err error) bool { return errors.Is(err, mdt.ErrNoMetadataTable) }
