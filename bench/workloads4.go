package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
)

// ---------------------------------------------------------------------------------- W11

// metadataEnable is off in every W11 write: hudi-go keeps a metadata table on version 6
// only, so with it a v6 write would also pay for the metadata table's deltacommit.
const metadataEnable = "hoodie.metadata.enable"

var noMetadata = map[string]string{metadataEnable: "false"}

// w11Versions runs W1's bulk_insert, W2's clustered COW upsert (BLOOM), W3's clustered
// MOR deltacommit and compaction (BLOOM), and an archival, each on a table of version 9
// (Hudi 1.x: timeline layout 2, Avro commit metadata, completion times, the LSM history)
// against the same on a table of version 6 (Hudi 0.14: JSON commit metadata, archive
// logs), both without a metadata table. The ratio is the cost of the 1.x table format as hudi-go writes it; the data
// files are the same Parquet either way.
func w11Versions(r *runner) error {
	ctx := r.ctx
	n := r.cfg.Rows
	ds := r.datasets()[0] // trips
	batches := ds.gen(n)
	defer benchdata.Release(batches)
	bulk := func(version int) func(ctx context.Context, dir string) error {
		return func(ctx context.Context, dir string) error {
			tb, err := hudi.Create(ctx, filepath.Join(dir, "t"), hudi.CreateOptions{Name: ds.name, RecordKeyFields: []string{ds.key},
				PrecombineField: "ts", PartitionFields: []string{ds.part}, HiveStyle: true, Schema: ds.ddl, TableVersion: version})
			if err != nil {
				return err
			}
			res, err := tb.Write(ctx, batches, hudi.WriteOptions{Operation: "bulk_insert", Settings: noMetadata})
			if err == nil && res.Records.Inserted != int64(n) {
				err = fmt.Errorf("bulk_insert inserted %d rows, want %d", res.Records.Inserted, n)
			}
			return err
		}
	}
	if err := r.compare("W1 bulk_insert trips", n, []string{"(info)"}, nil,
		r.freshHeapSide("hudi-go v9", bulk(9)), r.freshHeapSide("hudi-go v6", bulk(6))); err != nil {
		return err
	}

	s := merged(snappy, r.indexSettings("BLOOM", n), noMetadata)
	upd := keyRange{n - n/100, n, 1}
	batch := upd.rows(r.cfg.Seed)
	defer benchdata.Release(batch)
	upsert := func(ctx context.Context, dir string) error {
		res, err := hudiUpsert(ctx, dir, batch, "upsert", s)
		if err == nil && res.Records.Updated != int64(upd.count()) {
			err = fmt.Errorf("updated %d, want %d", res.Records.Updated, upd.count())
		}
		return err
	}
	for _, typ := range []string{"cow", "mor"} {
		what := "W2 COW upsert 1% clustered"
		if typ == "mor" {
			what = "W3 MOR deltacommit 1% clustered"
		}
		v9, err := r.baseVersion(typ, "BLOOM", n, false, 9)
		if err != nil {
			return err
		}
		v6, err := r.baseVersion(typ, "BLOOM", n, false, 6)
		if err != nil {
			return err
		}
		if err := r.compare(what, upd.count(), []string{"(info)"}, nil,
			r.cloneSide("hudi-go v9", v9, upsert), r.cloneSide("hudi-go v6", v6, upsert)); err != nil {
			return err
		}
		if typ != "mor" {
			continue
		}
		compact := func(ctx context.Context, dir string) error {
			tb, err := hudi.Open(ctx, dir)
			if err != nil {
				return err
			}
			res, err := tb.Compact(ctx, hudi.CompactOptions{Settings: merged(snappy, noMetadata)})
			if err == nil && !res.Completed {
				err = fmt.Errorf("compaction did not complete")
			}
			return err
		}
		m9, err := r.prepared(fmt.Sprintf("w11-mor1-v9-%d", n), v9, []keyRange{upd}, s)
		if err != nil {
			return err
		}
		m6, err := r.prepared(fmt.Sprintf("w11-mor1-v6-%d", n), v6, []keyRange{upd}, s)
		if err != nil {
			return err
		}
		if err := r.compare("W3 MOR compaction after 1% clustered", upd.count(), []string{"(info)"}, nil,
			r.cloneSide("hudi-go v9", m9, compact), r.cloneSide("hudi-go v6", m6, compact)); err != nil {
			return err
		}
	}

	// Archival: a COW table with 40 small commits (100 rows each, automatic archival and
	// cleaning off), archived down to 10 (keep 10..20): 30 instants move into the archive
	// log (v6) or the LSM history (v9), with their cleans.
	const commits, rows = 40, 100
	archiveBase := func(version int) (string, error) {
		dir := filepath.Join(r.dir, "bases", fmt.Sprintf("w11-archive-v%d", version))
		tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", RecordKeyFields: []string{"uuid"}, PrecombineField: "ts",
			Schema: benchdata.TripsDDL, TableVersion: version})
		if err != nil {
			return "", err
		}
		off := merged(noMetadata, map[string]string{"hoodie.archive.automatic": "false", "hoodie.clean.automatic": "false"})
		for i := 0; i < commits; i++ {
			b := keyRange{i * rows, (i + 1) * rows, 1}.rows(r.cfg.Seed)
			_, err := tb.Write(ctx, b, hudi.WriteOptions{Operation: "upsert", Settings: merged(snappy, off)})
			benchdata.Release(b)
			if err != nil {
				return "", err
			}
		}
		return dir, nil
	}
	a9, err := archiveBase(9)
	if err != nil {
		return err
	}
	a6, err := archiveBase(6)
	if err != nil {
		return err
	}
	archive := func(ctx context.Context, dir string) error {
		tb, err := hudi.Open(ctx, dir)
		if err != nil {
			return err
		}
		res, err := tb.Archive(ctx, hudi.ArchiveOptions{Settings: merged(noMetadata, map[string]string{"hoodie.keep.min.commits": "10",
			"hoodie.keep.max.commits": "20", "hoodie.cleaner.commits.retained": "5"})})
		if err == nil && len(res.InstantsArchived) != commits-10 {
			err = fmt.Errorf("archived %d instants, want %d", len(res.InstantsArchived), commits-10)
		}
		return err
	}
	return r.compare("archive "+strconv.Itoa(commits-10)+" of "+strconv.Itoa(commits)+" commits", commits-10, []string{"(info)"}, nil,
		r.cloneSide("hudi-go v9", a9, archive), r.cloneSide("hudi-go v6", a6, archive))
}
