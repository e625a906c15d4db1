package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/benchdata"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/storage/local"
)

// W9: the cost of change-data capture on writes. The same writes as W2 (a COW upsert of
// 1% of the keys, clustered and scattered, BLOOM) and W3 (a MOR deltacommit and the
// compaction after it, with the BUCKET index, the one whose compactions log changes) on
// a table with hoodie.table.cdc.enabled in each supplemental logging mode, against the
// same table with CDC off. The ratio is the write's CDC overhead.

// cdcBase is a clone of base with CDC on in mode (built once per run).
func (r *runner) cdcBase(base, mode string) (string, error) {
	dir := base + "-cdc-" + strings.ToLower(mode)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := cloneTable(base, dir); err != nil {
		return "", err
	}
	tb, err := table.Open(r.ctx, local.New(dir))
	if err != nil {
		return "", err
	}
	err = tb.UpdateProperties(r.ctx, func(p *props.Properties) {
		p.Set("hoodie.table.cdc.enabled", "true")
		p.Set("hoodie.table.cdc.supplemental.logging.mode", mode)
	}, time.Now())
	return dir, err
}

// cdcFiles counts the CDC log files of instant in dir and their bytes.
func cdcFiles(dir, instant string) (n int, bytes int64) {
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if l, ok := spec.ParseLogFileName(info.Name()); ok && l.CDC() && string(l.Instant) == instant {
				n++
				bytes += info.Size()
			}
		}
		return nil
	})
	return n, bytes
}

func w9CDC(r *runner) error {
	n := r.cfg.Rows
	modes := []string{"OP_KEY_ONLY", "DATA_BEFORE", "DATA_BEFORE_AFTER"}
	// W2: COW upserts.
	s := merged(snappy, r.indexSettings("BLOOM", n))
	plain, err := r.base("cow", "BLOOM", n, false)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		keys keyRange
	}{{"clustered", keyRange{n - n/100, n, 1}}, {"scattered", keyRange{0, n, 100}}} {
		batch := c.keys.rows(r.cfg.Seed)
		upsert := func(ctx context.Context, dir string) error {
			_, err := hudiUpsert(ctx, dir, batch, "upsert", s)
			return err
		}
		for _, mode := range modes {
			withCDC, err := r.cdcBase(plain, mode)
			if err != nil {
				benchdata.Release(batch)
				return err
			}
			check := func() (string, error) {
				dir := filepath.Join(r.scratch("check"), "t")
				defer os.RemoveAll(filepath.Dir(dir))
				if err := cloneTable(withCDC, dir); err != nil {
					return "", err
				}
				prev, err := lastInstant(r.ctx, dir)
				if err != nil {
					return "", err
				}
				res, err := hudiUpsert(r.ctx, dir, batch, "upsert", s)
				if err != nil {
					return "", err
				}
				files, bytes := cdcFiles(dir, res.Instant)
				if files == 0 {
					return "", fmt.Errorf("the CDC table's upsert wrote no CDC log file")
				}
				// The CDC query of the upsert: an update of each key, its images paired.
				ups, err := cdcUpdates(r.ctx, dir, prev)
				if err != nil {
					return "", err
				}
				if ups != int(res.Records.Updated) || ups != c.keys.count() {
					return "", fmt.Errorf("the CDC query of the upsert shows %d updates; it updated %d", ups, res.Records.Updated)
				}
				return fmt.Sprintf("%d CDC log files, %d bytes; the CDC query shows the %d updates", files, bytes, ups), nil
			}
			if err := r.compare("COW upsert 1% "+c.name+" CDC "+mode+" vs CDC off", c.keys.count(), []string{"(info)"}, check,
				r.cloneSide("hudi-go CDC "+mode, withCDC, upsert), r.cloneSide("hudi-go CDC off", plain, upsert)); err != nil {
				benchdata.Release(batch)
				return err
			}
		}
		benchdata.Release(batch)
	}
	// W3: MOR with the BUCKET index: a deltacommit (no CDC file: its changes are inferred
	// when queried) and the compaction after it (a CDC file per compacted group).
	sb := merged(snappy, r.indexSettings("BUCKET", n))
	mor, err := r.base("mor", "BUCKET", n, false)
	if err != nil {
		return err
	}
	upd := keyRange{n - n/100, n, 1}
	batch := upd.rows(r.cfg.Seed)
	defer benchdata.Release(batch)
	upsert := func(ctx context.Context, dir string) error {
		_, err := hudiUpsert(ctx, dir, batch, "upsert", sb)
		return err
	}
	compact := func(ctx context.Context, dir string) error {
		tb, err := hudi.Open(ctx, dir)
		if err != nil {
			return err
		}
		res, err := tb.Compact(ctx, hudi.CompactOptions{Settings: sb})
		if err == nil && !res.Completed {
			err = fmt.Errorf("compaction did not complete: %s", res.Message)
		}
		return err
	}
	plainPrepared, err := r.prepared(fmt.Sprintf("mor-bucket-1-%d", n), mor, []keyRange{upd}, sb)
	if err != nil {
		return err
	}
	mode := "DATA_BEFORE_AFTER"
	morCDC, err := r.cdcBase(mor, mode)
	if err != nil {
		return err
	}
	if err := r.compare("MOR deltacommit 1% clustered BUCKET CDC "+mode+" vs CDC off", upd.count(), []string{"≈1"}, nil,
		r.cloneSide("hudi-go CDC "+mode, morCDC, upsert), r.cloneSide("hudi-go CDC off", mor, upsert)); err != nil {
		return err
	}
	cdcPrepared, err := r.prepared(fmt.Sprintf("mor-bucket-1-%d-cdc", n), morCDC, []keyRange{upd}, sb)
	if err != nil {
		return err
	}
	check := func() (string, error) {
		dir := filepath.Join(r.scratch("check"), "t")
		defer os.RemoveAll(filepath.Dir(dir))
		if err := cloneTable(cdcPrepared, dir); err != nil {
			return "", err
		}
		tb, err := hudi.Open(r.ctx, dir)
		if err != nil {
			return "", err
		}
		res, err := tb.Compact(r.ctx, hudi.CompactOptions{Settings: sb})
		if err != nil {
			return "", err
		}
		files, bytes := cdcFiles(dir, res.Instant)
		if files == 0 {
			return "", fmt.Errorf("the compaction wrote no CDC log file")
		}
		return fmt.Sprintf("%d CDC log files, %d bytes", files, bytes), nil
	}
	return r.compare("MOR compaction after 1% BUCKET CDC "+mode+" vs CDC off", upd.count(), []string{"(info)"}, check,
		r.cloneSide("hudi-go CDC "+mode, cdcPrepared, compact), r.cloneSide("hudi-go CDC off", plainPrepared, compact))
}

// lastInstant is the table's latest data instant.
func lastInstant(ctx context.Context, dir string) (string, error) {
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		return "", err
	}
	data := tb.Timeline().DataInstants()
	if len(data) == 0 {
		return "", fmt.Errorf("%s has no commit", dir)
	}
	return string(data[len(data)-1].Time), nil
}

// cdcUpdates counts the updates the CDC query after begin returns whose before and after
// images are of the same key and differ.
func cdcUpdates(ctx context.Context, dir, begin string) (int, error) {
	tb, err := hudi.Open(ctx, dir)
	if err != nil {
		return 0, err
	}
	sc, err := tb.Scan(ctx, hudi.ScanOptions{CDC: true, Begin: begin})
	if err != nil {
		return 0, err
	}
	n := 0
	err = sc.Run(ctx, func(rec arrow.Record) error {
		op, b, a := rec.Column(0).(*array.String), rec.Column(2).(*array.String), rec.Column(3).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			key := func(img string) string {
				_, rest, _ := strings.Cut(img, `"uuid": "`)
				k, _, _ := strings.Cut(rest, `"`)
				return k
			}
			if op.Value(i) != "u" || b.IsNull(i) || a.IsNull(i) || key(b.Value(i)) != key(a.Value(i)) || b.Value(i) == a.Value(i) {
				return fmt.Errorf("CDC row %s %s %s", op.Value(i), b.ValueStr(i), a.ValueStr(i))
			}
			n++
		}
		return nil
	})
	return n, err
}
