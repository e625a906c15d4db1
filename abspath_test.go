package hudi_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/testutil"
)

// decodeOCF decodes the one record of an Avro container file generically.
func decodeOCF(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ocf.NewDecoder(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if !dec.HasNext() {
		t.Fatalf("%s: no record", path)
	}
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// timelineFile returns the one .hoodie file whose name ends with suffix.
func timelineFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(dir, ".hoodie"))
	var hits []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) && regexp.MustCompile(`^\d{17}\.`).MatchString(e.Name()) {
			hits = append(hits, filepath.Join(dir, ".hoodie", e.Name()))
		}
	}
	sort.Strings(hits)
	if len(hits) == 0 {
		t.Fatalf("no .hoodie/*%s", suffix)
	}
	return hits[len(hits)-1]
}

// pathForm is the form of a path in a plan, as the Spark-written fixtures show it:
// "scheme" (file:/abs/…), "absolute" (/abs/…) or "relative".
func pathForm(p string) string {
	switch {
	case strings.HasPrefix(p, "file:/"):
		return "scheme"
	case strings.HasPrefix(p, "/"):
		return "absolute"
	}
	return "relative"
}

// fixtureRollbackForms reads the forms Java 0.14 wrote into the rollback plan and metadata
// of mor-parquet/v6_nonpartitioned_rollback: filesToBeDeleted and successDeleteFiles
// absolute without a scheme, the log-file maps with "file:".
func fixtureRollbackForms(t *testing.T) map[string]string {
	t.Helper()
	dir := testutil.Table(t, "mor-parquet/v6_nonpartitioned_rollback")
	forms := map[string]string{}
	b, _ := os.ReadFile(timelineFile(t, dir, ".rollback.requested"))
	plan, err := commitmeta.DecodeRollbackPlan(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range plan.RollbackRequests {
		for _, f := range r.FilesToBeDeleted {
			forms["filesToBeDeleted"] = pathForm(f)
		}
		for f := range r.LogBlocksToBeDeleted {
			forms["logBlocksToBeDeleted"] = pathForm(f)
		}
	}
	b, _ = os.ReadFile(timelineFile(t, dir, ".rollback"))
	meta, err := commitmeta.DecodeRollback(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, pm := range meta.PartitionMetadata {
		for _, f := range pm.SuccessDeleteFiles {
			forms["successDeleteFiles"] = pathForm(f)
		}
		for f := range pm.RollbackLogFiles {
			forms["rollbackLogFiles"] = pathForm(f)
		}
		for f := range pm.LogFilesFromFailedCommit {
			forms["logFilesFromFailedCommit"] = pathForm(f)
		}
	}
	want := map[string]string{"filesToBeDeleted": "absolute", "logBlocksToBeDeleted": "scheme", "successDeleteFiles": "absolute",
		"rollbackLogFiles": "scheme", "logFilesFromFailedCommit": "scheme"}
	for k, v := range want {
		if forms[k] != v {
			t.Fatalf("fixture %s form %q, expected %q: the fixture reading is wrong", k, forms[k], v)
		}
	}
	return forms
}

// checkPath checks that p names a file of the table at abs in the form want.
func checkPath(t *testing.T, what, p, want, abs string) {
	t.Helper()
	if got := pathForm(p); got != want {
		t.Errorf("%s %q: form %s, want %s (as Java writes it)", what, p, got, want)
		return
	}
	if !strings.HasPrefix(strings.TrimPrefix(p, "file:"), abs+"/") {
		t.Errorf("%s %q is not under the table's absolute path %s", what, p, abs)
	}
}

// Plans and metadata of a table opened by a relative path name files as Java does:
// absolute, with the scheme where Java writes one. The rollback forms are read from the
// Spark-written fixture's plan and metadata; the clustering plan's dataFilePath carries
// "file:" as in the fixture cow/v9_txns_simple_meta (no v6 fixture has a clustering plan);
// the clean plan's filePath carries "file:" as Java's CleanPlanner takes it from
// HoodieBaseFile.getPath (UNVERIFIED: no fixture has a clean plan).
func TestPlansNameAbsolutePathsOnRelativeTables(t *testing.T) {
	ctx := context.Background()
	forms := fixtureRollbackForms(t)

	dir := testutil.Table(t, "mor-parquet/v6_nonpartitioned")
	abs, _ := filepath.Abs(dir)
	t.Chdir(filepath.Dir(dir))
	rel := filepath.Base(dir)
	tb, err := hudi.Open(ctx, rel)
	if err != nil {
		t.Fatal(err)
	}
	first := latestDataInstant(t, tb)
	if _, err := tb.Savepoint(ctx, hudi.SavepointCreate, first, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, tb, "id")
	var upd []row
	for _, r := range rows {
		r["name"] = "changed"
		upd = append(upd, r)
	}
	noServices := map[string]string{"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}
	res, err := tb.Write(ctx, batchesOf(t, tb, upd), hudi.WriteOptions{Settings: noServices})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Rollback(ctx, res.Instant, hudi.RollbackOptions{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(timelineFile(t, abs, ".rollback.requested"))
	plan, err := commitmeta.DecodeRollbackPlan(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range plan.RollbackRequests {
		for _, f := range r.FilesToBeDeleted {
			checkPath(t, "rollback plan filesToBeDeleted", f, forms["filesToBeDeleted"], abs)
			n++
		}
		for f := range r.LogBlocksToBeDeleted {
			checkPath(t, "rollback plan logBlocksToBeDeleted", f, forms["logBlocksToBeDeleted"], abs)
			n++
		}
	}
	b, _ = os.ReadFile(timelineFile(t, abs, ".rollback"))
	meta, err := commitmeta.DecodeRollback(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, pm := range meta.PartitionMetadata {
		for _, f := range pm.SuccessDeleteFiles {
			checkPath(t, "rollback successDeleteFiles", f, forms["successDeleteFiles"], abs)
			n++
		}
		for f := range pm.RollbackLogFiles {
			checkPath(t, "rollback rollbackLogFiles", f, forms["rollbackLogFiles"], abs)
			n++
		}
		for f := range pm.LogFilesFromFailedCommit {
			checkPath(t, "rollback logFilesFromFailedCommit", f, forms["logFilesFromFailedCommit"], abs)
			n++
		}
	}
	if n == 0 {
		t.Fatal("the rollback named no files: the test checks nothing")
	}

	// Restore: its metadata holds each rollback's metadata.
	if _, err := tb.Write(ctx, batchesOf(t, tb, upd), hudi.WriteOptions{Settings: noServices}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Savepoint(ctx, hudi.SavepointRestore, first, hudi.SavepointOptions{}); err != nil {
		t.Fatal(err)
	}
	restore := decodeOCF(t, timelineFile(t, abs, ".restore"))
	n = 0
	for _, metas := range restore["hoodieRestoreMetadata"].(map[string]any) {
		for _, m := range metas.([]any) {
			// Avro unions decode as {"<type name>": value}.
			rm := m.(map[string]any)["org.apache.hudi.avro.model.HoodieRollbackMetadata"].(map[string]any)
			for _, pmAny := range rm["partitionMetadata"].(map[string]any) {
				pm := pmAny.(map[string]any)
				for _, f := range pm["successDeleteFiles"].([]any) {
					checkPath(t, "restore successDeleteFiles", f.(string), forms["successDeleteFiles"], abs)
					n++
				}
				for _, key := range []string{"rollbackLogFiles", "logFilesFromFailedCommit"} {
					if lm, ok := pm[key].(map[string]any)["map"].(map[string]any); ok {
						for f := range lm {
							checkPath(t, "restore "+key, f, forms[key], abs)
							n++
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the restore named no files: the test checks nothing")
	}

	// Clustering plan.
	if _, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(timelineFile(t, abs, ".replacecommit.requested"))
	cp, err := commitmeta.DecodeRequestedReplace(b)
	if err != nil || cp.ClusteringPlan == nil {
		t.Fatalf("clustering plan: %v", err)
	}
	n = 0
	for _, g := range cp.ClusteringPlan.InputGroups {
		for _, s := range g.Slices {
			if s.DataFilePath != "" {
				checkPath(t, "clustering dataFilePath", s.DataFilePath, "scheme", abs)
				n++
			}
			for _, d := range s.DeltaFilePaths {
				checkPath(t, "clustering deltaFilePaths", d, "scheme", abs)
			}
		}
	}
	if n == 0 {
		t.Fatal("the clustering plan named no files")
	}
}

// The clean plan of a table opened by a relative path names files by absolute URI.
func TestCleanPlanNamesAbsolutePathsOnRelativeTables(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Table(t, "cow/v6_nonpartitioned")
	abs, _ := filepath.Abs(dir)
	t.Chdir(filepath.Dir(dir))
	tb, err := hudi.Open(ctx, filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, tb, "id")
	for i := 0; i < 2; i++ {
		var upd []row
		for _, r := range rows {
			r["name"] = "v" + string(rune('a'+i))
			upd = append(upd, r)
		}
		if _, err := tb.Write(ctx, batchesOf(t, tb, upd), hudi.WriteOptions{Settings: map[string]string{"hoodie.clean.automatic": "false"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.Clean(ctx, hudi.CleanOptions{Settings: map[string]string{"hoodie.cleaner.commits.retained": "1"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(timelineFile(t, abs, ".clean.requested"))
	plan, err := commitmeta.DecodeCleanerPlan(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, infos := range plan.FilePathsToBeDeletedPerPartition {
		for _, f := range infos {
			checkPath(t, "clean plan filePath", f.FilePath, "scheme", abs)
			n++
		}
	}
	if n == 0 {
		t.Fatal("the clean plan named no files")
	}
}
