package write_test

// Global indexes (GLOBAL_SIMPLE, GLOBAL_BLOOM) end to end through the facade, on
// copy-on-write and merge-on-read tables, with both payloads: partition moves, moves back,
// delete then re-insert elsewhere, moves after compaction, and the HUDI-5968 cases where
// the incoming record loses to the stored one by event time (Hudi 0.14, see global.go).
//
// Each scenario lists the expected snapshot and read-optimized rows after each step, as
// "key|partition path|city column|ts|val@step that wrote it". Expectations are keyed by
// the variant they apply to: tags "cow"/"mor", "move"/"keep" (update.partition.path
// true/false) and "owl"/"default" (payload), joined by "/"; the most specific key whose
// tags all match the run is used ("" matches every run).

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi"
)

// globalStep is one write (or compaction) of a scenario.
type globalStep struct {
	name string
	op   string // upsert, delete, or compact (merge-on-read only; a no-op on copy-on-write)
	rows []mrow
	// want and wantRO: expected snapshot and read-optimized rows by variant; wantRO
	// defaults to want (copy-on-write, or merge-on-read without log records).
	want, wantRO map[string][]string
	// stats: expected "+inserted ~updated -deleted" by variant (checked when present).
	stats map[string]string
}

type globalVariant struct {
	mor, update, defaultPayload bool
	index                       string
}

func (v globalVariant) tags() []string {
	t := []string{"cow", "move", "owl"}
	if v.mor {
		t[0] = "mor"
	}
	if !v.update {
		t[1] = "keep"
	}
	if v.defaultPayload {
		t[2] = "default"
	}
	return t
}

// pickVariant returns the most specific expectation matching v.
func pickVariant(t *testing.T, m map[string][]string, v globalVariant) ([]string, bool) {
	t.Helper()
	best, bestN, ambiguous := "", -1, false
	for k := range m {
		parts := []string{}
		if k != "" {
			parts = strings.Split(k, "/")
		}
		ok := true
		for _, p := range parts {
			if !slices.Contains(v.tags(), p) {
				ok = false
			}
		}
		switch {
		case !ok:
		case len(parts) > bestN:
			best, bestN, ambiguous = k, len(parts), false
		case len(parts) == bestN:
			ambiguous = true
		}
	}
	if bestN < 0 {
		return nil, false
	}
	if ambiguous {
		t.Fatalf("ambiguous expectations for %v", v.tags())
	}
	return m[best], true
}

func row(id, city string, ts, val int64) mrow { return mrow{id: id, city: city, ts: ts, val: val} }

func TestGlobalIndexPartitionMoves(t *testing.T) {
	scenarios := []struct {
		name  string
		steps []globalStep
	}{{
		name: "move-and-move-back",
		steps: []globalStep{
			{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 1, 1), row("k2", "sf", 1, 20)},
				want: map[string][]string{"": {"k1|sf|sf|1|1@ins", "k2|sf|sf|1|20@ins"}}},
			{name: "mv", op: "upsert", rows: []mrow{row("k1", "nyc", 2, 2)},
				want: map[string][]string{
					"":     {"k1|nyc|nyc|2|2@mv", "k2|sf|sf|1|20@ins"},
					"keep": {"k1|sf|nyc|2|2@mv", "k2|sf|sf|1|20@ins"},
				},
				wantRO: map[string][]string{
					"mor":      {"k1|sf|sf|1|1@ins", "k1|nyc|nyc|2|2@mv", "k2|sf|sf|1|20@ins"},
					"mor/keep": {"k1|sf|sf|1|1@ins", "k2|sf|sf|1|20@ins"},
				},
				stats: map[string]string{"": "+1 ~0 -1", "keep": "+0 ~1 -0"}},
			{name: "back", op: "upsert", rows: []mrow{row("k1", "sf", 3, 3)},
				want: map[string][]string{"": {"k1|sf|sf|3|3@back", "k2|sf|sf|1|20@ins"}},
				wantRO: map[string][]string{
					// the first sf group still holds k1 in its base file (deleted by its log)
					"mor":      {"k1|sf|sf|1|1@ins", "k1|nyc|nyc|2|2@mv", "k1|sf|sf|3|3@back", "k2|sf|sf|1|20@ins"},
					"mor/keep": {"k1|sf|sf|1|1@ins", "k2|sf|sf|1|20@ins"},
				},
				stats: map[string]string{"": "+1 ~0 -1", "keep": "+0 ~1 -0"}},
			{name: "again", op: "upsert", rows: []mrow{row("k1", "la", 4, 4)},
				want: map[string][]string{
					"":     {"k1|la|la|4|4@again", "k2|sf|sf|1|20@ins"},
					"keep": {"k1|sf|la|4|4@again", "k2|sf|sf|1|20@ins"},
				},
				wantRO: map[string][]string{
					"mor": {"k1|sf|sf|1|1@ins", "k1|nyc|nyc|2|2@mv", "k1|sf|sf|3|3@back", "k1|la|la|4|4@again",
						"k2|sf|sf|1|20@ins"},
					"mor/keep": {"k1|sf|sf|1|1@ins", "k2|sf|sf|1|20@ins"},
				}},
			{name: "compact", op: "compact",
				want: map[string][]string{
					"":     {"k1|la|la|4|4@again", "k2|sf|sf|1|20@ins"},
					"keep": {"k1|sf|la|4|4@again", "k2|sf|sf|1|20@ins"},
				}},
		},
	}, {
		name: "delete-then-reinsert-elsewhere",
		steps: []globalStep{
			{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 1, 1)},
				want: map[string][]string{"": {"k1|sf|sf|1|1@ins"}}},
			// the delete names another partition: a global index deletes the key wherever it is
			{name: "del", op: "delete", rows: []mrow{row("k1", "la", 0, 0)},
				want:   map[string][]string{"": nil},
				wantRO: map[string][]string{"mor": {"k1|sf|sf|1|1@ins"}},
				stats:  map[string]string{"": "+0 ~0 -1"}},
			{name: "re", op: "upsert", rows: []mrow{row("k1", "nyc", 2, 2)},
				want: map[string][]string{
					"": {"k1|nyc|nyc|2|2@re"},
					// Java tags the record to the base file that still holds the key (no
					// merged lookup): the log record revives it in its old partition.
					"mor/keep": {"k1|sf|nyc|2|2@re"},
				},
				wantRO: map[string][]string{
					"mor":      {"k1|sf|sf|1|1@ins", "k1|nyc|nyc|2|2@re"},
					"mor/keep": {"k1|sf|sf|1|1@ins"},
				},
				stats: map[string]string{"": "+1 ~0 -0", "mor/keep": "+0 ~1 -0"}},
			{name: "mv", op: "upsert", rows: []mrow{row("k1", "sf", 3, 3)},
				want: map[string][]string{
					"":         {"k1|sf|sf|3|3@mv"},
					"cow/keep": {"k1|nyc|sf|3|3@mv"},
				},
				wantRO: map[string][]string{
					"mor":      {"k1|sf|sf|1|1@ins", "k1|nyc|nyc|2|2@re", "k1|sf|sf|3|3@mv"},
					"mor/keep": {"k1|sf|sf|1|1@ins"},
				}},
		},
	}, {
		name: "move-after-compaction",
		steps: []globalStep{
			{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 1, 1)},
				want: map[string][]string{"": {"k1|sf|sf|1|1@ins"}}},
			{name: "mv", op: "upsert", rows: []mrow{row("k1", "nyc", 2, 2)},
				want: map[string][]string{
					"":     {"k1|nyc|nyc|2|2@mv"},
					"keep": {"k1|sf|nyc|2|2@mv"},
				},
				wantRO: map[string][]string{
					"mor":      {"k1|sf|sf|1|1@ins", "k1|nyc|nyc|2|2@mv"},
					"mor/keep": {"k1|sf|sf|1|1@ins"},
				}},
			{name: "compact", op: "compact",
				want: map[string][]string{
					"":     {"k1|nyc|nyc|2|2@mv"},
					"keep": {"k1|sf|nyc|2|2@mv"},
				}},
			{name: "mv2", op: "upsert", rows: []mrow{row("k1", "la", 3, 3)},
				want: map[string][]string{
					"":     {"k1|la|la|3|3@mv2"},
					"keep": {"k1|sf|la|3|3@mv2"},
				},
				wantRO: map[string][]string{
					"mor":      {"k1|nyc|nyc|2|2@mv", "k1|la|la|3|3@mv2"},
					"mor/keep": {"k1|sf|nyc|2|2@mv"},
				},
				stats: map[string]string{"": "+1 ~0 -1", "keep": "+0 ~1 -0"}},
		},
	}, {
		// HUDI-5968: with DefaultHoodieRecordPayload a late record (smaller ts) for another
		// partition loses the merge with the stored record, which stays in its partition,
		// written again by this commit.
		name: "late-move-loses",
		steps: []globalStep{
			{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 5, 1), row("k2", "sf", 5, 10)},
				want: map[string][]string{"": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|10@ins"}}},
			{name: "late", op: "upsert", rows: []mrow{row("k1", "nyc", 3, 2), row("k2", "nyc", 5, 11)},
				want: map[string][]string{
					"":             {"k1|nyc|nyc|3|2@late", "k2|nyc|nyc|5|11@late"},
					"default":      {"k1|sf|sf|5|1@late", "k2|nyc|nyc|5|11@late"}, // a tie goes to the incoming record
					"keep":         {"k1|sf|nyc|3|2@late", "k2|sf|nyc|5|11@late"},
					"keep/default": {"k1|sf|sf|5|1@ins", "k2|sf|nyc|5|11@late"}, // the merge handle / reader keeps the stored k1
				},
				wantRO: map[string][]string{
					"mor":              {"k1|sf|sf|5|1@ins", "k1|nyc|nyc|3|2@late", "k2|sf|sf|5|10@ins", "k2|nyc|nyc|5|11@late"},
					"mor/default":      {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|10@ins", "k2|nyc|nyc|5|11@late"},
					"mor/keep":         {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|10@ins"},
					"mor/keep/default": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|10@ins"},
				},
				stats: map[string]string{
					"":                 "+2 ~0 -2",
					"default":          "+1 ~1 -1",
					"keep":             "+0 ~2 -0",
					"mor/keep/default": "+0 ~2 -0",
					"cow/keep/default": "+0 ~1 -0", // the merge handle drops the losing k1
				}},
			{name: "compact", op: "compact",
				want: map[string][]string{
					"":             {"k1|nyc|nyc|3|2@late", "k2|nyc|nyc|5|11@late"},
					"default":      {"k1|sf|sf|5|1@late", "k2|nyc|nyc|5|11@late"},
					"keep":         {"k1|sf|nyc|3|2@late", "k2|sf|nyc|5|11@late"},
					"keep/default": {"k1|sf|sf|5|1@ins", "k2|sf|nyc|5|11@late"},
				}},
		},
	}, {
		// An incoming soft delete for another partition goes to the stored record's group
		// and is merged there by the payload: a late one loses under event-time ordering.
		name: "soft-delete-elsewhere",
		steps: []globalStep{
			{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 5, 1), row("k2", "sf", 5, 2)},
				want: map[string][]string{"": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|2@ins"}}},
			{name: "sdel", op: "upsert", rows: []mrow{{id: "k1", city: "nyc", ts: 3, deleted: true}, {id: "k2", city: "nyc", ts: 6, deleted: true}},
				want: map[string][]string{
					"": nil,
					// The merge handle's payload keeps the stored record with the greater
					// ts. Merge-on-read logs the soft delete as a delete record (Java 0.14's
					// append handle), which deletes the base record whatever its ts.
					"cow/default": {"k1|sf|sf|5|1@ins"},
				},
				wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins", "k2|sf|sf|5|2@ins"}},
				stats:  map[string]string{"": "+0 ~0 -2", "cow/default": "+0 ~0 -1"}},
		},
	}, {
		// Merge-on-read merges every found record with the stored one (the key may be in
		// several base files): a late update in the same partition re-writes the stored
		// record with the new commit time. Copy-on-write tags it directly, and its merge
		// handle keeps the stored record as it was.
		name: "late-update-same-partition",
		steps: []globalStep{
			{name: "ins", op: "upsert", rows: []mrow{row("k1", "sf", 5, 1)},
				want: map[string][]string{"": {"k1|sf|sf|5|1@ins"}}},
			{name: "late", op: "upsert", rows: []mrow{row("k1", "sf", 3, 2)},
				want: map[string][]string{
					"":                 {"k1|sf|sf|3|2@late"},
					"default":          {"k1|sf|sf|5|1@ins"},
					"mor/move/default": {"k1|sf|sf|5|1@late"},
				},
				wantRO: map[string][]string{"mor": {"k1|sf|sf|5|1@ins"}},
				stats:  map[string]string{"": "+0 ~1 -0", "cow/default": "+0 ~0 -0"}},
		},
	}}

	var variants []globalVariant
	for _, mor := range []bool{false, true} {
		for _, index := range []string{"GLOBAL_SIMPLE", "GLOBAL_BLOOM"} {
			for _, update := range []bool{true, false} {
				for _, def := range []bool{false, true} {
					variants = append(variants, globalVariant{mor: mor, update: update, defaultPayload: def, index: index})
				}
			}
		}
	}
	for _, v := range variants {
		for _, sc := range scenarios {
			name := fmt.Sprintf("%s/%s/%s", strings.Join(v.tags(), "/"), v.index, sc.name)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runGlobalScenario(t, v, sc.steps)
			})
		}
	}
}

func runGlobalScenario(t *testing.T, v globalVariant, steps []globalStep) {
	ctx := context.Background()
	dir := t.TempDir()
	payload := payloadOverwrite
	if v.defaultPayload {
		payload = payloadDefault
	}
	co := hudi.CreateOptions{Name: "global", RecordKeyFields: []string{"id"}, PrecombineField: "ts", PartitionFields: []string{"city"},
		Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"}
	if v.mor {
		co.Type = "mor"
		co.Settings = map[string]string{"hoodie.datasource.write.payload.class": payload}
	}
	if _, err := hudi.Create(ctx, dir, co); err != nil {
		t.Fatal(err)
	}
	update := fmt.Sprint(v.update)
	settings := map[string]string{
		"hoodie.index.type":                         v.index,
		"hoodie.datasource.write.payload.class":     payload,
		"hoodie.bloom.index.update.partition.path":  update,
		"hoodie.simple.index.update.partition.path": update,
		"hoodie.index.bloom.num_entries":            "100",
		"hoodie.parquet.compression.codec":          "snappy",
	}
	stepOf := map[string]string{} // instant → step name
	for _, st := range steps {
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		switch st.op {
		case "compact":
			if v.mor {
				res, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true,
					Settings: map[string]string{"hoodie.index.bloom.num_entries": "100", "hoodie.parquet.compression.codec": "snappy"}})
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				if !res.Completed {
					t.Fatalf("%s: nothing compacted (%s)", st.name, res.Message)
				}
			}
		default:
			batch := buildBatch(st.rows, st.op == "delete")
			res, err := tbl.Write(ctx, []arrow.Record{batch}, hudi.WriteOptions{Operation: st.op, Settings: settings})
			batch.Release()
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			stepOf[res.Instant] = st.name
			if st.stats != nil {
				if want, ok := pickStats(t, st.stats, v); ok {
					got := fmt.Sprintf("+%d ~%d -%d", res.Records.Inserted, res.Records.Updated, res.Records.Deleted)
					if got != want {
						t.Errorf("%s: write stats %s, want %s", st.name, got, want)
					}
				}
			}
		}
		tbl, err = hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := pickVariant(t, st.want, v)
		if !ok {
			t.Fatalf("%s: no expectation for %v", st.name, v.tags())
		}
		snap := globalRows(t, stepOf, scanRows(t, ctx, tbl, hudi.ScanOptions{}))
		compareRows(t, st.name+": snapshot", snap, want)
		keys := map[string]bool{}
		for _, r := range snap {
			k, _, _ := strings.Cut(r, "|")
			if keys[k] {
				t.Errorf("%s: snapshot holds key %s twice: %v", st.name, k, snap)
			}
			keys[k] = true
		}
		wantRO := want
		if st.wantRO != nil {
			if w, ok := pickVariant(t, st.wantRO, v); ok {
				wantRO = w
			}
		}
		ro := globalRows(t, stepOf, scanRows(t, ctx, tbl, hudi.ScanOptions{ReadOptimized: true}))
		compareRows(t, st.name+": read-optimized", ro, wantRO)
	}
}

func pickStats(t *testing.T, m map[string]string, v globalVariant) (string, bool) {
	t.Helper()
	lists := map[string][]string{}
	for k, s := range m {
		lists[k] = []string{s}
	}
	l, ok := pickVariant(t, lists, v)
	if !ok {
		return "", false
	}
	return l[0], true
}

// globalRows turns scanRows output into "key|partition|city|ts|val@step".
func globalRows(t *testing.T, stepOf map[string]string, rows []string) []string {
	t.Helper()
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		f := strings.Split(r, "|")
		if len(f) != 8 {
			t.Fatalf("row %q", r)
		}
		step, ok := stepOf[f[0]]
		if !ok {
			step = "?" + f[0]
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s@%s", f[1], f[2], strings.TrimPrefix(f[4], "city="),
			strings.TrimPrefix(f[5], "ts="), strings.TrimPrefix(f[6], "val="), step))
	}
	sort.Strings(out)
	return out
}

func compareRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	want = slices.Clone(want)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n  got  %v\n  want %v", what, got, want)
	}
}
