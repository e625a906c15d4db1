package hudi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/read"
)

// TestArchiveLayoutTwo: archival of a version 9 table moves instants into the LSM timeline
// history as Hudi 1.x's TimelineArchiverV2 and LSMTimelineWriter do. Ten upserts and a
// clean after the third; keep.min 4, keep.max 6: commits 0-5 go, and with them the clean
// (older than the last commit archived), in one <first>_<last>_0.parquet file published by
// manifest_1 and _version_. Each archived row carries the instant's completion time, its
// completed file's bytes as metadata and, for the clean, its plan; the rows read back
// equal before and after, and time travel to an archived commit still works. A second
// archival with hoodie.timeline.compaction.batch.size=2 makes a second layer-0 file, which
// compaction merges with the first into a layer-1 file; everything still reads back.
// Before step 2 of issue 20 archival was refused on layout 2.
func TestArchiveLayoutTwo(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tbl")
	tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "arch", Type: "cow", TableVersion: 9, RecordKeyFields: []string{"id"},
		PrecombineField: "ts", Schema: "id STRING, ts BIGINT, v STRING"})
	if err != nil {
		t.Fatal(err)
	}
	tlDir := filepath.Join(dir, ".hoodie", "timeline")
	off := map[string]string{"hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false"}
	clock := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	var instants []string
	var clean string
	write := func(i int) {
		t.Helper()
		clock = clock.Add(time.Second)
		now := clock
		res, err := tb.Write(ctx, batchesOf(t, tb, []row{{"id": fmt.Sprintf("k%d", i%3), "ts": json.Number(fmt.Sprint(i)), "v": fmt.Sprint("v", i)}}),
			hudi.WriteOptions{Operation: "upsert", Now: func() time.Time { return now }, Settings: off})
		if err != nil {
			t.Fatal(err)
		}
		instants = append(instants, res.Instant)
	}
	for i := 0; i < 10; i++ {
		write(i)
		if i == 2 {
			res, err := tb.Clean(ctx, hudi.CleanOptions{Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}})
			if err != nil || res.Instant == "" {
				t.Fatalf("clean: %+v %v", res, err)
			}
			clean = res.Instant
		}
	}
	completedFiles := map[string][]byte{}
	planFiles := map[string][]byte{}
	entries, _ := os.ReadDir(tlDir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(tlDir, e.Name()))
		switch {
		case e.IsDir():
		case len(e.Name()) > 18 && e.Name()[17] == '_':
			completedFiles[e.Name()[:17]] = b
			completedFiles[e.Name()[:17]+"/completion"] = []byte(e.Name()[18:35])
		case strings.HasSuffix(e.Name(), ".clean.requested"):
			planFiles[e.Name()[:17]] = b
		}
	}
	before := readRows(t, tb, "id")

	small := map[string]string{"hoodie.keep.min.commits": "4", "hoodie.keep.max.commits": "6", "hoodie.cleaner.commits.retained": "2"}
	res, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: small})
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(instants[:6]), clean)
	slices.Sort(want)
	if got := archivedTimes(res); !slices.Equal(got, want) || res.FilesWritten != 1 {
		t.Fatalf("archived %v (%d files), want %v", got, res.FilesWritten, want)
	}
	history := filepath.Join(tlDir, "history")
	file := instants[0] + "_" + instants[5] + "_0.parquet"
	if filepath.Base(res.ArchiveFile) != file {
		t.Errorf("archive file %s, want %s", res.ArchiveFile, file)
	}
	if b, err := os.ReadFile(filepath.Join(history, "_version_")); err != nil || string(b) != "1" {
		t.Errorf("_version_ %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(history, "manifest_1")); err != nil || !strings.Contains(string(b), `"fileName" : "`+file+`"`) {
		t.Errorf("manifest_1 %s %v", b, err)
	}
	entries, _ = os.ReadDir(tlDir)
	for _, e := range entries {
		for _, w := range want {
			if strings.HasPrefix(e.Name(), w) {
				t.Errorf("%s is still in the active timeline", e.Name())
			}
		}
	}
	tb, _ = hudi.Open(ctx, dir)
	arch, err := tb.Archived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range arch {
		ts := string(a.Instant.Time)
		got = append(got, ts)
		action := "commit"
		if ts == clean {
			action = "clean"
		}
		if string(a.Instant.Action) != action || !a.Instant.IsCompleted() || string(a.Instant.Completion) != string(completedFiles[ts+"/completion"]) ||
			!bytes.Equal(a.Metadata, completedFiles[ts]) || !bytes.Equal(a.Plan, planFiles[ts]) {
			t.Errorf("archived %s: %+v, metadata %d bytes (want %d), plan %d bytes (want %d)", ts, a.Instant,
				len(a.Metadata), len(completedFiles[ts]), len(a.Plan), len(planFiles[ts]))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("archived timeline %v, want %v", got, want)
	}
	sameRows(t, "after archival", readRows(t, tb, "id"), before)
	checkTimeTravel(t, tb, instants[5], 3)
	// The clean is archived but still bounds time travel: before its earliest commit to
	// retain the files may be gone, so the query is refused rather than partial.
	if _, err := tb.Scan(ctx, hudi.ScanOptions{AsOf: instants[1]}); !errors.Is(err, read.ErrCleaned) {
		t.Errorf("time travel to %s, before the archived clean's retention: %v, want read.ErrCleaned", instants[1], err)
	}

	// Four more commits and a second archival: two layer-0 files make a batch of 2.
	for i := 10; i < 14; i++ {
		write(i)
	}
	small["hoodie.timeline.compaction.batch.size"] = "2"
	tb, _ = hudi.Open(ctx, dir)
	before = readRows(t, tb, "id")
	if res, err = tb.Archive(ctx, hudi.ArchiveOptions{Settings: small}); err != nil || len(res.InstantsArchived) != 4 || res.FilesWritten != 2 {
		t.Fatalf("second archival: %+v %v", res, err)
	}
	merged := instants[0] + "_" + instants[9] + "_1.parquet"
	if _, err := os.Stat(filepath.Join(history, merged)); err != nil {
		t.Errorf("no layer-1 file: %v", err)
	}
	tb, _ = hudi.Open(ctx, dir)
	if arch, err = tb.Archived(ctx); err != nil || len(arch) != 11 {
		t.Errorf("archived timeline after compaction: %d instants (%v), want 11", len(arch), err)
	}
	sameRows(t, "after the second archival", readRows(t, tb, "id"), before)
}
