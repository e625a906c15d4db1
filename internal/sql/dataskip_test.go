package sql

import (
	"context"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/sql/parser"
	"github.com/hudi-go/hudi/internal/testutil"
)

// TestSetDataSkippingReachesScans checks that SET hoodie.enable.data.skipping=true makes a
// SELECT prune the file slices the metadata table's column_stats exclude (Spark's
// HoodieFileIndex.lookupCandidateFilesInMetadataTable, read.Options.DataSkipping) on a
// Spark-written Hudi 1.1 table: the rows are those of the same query without skipping, and
// fewer base files are listed. Before, the session's read settings reached writes only.
func TestSetDataSkippingReachesScans(t *testing.T) {
	ctx := context.Background()
	path := testutil.Table(t, "cow/v9_txns_simple_meta")
	e := openEngine(t)
	listed := func(where string) int {
		t.Helper()
		st, err := parser.Parse("SELECT * FROM hudi.`" + path + "` WHERE " + where)
		if err != nil {
			t.Fatal(err)
		}
		b := newBinder(e)
		defer b.close(ctx)
		q, err := b.render(ctx, st[0].(*parser.Select).Query)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(q, ".parquet'")
	}
	var pruned int
	for _, where := range []string{
		"merchant_name = 'Grab'",
		"amount > 1000",
		"txn_ts <= 1700000000003",
		"merchant_name = 'Spotify' OR amount > 5000",
	} {
		sel := "SELECT txn_id, amount, merchant_name FROM hudi.`" + path + "` WHERE " + where + " ORDER BY txn_id"
		run(t, e, "SET hoodie.enable.data.skipping=false")
		without, nWithout := query(t, e, sel), listed(where)
		run(t, e, "SET hoodie.enable.data.skipping=true")
		with, nWith := query(t, e, sel), listed(where)
		if with != without {
			t.Errorf("WHERE %s: rows with data skipping\n%s\nwithout\n%s", where, with, without)
		}
		if with == "" {
			t.Errorf("WHERE %s: no rows; the filter must select some", where)
		}
		if nWith > nWithout {
			t.Errorf("WHERE %s: %d base files listed with data skipping, %d without", where, nWith, nWithout)
		}
		t.Logf("WHERE %s: %d base files listed with data skipping, %d without", where, nWith, nWithout)
		pruned += nWithout - nWith
	}
	if pruned == 0 {
		t.Error("data skipping pruned no base file in any query")
	}
	// A read setting is checked at SET, not ignored until a read fails.
	if err := runErr(t, e, "SET hoodie.enable.data.skipping=maybe"); !strings.Contains(err.Error(), "hoodie.enable.data.skipping") {
		t.Errorf("SET hoodie.enable.data.skipping=maybe: %v", err)
	}
}
