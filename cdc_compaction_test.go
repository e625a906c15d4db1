package hudi_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/logfile"
	"github.com/hudi-go/hudi/internal/spec"
)

// Merge-on-read tables with CDC on: with the BUCKET index, whose writes put inserts into
// the logs too, a compaction logs the changes it merges into a CDC log file listed in the
// compaction commit's cdcStats (HoodieMergeHandleFactory picks HoodieMergeHandleWithChangeLog
// when HoodieWriteConfig.isYieldingPureLogForMor); with other indexes it writes none. CDC
// queries read neither: the compaction is not a data change, and the deltacommits' changes
// are inferred from their log files.
func TestCDCCompaction(t *testing.T) {
	ctx := context.Background()
	bucket := map[string]string{"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "1"}
	for _, tc := range []struct {
		index map[string]string
		want  []string // the compaction's CDC records (op key before after); nil: no file
	}{
		{bucket, []string{"d k2 k2=20 -", "i k9 - k9=90", "u k1 k1=10 k1=11"}},
		{nil, nil},
	} {
		for _, mode := range []cdc.Mode{cdc.OpKeyOnly, cdc.DataBefore, cdc.DataBeforeAfter} {
			name := "simple/" + mode.String()
			if tc.index != nil {
				name = "bucket/" + mode.String()
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "m", Type: "mor", RecordKeyFields: []string{"id"},
					PrecombineField: "ts", PartitionFields: []string{"city"}, Schema: "id STRING, city STRING, ts BIGINT, val BIGINT",
					Settings: map[string]string{"hoodie.table.cdc.enabled": "true", "hoodie.table.cdc.supplemental.logging.mode": mode.String()}}); err != nil {
					t.Fatal(err)
				}
				write := func(op string, rows ...cdcModelRow) {
					t.Helper()
					tbl, _ := hudi.Open(ctx, dir)
					b := cdcModelBatch(rows)
					defer b.Release()
					if _, err := tbl.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: op, Settings: tc.index}); err != nil {
						t.Fatalf("%s: %v", op, err)
					}
				}
				write("upsert", cdcModelRow{"k1", "sf", 1, 10}, cdcModelRow{"k2", "sf", 1, 20}, cdcModelRow{"k3", "sf", 1, 30})
				write("upsert", cdcModelRow{"k1", "sf", 2, 11}, cdcModelRow{"k9", "sf", 2, 90})
				write("delete", cdcModelRow{ID: "k2", City: "sf"})
				changesBefore := cdcRowsOf(t, ctx, dir)
				tbl, _ := hudi.Open(ctx, dir)
				res, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Settings: tc.index})
				if err != nil {
					t.Fatal(err)
				}
				got := compactionCDC(t, dir, res.Instant, mode)
				if tc.want == nil {
					if got != nil {
						t.Fatalf("the compaction wrote CDC records %v", got)
					}
				} else {
					var want []string
					for _, w := range tc.want {
						f := strings.Fields(w)
						switch mode {
						case cdc.OpKeyOnly:
							f[2], f[3] = "-", "-"
						case cdc.DataBefore:
							f[3] = "-"
						case cdc.DataBeforeAfter:
							f[1] = res.Instant
						}
						want = append(want, strings.Join(f, " "))
					}
					sort.Strings(got)
					sort.Strings(want)
					if !slices.Equal(got, want) {
						t.Errorf("compaction CDC records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
				}
				// The CDC query is the same after the compaction.
				if after := cdcRowsOf(t, ctx, dir); !slices.Equal(after, changesBefore) {
					t.Errorf("CDC rows changed with the compaction:\n%s\nvs\n%s", strings.Join(after, "\n"), strings.Join(changesBefore, "\n"))
				}
			})
		}
	}
}

// cdcRowsOf is the table's whole CDC stream, sorted.
func cdcRowsOf(t *testing.T, ctx context.Context, dir string) []string {
	var out []string
	for _, c := range readChanges(t, ctx, dir, "earliest", "") {
		out = append(out, c.raw)
	}
	sort.Strings(out)
	return out
}

// compactionCDC decodes the CDC log files the compaction commit lists ("op key before
// after", images as id=val); nil when it lists none.
func compactionCDC(t *testing.T, dir, instant string, mode cdc.Mode) []string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, ".hoodie", instant+".commit"))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := commitmeta.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	if cm.OperationType != "COMPACT" {
		t.Fatalf("operation %s", cm.OperationType)
	}
	var out []string
	for _, stats := range cm.PartitionToWriteStats {
		for _, st := range stats {
			for p, size := range st.CDCStats {
				name, ok := spec.ParseLogFileName(filepath.Base(p))
				if !ok || name.CDCSuffix != spec.CDCSuffix014 || string(name.Instant) != instant {
					t.Errorf("CDC file %s: want a -cdc log of %s", p, instant)
				}
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(data)) != size {
					t.Errorf("%s: %d bytes, cdcStats says %d", p, len(data), size)
				}
				blocks, err := logfile.ReadAll(bytes.NewReader(data), int64(len(data)), p)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range blocks {
					d, err := cdc.NewDecoder(mode, b.Header[logfile.Schema], cm.ExtraMetadata["schema"])
					if err != nil {
						t.Fatal(err)
					}
					datums, err := logfile.DecodeAvroDataBlock(b.Content)
					if err != nil {
						t.Fatal(err)
					}
					for _, datum := range datums {
						r, err := d.Decode(datum)
						if err != nil {
							t.Fatal(err)
						}
						img := func(m map[string]any) string {
							if m == nil {
								return "-"
							}
							return fmt.Sprintf("%v=%v", m["id"], m["val"])
						}
						out = append(out, strings.Join([]string{r.Op.String(), r.Key, img(r.Before), img(r.After)}, " "))
					}
				}
			}
		}
	}
	return out
}
