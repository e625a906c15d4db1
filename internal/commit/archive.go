package commit

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/storage"
)

// Archival moves instants out of the active timeline: their entries are first written to a
// new archive log file, and only then are their timeline files deleted. A crash in between
// leaves the instants both archived and active; readers take the active copy and the next
// archival writes them again (the archived reader keeps the first copy of a duplicate).

// ArchiveWriteToken is the write token of archive log files. Java's archiver builds its log
// writer without a rollover token, so HoodieLogFormat falls back to its "unknown" token
// 1-0-1 (HoodieLogFormat.UNKNOWN_WRITE_TOKEN; UNVERIFIED against a Java-written archive:
// no fixture has one).
const ArchiveWriteToken = "1-0-1"

// archiveLogPrefix is the archive log name before its version: file id "commits", empty
// base instant, extension ".archive" (HoodieArchivedTimeline.getArchiveLogPath with
// FSUtils.makeLogFileName).
const archiveLogPrefix = ".commits_.archive."

var archiveLogRE = regexp.MustCompile(`^\.commits_\.archive\.([0-9]+)`)

// ArchiveLogName formats the name of archive log file version v.
func ArchiveLogName(v int) string {
	return archiveLogPrefix + strconv.Itoa(v) + "_" + ArchiveWriteToken
}

// WriteArchiveLog publishes content (framed log blocks) as a new archive log file in dir
// (.hoodie/archived) and returns its path. Java appends to the latest archive file only on
// storage that supports append (HDFS); elsewhere its log writer rolls over to the next
// version, which is what this does, since our storage has no append. The file is created
// if absent, so two archivers never write the same version: on a clash the next version is
// tried.
func (ct *Timeline) WriteArchiveLog(ctx context.Context, dir string, content []byte) (string, error) {
	st := ct.st
	latest, err := latestArchiveVersion(ctx, st, dir)
	if err != nil {
		return "", err
	}
	if err := st.MkdirAll(ctx, dir); err != nil {
		return "", fmt.Errorf("create archive folder %s: %w", dir, err)
	}
	for attempt := 0; attempt < 20; attempt++ {
		p := storage.Join(dir, ArchiveLogName(latest+1+attempt))
		err := writeFile(ctx, st, p, content)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, storage.ErrExist) {
			return "", fmt.Errorf("write archive log %s: %w", p, err)
		}
	}
	return "", fmt.Errorf("write archive log in %s: 20 versions after %d already exist", dir, latest)
}

// latestArchiveVersion is the highest version of the archive logs in dir, 0 if none
// (Java's first log version is 1).
func latestArchiveVersion(ctx context.Context, st storage.Storage, dir string) (int, error) {
	infos, err := st.List(ctx, dir)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("list archive folder %s: %w", dir, err)
	}
	latest := 0
	for _, fi := range infos {
		m := archiveLogRE.FindStringSubmatch(fi.Name)
		if fi.IsDir || m == nil {
			continue
		}
		if v, err := strconv.Atoi(m[1]); err == nil && v > latest {
			latest = v
		}
	}
	return latest, nil
}

// DeleteArchivedInstants removes the timeline files of archived instants in Java's order
// (HoodieTimelineArchiver.deleteArchivedInstants): every requested and inflight file first,
// then the completed files in ascending instant order. Removing a completed file first
// would make the instant look pending to a concurrent reader (a compaction or clustering
// would seem to need running again); deleting completed files oldest first never opens a
// hole in the middle of the timeline. Leftover write markers of the instants go too
// (Java's deleteAnyLeftOverMarkers). A file already gone is not an error.
func (ct *Timeline) DeleteArchivedInstants(ctx context.Context, instants []timeline.Instant) error {
	for _, in := range instants {
		if err := ct.remove(ctx, in, pendingStates...); err != nil {
			return fmt.Errorf("delete archived instant %s %s: %w", in.Time, in.Action, err)
		}
	}
	done := slices.Clone(instants)
	slices.SortStableFunc(done, func(a, b timeline.Instant) int { return a.Time.Compare(b.Time) })
	for _, in := range done {
		if err := ct.remove(ctx, in, spec.StateCompleted); err != nil {
			return fmt.Errorf("delete archived instant %s %s: %w", in.Time, in.Action, err)
		}
	}
	for _, in := range instants {
		if err := storage.DeleteTree(ctx, ct.st, storage.Join(TempDir, string(in.Time))); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return fmt.Errorf("delete markers of archived instant %s: %w", in.Time, err)
		}
	}
	return nil
}
