package table

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/fsview"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// ErrMissingFile marks a file that a completed commit names as part of the latest file
// slice of a live file group, but that storage no longer holds.
var ErrMissingFile = errors.New("a file of the latest committed file slice is missing from storage")

// MissingFile marks err with ErrMissingFile when it is storage.ErrNotExist: a file the
// plan took from the metadata table is opened without listing its partition first, so a
// file removed from storage behind Hudi's back (the check of View needs a listing) shows
// up when it is opened. The error names the file (the open error does).
func MissingFile(err error) error {
	if err != nil && errors.Is(err, storage.ErrNotExist) && !errors.Is(err, ErrMissingFile) {
		return fmt.Errorf("%w: %w", ErrMissingFile, err)
	}
	return err
}

// checkLatestFiles verifies that storage holds every file the latest view is made of
// according to the timeline, before a read or a write relies on a listing: a missing file
// would otherwise drop out of the listing silently, an older version would be served in
// its place, and the next write would make that permanent.
//
// What must be present, per file group of a partition the listing holds, judged only from
// the write stats of completed data instants on the active timeline:
//   - the base file of the latest such instant that wrote one for the group;
//   - the log files written by such instants after that base file's instant (the logs of
//     the latest slice; older ones may have been cleaned).
//
// Not required: file groups a completed replacecommit retired (clustering, insert
// overwrite, delete_partition), files of rolled-back or restored instants (their instants
// are gone from the timeline), of pending instants (not completed), and older slices
// (cleaned legitimately). Files named by archived instants only are not checked. A
// partition the listing lacks — its directory deleted, or without its partition metadata
// file (which Java's listing skips as well) — is left out of the view as before (read
// tests pin it): it is not "in the latest view".
func (t *Table) checkLatestFiles(ctx context.Context, listing *fsview.Listing, replaced map[string]map[spec.FileID]bool) error {
	present := map[string]bool{}
	listed := map[string]bool{}
	for _, p := range listing.Partitions {
		listed[p.Path] = true
		for _, f := range p.Files {
			present[storage.Join(p.Path, f.Name)] = true
		}
	}
	type logRef struct {
		instant spec.InstantTime
		path    string
	}
	type group struct {
		partition   string
		id          spec.FileID
		base        string
		baseInstant spec.InstantTime
		logs        []logRef
	}
	groups := map[string]*group{}
	for _, in := range t.visibleDataInstants("") {
		cm, err := t.CommitMetadata(ctx, in)
		if err != nil {
			return err
		}
		for partition, stats := range cm.PartitionToWriteStats {
			for _, s := range stats {
				p := s.Path
				if p == "" || p == "null" || strings.HasPrefix(p, "/") || strings.Contains(p, ":") {
					continue // unknown, or not relative to the table (never written so by 0.14)
				}
				key := partition + "\x00" + s.FileID
				g := groups[key]
				if g == nil {
					g = &group{partition: partition, id: spec.FileID(s.FileID)}
					groups[key] = g
				}
				name := path.Base(p)
				if _, ok := spec.ParseBaseFileName(name); ok {
					if in.Time.Compare(g.baseInstant) >= 0 {
						g.base, g.baseInstant = p, in.Time
					}
				} else if l, ok := spec.ParseLogFileName(name); ok && !l.CDC() {
					g.logs = append(g.logs, logRef{in.Time, p})
				}
			}
		}
	}
	var missing []string
	for _, g := range groups {
		if replaced[g.partition][g.id] || !listed[g.partition] {
			continue
		}
		if g.base != "" && !present[g.base] {
			missing = append(missing, fmt.Sprintf("%s (base file written by %s)", g.base, g.baseInstant))
		}
		for _, l := range g.logs {
			if l.instant.Compare(g.baseInstant) > 0 && !present[l.path] {
				missing = append(missing, fmt.Sprintf("%s (log file written by %s)", l.path, l.instant))
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	missing = slicesCompact(missing)
	more := ""
	if len(missing) > 5 {
		more = fmt.Sprintf(" and %d more", len(missing)-5)
		missing = missing[:5]
	}
	return fmt.Errorf("table %s: %w: %s%s; the completed commits name these files as the latest version of their file groups (restore them, or roll the table back to an instant before them with hudi restore)",
		t.Config.Name(), ErrMissingFile, strings.Join(missing, ", "), more)
}

func slicesCompact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
